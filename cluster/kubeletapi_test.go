package cluster

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/stepper"
)

// get sends a GET through the API server (as the loopback user) and
// returns the code and body.
func get(c *Cluster, path string) (int, string) {
	rec := httptest.NewRecorder()
	c.Server().LoopbackHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

func status(t *testing.T, body string) api.Status {
	t.Helper()
	var st api.Status
	require.NoError(t, json.Unmarshal([]byte(body), &st), body)
	return st
}

// pods/log goes from the API server to the pod's node's kubelet API, and
// the refusals on the way are the real ones.
func TestPodLogIsForwardedToTheNodesKubelet(t *testing.T) {
	c := stepCluster(t)
	cl := c.Client("test")
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	_, err := cl.Pods().Create(bg, pod)
	require.NoError(t, err)

	code, body := get(c, "/api/v1/namespaces/default/pods/p/log")
	assert.Equal(t, http.StatusOK, code, "an unscheduled pod's log is empty")
	assert.Empty(t, body)

	code, body = get(c, "/api/v1/namespaces/default/pods/p/log?container=nope")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, "container nope is not valid for pod p", status(t, body).Message)

	code, body = get(c, "/api/v1/namespaces/default/pods/missing/log")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Equal(t, `pods "missing" not found`, status(t, body).Message)

	code, body = get(c, "/api/v1/namespaces/default/pods/p/log?tailLines=-1")
	assert.Equal(t, http.StatusUnprocessableEntity, code, body)

	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	p, err := cl.Pods().Get(bg, "default", "p")
	require.NoError(t, err)
	require.Equal(t, api.PodRunning, p.Status.Phase)
	code, body = get(c, "/api/v1/namespaces/default/pods/p/log")
	assert.Equal(t, http.StatusOK, code, body)

	code, body = get(c, "/api/v1/namespaces/default/pods/p/log?previous=true")
	assert.Equal(t, http.StatusBadRequest, code)
	st := status(t, body)
	assert.Equal(t, api.StatusReasonBadRequest, st.Reason)
	assert.Equal(t, `previous terminated container "c" in pod "p" not found`, st.Message)

	k, _ := c.Kubelet(p.Spec.NodeName)
	k.Stop()
	code, body = get(c, "/api/v1/namespaces/default/pods/p/log")
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Equal(t, `Get "https://`+k.InternalIP()+`:10250/containerLogs/default/p/c": dial tcp `+k.InternalIP()+`:10250: connect: connection refused`,
		status(t, body).Message)
}
