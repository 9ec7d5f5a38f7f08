package cluster

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/stepper"
)

// A container finds the API server as in any cluster: the KUBERNETES_*
// variables name the kubernetes Service (enableServiceLinks or not, while
// other Services' variables follow enableServiceLinks), kubernetes.default
// resolves to its cluster IP, and https://kubernetes.default.svc reaches
// the API server through the Service's endpoint; plain HTTP to its TLS
// port gets Go's answer to that.
func TestContainersReachTheAPIServer(t *testing.T) {
	c := stepCluster(t)
	cl := c.Client("test")
	_, err := cl.Services().Create(bg, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80}}}})
	require.NoError(t, err)
	off := false
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "links", Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sleep", "3600"}}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "nolinks", Namespace: "default"},
			Spec: corev1.PodSpec{EnableServiceLinks: &off, Containers: []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sleep", "3600"}}}}},
	} {
		_, err := cl.Pods().Create(bg, p)
		require.NoError(t, err)
	}
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	srv := httptest.NewServer(c.Server().LoopbackHandler())
	defer srv.Close()

	env, _ := execWS(t, srv, "links", "env")
	for _, want := range []string{"KUBERNETES_SERVICE_HOST=10.96.0.1\n", "KUBERNETES_SERVICE_PORT=443\n", "KUBERNETES_SERVICE_PORT_HTTPS=443\n",
		"KUBERNETES_PORT=tcp://10.96.0.1:443\n", "KUBERNETES_PORT_443_TCP=tcp://10.96.0.1:443\n", "KUBERNETES_PORT_443_TCP_PROTO=tcp\n",
		"KUBERNETES_PORT_443_TCP_PORT=443\n", "KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1\n", "WEB_SERVICE_HOST="} {
		assert.Contains(t, env, want)
	}
	env, _ = execWS(t, srv, "nolinks", "env")
	assert.Contains(t, env, "KUBERNETES_SERVICE_HOST=10.96.0.1\n")
	assert.NotContains(t, env, "WEB_SERVICE_HOST")

	out, _ := execWS(t, srv, "links", "nslookup", "kubernetes.default")
	assert.Contains(t, out, "Name:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n")

	out, st := execWS(t, srv, "links", "wget", "-qO-", "https://kubernetes.default.svc/version")
	assert.Equal(t, metav1.StatusSuccess, st.Status, st.Message)
	assert.Contains(t, out, `"gitVersion"`)
	out, st = execWS(t, srv, "links", "sh", "-c", "wget -qO- http://kubernetes.default.svc:443/version 2>&1")
	assert.NotEqual(t, metav1.StatusSuccess, st.Status)
	assert.True(t, strings.Contains(out, "400 Bad Request"), out)
}
