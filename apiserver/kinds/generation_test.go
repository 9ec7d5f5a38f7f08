package kinds_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// wantGeneration is the generation a create answers with, for the kinds
// whose kube-apiserver v1.32 strategy sets one (PrepareForCreate; CSIDriver
// only moves it on update). Every other kind keeps what the client sent.
var wantGeneration = map[string]int64{
	"deployments.apps": 1, "replicasets.apps": 1, "statefulsets.apps": 1, "daemonsets.apps": 1,
	"jobs.batch": 1, "cronjobs.batch": 1, "replicationcontrollers": 1, "podtemplates": 1,
	"poddisruptionbudgets.policy": 1, "ingresses.networking.k8s.io": 1,
	"ingressclasses.networking.k8s.io": 1, "networkpolicies.networking.k8s.io": 1,
	"mutatingwebhookconfigurations.admissionregistration.k8s.io":     1,
	"validatingwebhookconfigurations.admissionregistration.k8s.io":   1,
	"validatingadmissionpolicies.admissionregistration.k8s.io":       1,
	"validatingadmissionpolicybindings.admissionregistration.k8s.io": 1,
	"flowschemas.flowcontrol.apiserver.k8s.io":                       1,
	"prioritylevelconfigurations.flowcontrol.apiserver.k8s.io":       1,
	"endpointslices.discovery.k8s.io":                                1,
	"priorityclasses.scheduling.k8s.io":                              1,
	"csidrivers.storage.k8s.io":                                      0,
	"customresourcedefinitions.apiextensions.k8s.io":                 1,
}

// Only the kinds whose strategy sets metadata.generation have one: a
// ConfigMap, an Event, a Pod (until v1.33) or an HPA keeps whatever the
// client sent, a Deployment starts at 1 whatever was sent. A change of
// labels alone moves no generation but an EndpointSlice's.
func TestGenerationOnlyWhereTheStrategySetsIt(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.LoopbackHandler()
	const sentGeneration = 7
	seen := map[string]bool{}
	for _, r := range env.Server.Resources() {
		if notRoundTripped(r, false) != "" {
			continue
		}
		gr := r.GroupResource().String()
		t.Run(strings.TrimSuffix(r.Name+"."+r.Version+"."+r.Group, "."), func(t *testing.T) {
			rt := &roundTrip{t: t, h: h, res: r, name: "gen-" + groupPrefix(r.Group) + r.Version, wire: "json"}
			obj := rt.validObject()
			api.Meta(obj).Generation = sentGeneration
			created := rt.decode(rt.do("POST", rt.collection(), obj, "json", ""))
			want, has := wantGeneration[gr]
			if !has {
				want = sentGeneration
			}
			assert.Equal(t, want, api.Meta(created).Generation, "generation of a new %s", gr)
			seen[gr] = true

			relabelled := api.DeepCopy(created)
			api.Meta(relabelled).Labels = map[string]string{"relabelled": "yes"}
			rec := rt.do("PUT", rt.collection()+"/"+api.Meta(created).Name, relabelled, "json", "")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			if gr == "endpointslices.discovery.k8s.io" {
				want++
			}
			assert.Equal(t, want, api.Meta(rt.decode(rec)).Generation, "generation of a relabelled %s", gr)
		})
	}
	for gr := range wantGeneration {
		assert.True(t, seen[gr], "%s has a row in wantGeneration but is not served", gr)
	}
}

// validObject is a valid object of rt's kind, filled from seed 1: what
// validation refuses of the random one is taken out (makeValid), a CRD is
// a fixed valid one.
func (rt *roundTrip) validObject() api.Object {
	rt.t.Helper()
	if rt.res.Group == "apiextensions.k8s.io" {
		return validCRD(rt.res.Version)
	}
	obj := rt.fill(1)
	if fix, ok := validFixes[rt.res.GroupResource().String()]; ok {
		fix(obj)
	}
	return rt.makeValid(obj)
}
