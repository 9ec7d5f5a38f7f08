package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api/unstructured"
)

// A re-applied Pod manifest keeps what admission added and it does not
// say — the service account, its token volume and mount, the
// DefaultTolerationSeconds plugin's tolerations — as kubectl apply's
// three-way merge keeps them; what the manifest says wins.
func TestKeepAdmittedPodFields(t *testing.T) {
	pod := func(spec string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		require.NoError(t, u.UnmarshalJSON([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":`+spec+`}`)))
		return u
	}
	stored := pod(`{"serviceAccountName":"default","containers":[{"name":"c","image":"nginx",
		"volumeMounts":[{"name":"kube-api-access-x","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],
		"volumes":[{"name":"kube-api-access-x"}],
		"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]}`)
	manifest := pod(`{"containers":[{"name":"c","image":"nginx"}]}`)
	keepAdmittedPodFields(manifest, stored)
	assert.Equal(t, stored.Content["spec"], manifest.Content["spec"])

	own := pod(`{"containers":[{"name":"c","image":"nginx"}],"tolerations":[{"operator":"Exists"}]}`)
	keepAdmittedPodFields(own, stored)
	assert.Equal(t, []any{map[string]any{"operator": "Exists"}}, own.Content["spec"].(map[string]any)["tolerations"])
}
