package metricsserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// fakeKubelets answers GET https://IP:10250/stats/summary with the
// summary of the node at IP; an unknown address refuses the connection.
type fakeKubelets struct {
	mu        sync.Mutex
	summaries map[string]string
	scrapes   int
}

func (f *fakeKubelets) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scrapes++
	body, ok := f.summaries[req.URL.Hostname()]
	if !ok || req.URL.Port() != "10250" || req.URL.Path != "/stats/summary" {
		return nil, errors.New("dial tcp: connect: connection refused")
	}
	return &http.Response{StatusCode: 200, Status: "200 OK", Body: io.NopCloser(strings.NewReader(body)), Header: http.Header{}}, nil
}

func summaryJSON(node string, nodeCPU, nodeMem uint64, pods ...string) string {
	at := `"2026-01-01T00:00:00Z"`
	var ps []string
	for _, p := range pods {
		ns, name, _ := strings.Cut(p, "/")
		ps = append(ps, fmt.Sprintf(`{"podRef":{"name":%q,"namespace":%q,"uid":"u"},"startTime":%s,"containers":[`+
			`{"name":"c","startTime":%s,"cpu":{"time":%s,"usageNanoCores":250000000},"memory":{"time":%s,"workingSetBytes":67108864}}]}`,
			name, ns, at, at, at, at))
	}
	return fmt.Sprintf(`{"node":{"nodeName":%q,"startTime":%s,"cpu":{"time":%s,"usageNanoCores":%d},"memory":{"time":%s,"workingSetBytes":%d}},"pods":[%s]}`,
		node, at, at, nodeCPU, at, nodeMem, strings.Join(ps, ","))
}

type fixture struct {
	env      *apiservertest.Env
	kubelets *fakeKubelets
	srv      *Server
}

// newFixture is an API server with RBAC (which the SubjectAccessReviews
// ask), two nodes and three pods.
func newFixture(t *testing.T) *fixture {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	clk := clock.NewFake(apiservertest.Start)
	apis, err := apiserver.New(apiserver.Config{Storage: st, Clock: clk, Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin(),
		AuthorizationMode: authz.ModeRBAC})
	require.NoError(t, err)
	require.NoError(t, apis.Bootstrap(context.Background()))
	env := &apiservertest.Env{Server: apis, Client: client.NewInProcess(apis.Handler(), "test"), Clock: clk}
	ctx := context.Background()
	for i, name := range []string{"node-1", "node-2"} {
		_, err := env.Client.Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"zone": fmt.Sprint(i)}},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.0.%d", i+1)}}}})
		require.NoError(t, err)
	}
	for _, p := range []struct{ ns, name, app string }{{"default", "web-1", "web"}, {"default", "db-1", "db"}, {"kube-system", "sys-1", "sys"}} {
		_, err := env.Client.Pods().Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: p.ns, Labels: map[string]string{"app": p.app}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
		require.NoError(t, err)
	}
	k := &fakeKubelets{summaries: map[string]string{
		"10.0.0.1": summaryJSON("node-1", 350000000, 512<<20, "default/web-1", "default/db-1", "kube-system/sys-1"),
		// node-2's kubelet does not answer.
	}}
	srv, err := New(Options{Client: env.Client, Kubelet: k, Clock: env.Clock})
	require.NoError(t, err)
	return &fixture{env: env, kubelets: k, srv: srv}
}

// get serves path as user (the front proxy's authentication is tested
// with the sample API server, whose authenticator this server shares).
func (f *fixture) get(t *testing.T, user *authn.UserInfo, method, path string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	req = req.WithContext(authn.WithUser(req.Context(), user))
	w := httptest.NewRecorder()
	f.srv.serve(w, req)
	var out map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out), w.Body.String())
	return w.Code, out
}

var admin = &authn.UserInfo{Name: "kubernetes-admin", Groups: []string{"system:masters", "system:authenticated"}}

func names(t *testing.T, list map[string]any) []string {
	var out []string
	for _, it := range list["items"].([]any) {
		m := it.(map[string]any)["metadata"].(map[string]any)
		n := m["name"].(string)
		if ns, ok := m["namespace"].(string); ok {
			n = ns + "/" + n
		}
		out = append(out, n)
	}
	return out
}

func TestNodeAndPodMetrics(t *testing.T) {
	f := newFixture(t)
	code, list := f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1/nodes")
	require.Equal(t, 200, code, list)
	assert.Equal(t, "NodeMetricsList", list["kind"])
	assert.Equal(t, []string{"node-1"}, names(t, list), "a node whose kubelet does not answer has no metrics")

	code, node := f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1/nodes/node-1")
	require.Equal(t, 200, code)
	assert.Equal(t, "NodeMetrics", node["kind"])
	assert.Equal(t, "metrics.k8s.io/v1beta1", node["apiVersion"])
	assert.Equal(t, map[string]any{"cpu": "350m", "memory": "512Mi"}, node["usage"])
	assert.Equal(t, "15s", node["window"])
	assert.Equal(t, "2026-01-01T00:00:00Z", node["timestamp"])
	assert.Equal(t, map[string]any{"zone": "0"}, node["metadata"].(map[string]any)["labels"])

	code, st := f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1/nodes/node-2")
	assert.Equal(t, 404, code)
	assert.Equal(t, `nodemetrics.metrics.k8s.io "node-2" not found`, st["message"])

	_, list = f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1/pods")
	assert.Equal(t, []string{"default/db-1", "default/web-1", "kube-system/sys-1"}, names(t, list))
	_, list = f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dweb")
	assert.Equal(t, []string{"default/web-1"}, names(t, list))
	code, pod := f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-1")
	require.Equal(t, 200, code)
	assert.Equal(t, "PodMetrics", pod["kind"])
	assert.Equal(t, []any{map[string]any{"name": "c", "usage": map[string]any{"cpu": "250m", "memory": "64Mi"}}}, pod["containers"])
	code, st = f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope")
	assert.Equal(t, 404, code)
	assert.Equal(t, `podmetrics.metrics.k8s.io "default/nope" not found`, st["message"])

	code, st = f.get(t, admin, "DELETE", "/apis/metrics.k8s.io/v1beta1/nodes/node-1")
	assert.Equal(t, 405, code)
	assert.Equal(t, "MethodNotAllowed", st["reason"])

	// Discovery: get and list of nodes (cluster) and pods (namespaced).
	_, rl := f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1")
	assert.Equal(t, "metrics.k8s.io/v1beta1", rl["groupVersion"])
	assert.Len(t, rl["resources"], 2)
	_, groups := f.get(t, admin, "GET", "/apis")
	assert.Equal(t, "APIGroupList", groups["kind"])
}

// The points are reused until they are older than the resolution on the
// server's clock.
func TestScrapesOncePerResolution(t *testing.T) {
	f := newFixture(t)
	f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1/nodes")
	first := f.kubelets.scrapes
	assert.Equal(t, 2, first, "one request per node")
	f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1/pods")
	f.env.Clock.Step(14 * time.Second)
	f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1/pods")
	assert.Equal(t, first, f.kubelets.scrapes)
	f.env.Clock.Step(time.Second)
	f.get(t, admin, "GET", "/apis/metrics.k8s.io/v1beta1/pods")
	assert.Equal(t, 2*first, f.kubelets.scrapes)
}

// The user the aggregator names must be allowed by the API server's
// authorizer (asked with a SubjectAccessReview).
func TestDelegatedAuthorization(t *testing.T) {
	f := newFixture(t)
	code, st := f.get(t, &authn.UserInfo{Name: "bob", Groups: []string{"system:authenticated"}}, "GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods")
	assert.Equal(t, 403, code)
	assert.Equal(t, `pods.metrics.k8s.io is forbidden: User "bob" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "default"`, st["message"])
}
