package cluster

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet/remotecommand"
	"github.com/kubesim/kubesim/stepper"
)

// post sends a POST through the API server (as the loopback user).
func post(c *Cluster, path string) (int, string) {
	rec := httptest.NewRecorder()
	c.Server().LoopbackHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, nil))
	return rec.Code, rec.Body.String()
}

// execWS runs a command through pods/exec over WebSocket v5, as kubectl
// does, and returns stdout and the Status of the error channel.
func execWS(t *testing.T, srv *httptest.Server, pod string, cmd ...string) (string, metav1.Status) {
	t.Helper()
	q := url.Values{"stdout": {"true"}, "stderr": {"true"}, "command": cmd}
	d := websocket.Dialer{Subprotocols: []string{remotecommand.StreamProtocolV5Name}}
	ws, _, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/api/v1/namespaces/default/pods/"+pod+"/exec?"+q.Encode(), nil)
	require.NoError(t, err)
	defer ws.Close()
	var stdout string
	var st metav1.Status
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			require.True(t, websocket.IsCloseError(err, websocket.CloseNormalClosure), "%v", err)
			return stdout, st
		}
		switch data[0] {
		case remotecommand.StreamStdOut:
			stdout += string(data[1:])
		case remotecommand.StreamErr:
			require.NoError(t, json.Unmarshal(data[1:], &st))
		}
	}
}

// pods/exec goes from the API server to the pod's node's kubelet, which
// runs the command in the container's environment; the refusals on the
// way are the real ones.
func TestPodExecIsForwardedToTheNodesKubelet(t *testing.T) {
	c := stepCluster(t)
	cl := c.Client("test")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx", Env: []corev1.EnvVar{{Name: "COLOR", Value: "blue"}}}}}}
	_, err := cl.Pods().Create(bg, pod)
	require.NoError(t, err)

	code, body := post(c, "/api/v1/namespaces/default/pods/p/exec?command=ls&stdout=true")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, "pod p does not have a host assigned", status(t, body).Message)
	code, body = post(c, "/api/v1/namespaces/default/pods/p/exec?stdout=true")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, "you must specify at least one command for the container", status(t, body).Message)
	code, body = post(c, "/api/v1/namespaces/default/pods/p/exec?command=ls")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, "you must specify at least 1 of stdin, stdout, stderr", status(t, body).Message)
	code, body = post(c, "/api/v1/namespaces/default/pods/p/attach?stdout=true&container=x")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, "container x is not valid for pod p", status(t, body).Message)
	code, body = post(c, "/api/v1/namespaces/default/pods/p/portforward?ports=0")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, `invalid port "0": port must be between 1 and 65535`, status(t, body).Message)

	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	p, err := cl.Pods().Get(bg, "default", "p")
	require.NoError(t, err)
	require.Equal(t, corev1.PodRunning, p.Status.Phase)

	srv := httptest.NewServer(c.Server().LoopbackHandler())
	defer srv.Close()
	out, st := execWS(t, srv, "p", "sh", "-c", "echo $HOSTNAME $COLOR; exit 2")
	assert.Equal(t, "p blue\n", out)
	assert.Equal(t, remotecommand.NonZeroExitCodeReason, st.Reason)
	assert.Equal(t, "2", st.Details.Causes[0].Message)
	out, st = execWS(t, srv, "p", "cat", "/etc/hostname")
	assert.Equal(t, "p\n", out)
	assert.Equal(t, metav1.StatusSuccess, st.Status)

	// Neither WebSocket nor SPDY: the kubelet's refusal comes back as it is.
	code, body = post(c, "/api/v1/namespaces/default/pods/p/exec?command=ls&stdout=true")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, "unable to upgrade: missing upgrade headers in request: []\n", body)

	k, _ := c.Kubelet(p.Spec.NodeName)
	k.Stop()
	code, body = post(c, "/api/v1/namespaces/default/pods/p/exec?command=ls&stdout=true")
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Equal(t, "error dialing backend: dial tcp "+k.InternalIP()+":10250: connect: connection refused", status(t, body).Message)
}
