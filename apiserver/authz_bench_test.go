package apiserver_test

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/nodeauthz"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// authzServer is benchServer with a token for "bench" (no group beyond
// system:authenticated): under RBAC it may create pods in default
// through a RoleBinding to the aggregated edit role, so every create walks
// the bootstrap ClusterRoleBindings and the namespace's RoleBindings.
func authzServer(b *testing.B, mode string) (*apiserver.Server, *httptest.Server, *http.Client) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(b.TempDir(), boltstore.FileName)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clock.Real{}, Rand: rand.Reader, Resources: kinds.Builtin(),
		Authenticator:     authn.NewTokenAuthenticator(map[string]authn.UserInfo{"bench-token": {Name: "bench"}}),
		AuthorizationMode: mode})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := srv.Bootstrap(ctx); err != nil {
		b.Fatal(err)
	}
	if rbs, ok := srv.Store(api.RBACGroupName, "v1", "rolebindings"); ok {
		_, err := rbs.Create(ctx, "default", &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: "default"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: api.RBACGroupName, Name: "bench"}},
			RoleRef:  rbacv1.RoleRef{APIGroup: api.RBACGroupName, Kind: "ClusterRole", Name: "edit"}}, registry.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
	}
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.EnableHTTP2 = false
	ts.StartTLS()
	b.Cleanup(ts.Close)
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 64}
	return srv, ts, &http.Client{Transport: tr}
}

// BenchmarkCreateHTTPS8ClientsAuthz measures durable pod creates/s over
// HTTPS from 8 keep-alive clients authenticated with a token, with
// authorization off (AlwaysAllow) and on (Node,RBAC, the default).
func BenchmarkCreateHTTPS8ClientsAuthz(b *testing.B) {
	for _, mode := range []string{authz.ModeAlwaysAllow, "Node,RBAC"} {
		b.Run(strings.ReplaceAll(mode, ",", "+"), func(b *testing.B) {
			_, ts, c := authzServer(b, mode)
			url := ts.URL + "/api/v1/namespaces/default/pods"
			var next atomic.Int64
			lat := make([][]time.Duration, 8)
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for w := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
						req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(podJSON(fmt.Sprintf("p%d", i)))))
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("Authorization", "Bearer bench-token")
						t0 := time.Now()
						resp, err := c.Do(req)
						if err != nil {
							b.Error(err)
							return
						}
						resp.Body.Close()
						if resp.StatusCode != http.StatusCreated {
							b.Errorf("create: %d", resp.StatusCode)
							return
						}
						lat[w] = append(lat[w], time.Since(t0))
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			all := slices.Concat(lat...)
			slices.Sort(all)
			if len(all) > 0 {
				b.ReportMetric(float64(len(all))/elapsed.Seconds(), "creates/s")
				b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
			}
		})
	}
}

// BenchmarkAuthorize is the authorizer's cost per request, with the
// bootstrap policy (about 40 ClusterRoleBindings) in the watch-fed cache:
// a user allowed by a RoleBinding, a controller's service account allowed
// by its ClusterRoleBinding, a kubelet (Node authorizer), a member of
// system:masters, and a refusal (every rule read).
func BenchmarkAuthorize(b *testing.B) {
	srv, _, _ := authzServer(b, "Node,RBAC")
	a := srv.Authorizer()
	res := func(u *authn.UserInfo, verb, group, resource, sub, ns string) authz.Attributes {
		return authz.Attributes{User: u, Verb: verb, ResourceRequest: true, APIGroup: group, APIVersion: "v1", Resource: resource, Subresource: sub, Namespace: ns}
	}
	sa := &authn.UserInfo{Name: "system:serviceaccount:kube-system:replicaset-controller",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", authn.AllAuthenticated}}
	node := nodeauthz.NodeUser("node-1")
	node.Name = "system:node:node-1"
	for _, c := range []struct {
		name  string
		attrs authz.Attributes
		allow bool
	}{
		{"rolebinding-edit", res(&authn.UserInfo{Name: "bench", Groups: []string{authn.AllAuthenticated}}, "create", "", "pods", "", "default"), true},
		{"controller-sa", res(sa, "create", "", "pods", "", "default"), true},
		{"kubelet-node", func() authz.Attributes {
			at := res(node, "update", "", "pods", "status", "default")
			at.Name = "web"
			return at
		}(), true},
		{"system-masters", res(&authn.UserInfo{Name: "admin", Groups: []string{"system:masters", authn.AllAuthenticated}}, "delete", "", "nodes", "", ""), true},
		{"refused", res(&authn.UserInfo{Name: "nobody", Groups: []string{authn.AllAuthenticated}}, "list", "", "secrets", "", "default"), false},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				d, _, _ := a.Authorize(ctx, c.attrs)
				if (d == authz.DecisionAllow) != c.allow {
					b.Fatalf("decision %v", d)
				}
			}
		})
	}
}
