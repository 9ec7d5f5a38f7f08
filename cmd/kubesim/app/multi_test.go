package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/store/etcdstore/etcdtest"
)

// fastElection is leader election at test speed: a 2 s lease.
func fastElection(id string) *cluster.LeaderElection {
	return &cluster.LeaderElection{Identity: id, LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 200 * time.Millisecond}
}

// eventually polls cond every 50 ms until it holds or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func leads(s *Server) bool {
	return s.Cluster().Leading(cluster.ControllerManagerLease) && s.Cluster().Leading(cluster.SchedulerLease)
}

// Three API servers over one etcd, sharing one data directory (one CA,
// one admin token, one service account key), each with its own
// kubeconfig; the kubelets run in the third. One server leads the
// controller manager and the scheduler; a write through one is read
// through the others at the same resourceVersion; the leader stops in the
// middle of a Deployment's rollout, another takes over the Leases, and the
// rollout completes.
func TestThreeServersOneEtcdLeaderStopsMidRollout(t *testing.T) {
	e, err := etcdtest.Start()
	require.NoError(t, err)
	defer e.Stop()
	ctx := context.Background()
	dir := t.TempDir()
	start := func(id string, nodes int) *Server {
		s, err := Start(ctx, Options{DataDir: dir, Kubeconfig: filepath.Join(dir, id+".kubeconfig"), Addr: "127.0.0.1:0",
			Nodes: nodes, StageDelay: 10 * time.Millisecond, UnsafeNoFsync: true,
			Etcd: EtcdOptions{Servers: []string{e.URL}}, LeaderElection: fastElection(id)})
		require.NoError(t, err)
		return s
	}
	a := start("a", 0)
	stopped := false
	defer func() {
		if !stopped {
			_ = a.Shutdown(5 * time.Second)
		}
	}()
	eventually(t, 20*time.Second, "a to lead", func() bool { return leads(a) })
	b := start("b", 0)
	defer b.Shutdown(5 * time.Second)
	c := start("c", 2)
	defer c.Shutdown(5 * time.Second)
	assert.False(t, leads(b) || leads(c), "a leads")

	// One cluster: written through b, read through c and a at one resourceVersion.
	code, body := do(t, b, http.MethodPost, "/api/v1/namespaces/default/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shared"},"data":{"k":"v"}}`)
	require.Equal(t, http.StatusCreated, code, body)
	rv := resourceVersion(t, body)
	for _, s := range []*Server{a, c} {
		code, body = do(t, s, http.MethodGet, "/api/v1/namespaces/default/configmaps/shared", "")
		require.Equal(t, http.StatusOK, code, body)
		assert.Equal(t, rv, resourceVersion(t, body))
	}

	// Cluster IPs: b's allocator does not know what c gave; the claims in
	// etcd keep the addresses apart.
	ips := map[string]bool{}
	for i, s := range []*Server{b, c, b, c} {
		code, body := do(t, s, http.MethodPost, "/api/v1/namespaces/default/services", fmt.Sprintf(
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s%d"},"spec":{"ports":[{"port":80}]}}`, i))
		require.Equal(t, http.StatusCreated, code, body)
		var svc struct {
			Spec struct{ ClusterIP string } `json:"spec"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &svc))
		assert.False(t, ips[svc.Spec.ClusterIP], "%s handed out twice", svc.Spec.ClusterIP)
		ips[svc.Spec.ClusterIP] = true
	}

	code, body = do(t, c, http.MethodPost, "/apis/apps/v1/namespaces/default/deployments", `{"apiVersion":"apps/v1","kind":"Deployment",
		"metadata":{"name":"web"},"spec":{"replicas":4,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)
	require.Equal(t, http.StatusCreated, code, body)
	// Mid-rollout: the leader's deployment controller has made the
	// ReplicaSet, the Deployment is not yet available.
	eventually(t, 30*time.Second, "a ReplicaSet", func() bool {
		_, body := do(t, c, http.MethodGet, "/apis/apps/v1/namespaces/default/replicasets", "")
		var l struct{ Items []json.RawMessage }
		require.NoError(t, json.Unmarshal([]byte(body), &l))
		return len(l.Items) > 0
	})
	require.NoError(t, a.Shutdown(5*time.Second))
	stopped = true

	// The two Leases are elected separately: b may win one and c the other.
	eventually(t, 20*time.Second, "b or c to hold each Lease", func() bool {
		for _, lease := range []string{cluster.ControllerManagerLease, cluster.SchedulerLease} {
			if !b.Cluster().Leading(lease) && !c.Cluster().Leading(lease) {
				return false
			}
		}
		return true
	})
	eventually(t, 60*time.Second, "the rollout to complete", func() bool {
		_, body := do(t, b, http.MethodGet, "/apis/apps/v1/namespaces/default/deployments/web", "")
		var d struct {
			Status struct{ UpdatedReplicas, AvailableReplicas int } `json:"status"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &d))
		return d.Status.UpdatedReplicas == 4 && d.Status.AvailableReplicas == 4
	})
	code, body = do(t, c, http.MethodGet, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager", "")
	require.Equal(t, http.StatusOK, code, body)
	assert.NotContains(t, body, `"holderIdentity":"a"`)
	assert.Contains(t, body, `"leaseTransitions":1`)
}

func resourceVersion(t *testing.T, body string) string {
	t.Helper()
	var o struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &o))
	require.NotEmpty(t, o.Metadata.ResourceVersion)
	return o.Metadata.ResourceVersion
}

// etcd lost while a server runs (its process stopped: requests hang, as
// when its machine is cut off): a write fails within the request timeout
// with a 503 or 504 Status, not a hang or a 500; when etcd comes back the
// server serves again without a restart.
func TestEtcdLostWhileRunningAndBack(t *testing.T) {
	e, err := etcdtest.Start()
	require.NoError(t, err)
	defer e.Stop()
	s, err := Start(context.Background(), Options{DataDir: t.TempDir(), Addr: "127.0.0.1:0", APIServerOnly: true,
		Etcd: EtcdOptions{Servers: []string{e.URL}, RequestTimeout: time.Second}})
	require.NoError(t, err)
	defer s.Shutdown(5 * time.Second)
	cm := func(name string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`
	}
	code, body := do(t, s, http.MethodPost, "/api/v1/namespaces/default/configmaps", cm("before"))
	require.Equal(t, http.StatusCreated, code, body)

	require.NoError(t, e.Pause())
	resumed := false
	defer func() {
		if !resumed {
			_ = e.Resume()
		}
	}()
	code, body = do(t, s, http.MethodPost, "/api/v1/namespaces/default/configmaps", cm("during"))
	assert.Equal(t, http.StatusGatewayTimeout, code, body)
	assert.Contains(t, body, `"message":"Timeout: request did not complete within requested timeout - context deadline exceeded","reason":"Timeout"`)
	var st struct {
		Kind, Status, Reason string
		Code                 int
	}
	require.NoError(t, json.Unmarshal([]byte(body), &st), body)
	assert.Equal(t, "Status", st.Kind)
	assert.Equal(t, "Failure", st.Status)
	assert.Equal(t, code, st.Code)
	t.Logf("with etcd away: %d %s", code, body)

	require.NoError(t, e.Resume())
	resumed = true
	eventually(t, 30*time.Second, "writes to succeed again", func() bool {
		code, _ := do(t, s, http.MethodPost, "/api/v1/namespaces/default/configmaps", cm("after"))
		return code == http.StatusCreated || code == http.StatusConflict
	})
	code, body = do(t, s, http.MethodGet, "/api/v1/namespaces/default/configmaps/after", "")
	assert.Equal(t, http.StatusOK, code, body)
}

// Two API servers over one etcd race to update one object from the same
// resourceVersion: etcd's transaction lets exactly one win; the other
// gets kube-apiserver's 409.
func TestTwoServersRaceOnOneObject(t *testing.T) {
	e, err := etcdtest.Start()
	require.NoError(t, err)
	defer e.Stop()
	dir := t.TempDir()
	var servers []*Server
	for _, id := range []string{"a", "b"} {
		s, err := Start(context.Background(), Options{DataDir: dir, Kubeconfig: filepath.Join(dir, id+".kubeconfig"),
			Addr: "127.0.0.1:0", APIServerOnly: true, Etcd: EtcdOptions{Servers: []string{e.URL}}})
		require.NoError(t, err)
		defer s.Shutdown(5 * time.Second)
		servers = append(servers, s)
	}
	code, body := do(t, servers[0], http.MethodPost, "/api/v1/namespaces/default/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"raced"},"data":{"by":"nobody"}}`)
	require.Equal(t, http.StatusCreated, code, body)
	rv := resourceVersion(t, body)
	for round := range 5 {
		codes := make([]int, 2)
		bodies := make([]string, 2)
		done := make(chan int, 2)
		for i, s := range servers {
			go func() {
				codes[i], bodies[i] = do(t, s, http.MethodPut, "/api/v1/namespaces/default/configmaps/raced", fmt.Sprintf(
					`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"raced","resourceVersion":%q},"data":{"by":"%d/%d"}}`, rv, round, i)) // new data each round: an update that changes nothing is a 200 without a write
				done <- i
			}()
		}
		<-done
		<-done
		ok := 0
		for i := range 2 {
			switch codes[i] {
			case http.StatusOK:
				ok++
				rv = resourceVersion(t, bodies[i])
			case http.StatusConflict:
				assert.Contains(t, bodies[i], `Operation cannot be fulfilled on configmaps \"raced\": the object has been modified; please apply your changes to the latest version and try again`)
			default:
				t.Fatalf("round %d: %d %s", round, codes[i], bodies[i])
			}
		}
		require.Equal(t, 1, ok, "round %d: exactly one update wins: %v %v", round, codes, bodies)
	}
}
