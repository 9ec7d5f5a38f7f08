package aggregator_test

import (
	"bufio"
	"context"
	crand "crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
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
	"k8s.io/apimachinery/pkg/util/intstr"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/aggregator"
	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	availability "github.com/kubesim/kubesim/controllers/apiserviceavailability"
	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/sampleapiserver"
	"github.com/kubesim/kubesim/store/boltstore"
)

// testFrontProxy is the aggregator's identity in these tests, made once.
var testFrontProxy = sync.OnceValue(func() *pki.FrontProxy {
	fp, err := pki.NewFrontProxy(time.Now(), crand.Reader)
	if err != nil {
		panic(err)
	}
	return fp
})

type env struct {
	srv     *aggregator.Server
	client  *client.Client
	clock   *clock.Fake
	net     *podnet.Network
	backend *sampleapiserver.Server
	// seen are the users the backend saw, with the X-Remote-User headers
	// left on the request.
	mu   sync.Mutex
	seen []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	e := &env{clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), net: podnet.New()}
	e.srv = newServer(t, apiserver.Config{Storage: st, Clock: e.clock, Rand: rand.NewChaCha8([32]byte{1}),
		Resources: kinds.Builtin()}, e.net)
	e.client = client.NewInProcess(e.srv.Handler(), "test")
	return e
}

// newServer composes the aggregator in front of an API server, as package
// cluster does, and bootstraps both.
func newServer(t testing.TB, cfg apiserver.Config, n *podnet.Network) *aggregator.Server {
	t.Helper()
	delegate, err := apiserver.New(cfg)
	require.NoError(t, err)
	srv, err := aggregator.NewServer(aggregator.ServerConfig{Delegate: delegate, Dial: n.DialContext,
		ProxyClientCert: &testFrontProxy().ClientCert, Clock: cfg.Clock})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(context.Background()))
	return srv
}

// startBackend runs the sample server behind service wardle/api at pod
// address 10.244.0.5:8443.
func (e *env) startBackend(t testing.TB) {
	t.Helper()
	b, err := sampleapiserver.Start(sampleapiserver.Options{RequestHeaderClientCA: testFrontProxy().CAPool(), OnRequest: func(r *http.Request, u *authn.UserInfo) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.seen = append(e.seen, u.Name+"|"+strings.Join(u.Groups, ",")+"|"+r.Header.Get("X-Remote-User"))
	}})
	require.NoError(t, err)
	t.Cleanup(b.Stop)
	e.backend = b
	e.net.Register("10.244.0.5:8443", b.Addr())
}

func (e *env) createService(t testing.TB, withEndpoints bool) {
	t.Helper()
	ctx := context.Background()
	_, err := e.client.Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wardle"}})
	require.NoError(t, err)
	_, err = e.client.Services().Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "wardle", Name: "api"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "wardle"},
			Ports: []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromInt32(8443)}}}})
	require.NoError(t, err)
	if !withEndpoints {
		return
	}
	_, err = e.client.Endpoints().Create(ctx, &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: "wardle", Name: "api"},
		Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.244.0.5"}}, Ports: []corev1.EndpointPort{{Port: 8443, Protocol: corev1.ProtocolTCP}}}}})
	require.NoError(t, err)
}

func apiServices(c *client.Client) *client.Resource[*apiregistrationv1.APIService] {
	return c.APIServices()
}

func (e *env) createAPIService(t testing.TB, group, version string, gp, vp int32) {
	t.Helper()
	port := int32(443)
	_, err := apiServices(e.client).Create(context.Background(), &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: version + "." + group},
		Spec: apiregistrationv1.APIServiceSpec{Group: group, Version: version, GroupPriorityMinimum: gp, VersionPriority: vp,
			InsecureSkipTLSVerify: true, Service: &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: "api", Port: &port}}})
	require.NoError(t, err)
}

func TestLocalAPIServicesFollowServedGroupVersions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s, err := apiServices(e.client).Get(ctx, "", "v1.apps")
	require.NoError(t, err)
	assert.Nil(t, s.Spec.Service)
	assert.Equal(t, int32(17800), s.Spec.GroupPriorityMinimum)
	assert.Equal(t, "onstart", s.Labels[aggregator.AutoManagedLabel])
	assert.Equal(t, "True", aggregator.AvailableColumn(s))
	_, err = apiServices(e.client).Get(ctx, "", "v1.")
	require.NoError(t, err, "the core group's APIService is v1.")

	// A group-version that stops being served loses its APIService; a
	// new one gets one at once.
	e.srv.Delegate().RemoveResource("coordination.k8s.io", "v1", "leases")
	_, err = apiServices(e.client).Get(ctx, "", "v1.coordination.k8s.io")
	assert.True(t, api.IsNotFound(err), "got %v", err)
	res := kinds.Builtin()
	for _, r := range res {
		if r.Name == "leases" {
			require.NoError(t, e.srv.Delegate().AddResource(r))
		}
	}
	s, err = apiServices(e.client).Get(ctx, "", "v1.coordination.k8s.io")
	require.NoError(t, err)
	assert.Equal(t, "true", s.Labels[aggregator.AutoManagedLabel])
}

func TestProxyAndDiscoveryMerge(t *testing.T) {
	e := newEnv(t)
	e.startBackend(t)
	e.createService(t, true)
	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)
	ctx := context.Background()

	var groups metav1.APIGroupList
	body, err := e.client.RawGet(ctx, "/apis")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(body, &groups))
	var names []string
	for _, g := range groups.Groups {
		names = append(names, g.Name)
	}
	assert.Contains(t, names, sampleapiserver.Group)
	assert.Equal(t, "apiregistration.k8s.io", names[0], "the highest groupPriorityMinimum first")

	// Per-group-version discovery comes from the extension server.
	body, err = e.client.RawGet(ctx, "/apis/wardle.example.com/v1alpha1")
	require.NoError(t, err)
	var rl metav1.APIResourceList
	require.NoError(t, json.Unmarshal(body, &rl), string(body))
	require.NotEmpty(t, rl.APIResources)
	assert.Equal(t, "flunders", rl.APIResources[0].Name)

	// CRUD through the proxy.
	flunders := client.Dynamic(e.client, client.ResourceInfo{Group: sampleapiserver.Group, Version: sampleapiserver.Version, Resource: "flunders", Namespaced: true})
	obj := map[string]any{"apiVersion": "wardle.example.com/v1alpha1", "kind": "Flunder",
		"metadata": map[string]any{"name": "f1", "namespace": "default"}, "spec": map[string]any{"reference": "f0", "referenceType": "Flunder"}}
	data, _ := json.Marshal(obj)
	req := httptest.NewRequest(http.MethodPost, "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", strings.NewReader(string(data)))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	list, err := flunders.List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "f1", api.Meta(list.Items[0]).Name)
}

func TestGroupsAndVersionsOrderedByPriority(t *testing.T) {
	e := newEnv(t)
	e.createService(t, true)
	// Two versions: v1beta1 has the higher versionPriority, so it is
	// preferred although v1 is the newer Kubernetes version; the group
	// outranks apps with groupPriorityMinimum 17900.
	e.createAPIService(t, "zeta.example.com", "v1", 17900, 10)
	e.createAPIService(t, "zeta.example.com", "v1beta1", 17900, 20)
	body, err := e.client.RawGet(context.Background(), "/apis")
	require.NoError(t, err)
	var groups metav1.APIGroupList
	require.NoError(t, json.Unmarshal(body, &groups))
	var names []string
	for _, g := range groups.Groups {
		names = append(names, g.Name)
	}
	require.GreaterOrEqual(t, len(names), 3)
	assert.Equal(t, []string{"apiregistration.k8s.io", "zeta.example.com", "apps"}, names[:3])
	assert.Equal(t, "v1beta1", groups.Groups[1].PreferredVersion.Version)
	assert.Equal(t, []string{"v1beta1", "v1"}, []string{groups.Groups[1].Versions[0].Version, groups.Groups[1].Versions[1].Version})

	// /apis/zeta.example.com is answered by the aggregator too.
	body, err = e.client.RawGet(context.Background(), "/apis/zeta.example.com")
	require.NoError(t, err)
	var g metav1.APIGroup
	require.NoError(t, json.Unmarshal(body, &g))
	assert.Equal(t, "APIGroup", g.Kind)
	assert.Equal(t, "v1beta1", g.PreferredVersion.Version)
}

func TestSortGroupsTable(t *testing.T) {
	tests := []struct {
		name  string
		prio  map[string]int32
		vers  map[string][]aggregator.GroupVersion
		want  []string
		wantV string
	}{
		{"priority first", map[string]int32{"a.io": 100, "b.io": 200},
			map[string][]aggregator.GroupVersion{"a.io": {{Version: "v1", Priority: 1}}, "b.io": {{Version: "v1", Priority: 1}}},
			[]string{"b.io", "a.io"}, "v1"},
		{"then name", map[string]int32{"b.io": 100, "a.io": 100},
			map[string][]aggregator.GroupVersion{"a.io": {{Version: "v1", Priority: 1}}, "b.io": {{Version: "v1", Priority: 1}}},
			[]string{"a.io", "b.io"}, "v1"},
		{"equal version priorities: Kubernetes order", map[string]int32{"a.io": 1},
			map[string][]aggregator.GroupVersion{"a.io": {{Version: "v1alpha1", Priority: 5}, {Version: "v2", Priority: 5}, {Version: "v1", Priority: 5}}},
			[]string{"a.io"}, "v2"},
		{"version priority beats order", map[string]int32{"a.io": 1},
			map[string][]aggregator.GroupVersion{"a.io": {{Version: "v2", Priority: 5}, {Version: "v1alpha1", Priority: 9}}},
			[]string{"a.io"}, "v1alpha1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := aggregator.SortGroups(tt.prio, tt.vers)
			var names []string
			for _, g := range got {
				names = append(names, g.Name)
			}
			assert.Equal(t, tt.want, names)
			assert.Equal(t, tt.wantV, got[0].PreferredVersion.Version)
		})
	}
}

func TestClientSentRemoteUserNeverReachesTheBackend(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	defer st.Close()
	n := podnet.New()
	// A server with authentication: alice's token.
	auth := authn.AuthenticatorFunc(func(r *http.Request) (*authn.UserInfo, bool, error) {
		if r.Header.Get("Authorization") == "Bearer alice-token" {
			return &authn.UserInfo{Name: "alice", Groups: []string{"dev"}}, true, nil
		}
		return nil, false, nil
	})
	srv := newServer(t, apiserver.Config{Storage: st, Clock: clock.NewFake(time.Now()), Rand: rand.NewChaCha8([32]byte{2}),
		Resources: kinds.Builtin(), Authenticator: auth}, n)
	e := &env{srv: srv, client: client.NewInProcess(srv.LoopbackHandler(), "test"), net: n}
	e.startBackend(t)
	e.createService(t, true)
	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)

	req := httptest.NewRequest(http.MethodGet, "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", nil)
	req.Header.Set("Authorization", "Bearer alice-token")
	req.Header.Set("X-Remote-User", "system:admin")
	req.Header.Add("X-Remote-Group", "system:masters")
	req.Header.Set("X-Remote-Extra-Scopes", "everything")
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	e.mu.Lock()
	defer e.mu.Unlock()
	require.Len(t, e.seen, 1)
	assert.Equal(t, "alice|dev,system:authenticated|", e.seen[0], "the backend believed only the aggregator")

	// And the backend refuses anyone who is not the front proxy.
	h := http.Header{}
	h.Set("X-Remote-User", "system:admin")
	u, ok, _ := sampleapiserver.RequestHeaderAuthenticator(testFrontProxy().CAPool(), nil).AuthenticateRequest(&http.Request{Header: h})
	assert.False(t, ok)
	assert.Nil(t, u)
}

// An impersonating request reaches the extension server as the user it
// impersonates: impersonation runs before the aggregator sets
// X-Remote-User, and its headers do not travel on.
func TestBackendSeesTheImpersonatedUser(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	defer st.Close()
	n := podnet.New()
	auth := authn.AuthenticatorFunc(func(r *http.Request) (*authn.UserInfo, bool, error) {
		if r.Header.Get("Authorization") == "Bearer alice-token" {
			return &authn.UserInfo{Name: "alice", Groups: []string{"dev"}}, true, nil
		}
		return nil, false, nil
	})
	// AlwaysAllow: alice may impersonate anyone.
	srv := newServer(t, apiserver.Config{Storage: st, Clock: clock.NewFake(time.Now()), Rand: rand.NewChaCha8([32]byte{3}),
		Resources: kinds.Builtin(), Authenticator: auth}, n)
	var impersonateHeaders []string
	e := &env{srv: srv, client: client.NewInProcess(srv.LoopbackHandler(), "test"), net: n}
	b, err := sampleapiserver.Start(sampleapiserver.Options{RequestHeaderClientCA: testFrontProxy().CAPool(), OnRequest: func(r *http.Request, u *authn.UserInfo) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.seen = append(e.seen, u.Name+"|"+strings.Join(u.Groups, ","))
		for k := range r.Header {
			if strings.HasPrefix(k, "Impersonate-") {
				impersonateHeaders = append(impersonateHeaders, k)
			}
		}
	}})
	require.NoError(t, err)
	t.Cleanup(b.Stop)
	n.Register("10.244.0.5:8443", b.Addr())
	e.createService(t, true)
	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)

	req := httptest.NewRequest(http.MethodGet, "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", nil)
	req.Header.Set("Authorization", "Bearer alice-token")
	req.Header.Set("Impersonate-User", "bob")
	req.Header.Add("Impersonate-Group", "qa")
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	e.mu.Lock()
	defer e.mu.Unlock()
	assert.Equal(t, []string{"bob|qa,system:authenticated"}, e.seen)
	assert.Empty(t, impersonateHeaders)
}

func TestWatchStreamsThroughTheProxy(t *testing.T) {
	e := newEnv(t)
	e.startBackend(t)
	e.createService(t, true)
	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)
	hs := httptest.NewServer(e.srv.Handler())
	defer hs.Close()

	resp, err := http.Get(hs.URL + "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=1")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// The event arrives while the watch is open: the proxy flushed it.
	body := `{"apiVersion":"wardle.example.com/v1alpha1","kind":"Flunder","metadata":{"name":"w1"}}`
	post, err := http.Post(hs.URL+"/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, post.Body)
	post.Body.Close()
	require.Equal(t, http.StatusCreated, post.StatusCode)
	select {
	case l := <-lines:
		assert.Contains(t, l, `"type":"ADDED"`)
		assert.Contains(t, l, `"name":"w1"`)
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event through the proxy")
	}
}

// A watch-list through an APIService streams as the backend sends it: the
// objects, the BOOKMARK that ends them, then the changes, each as it comes.
func TestWatchListThroughTheProxy(t *testing.T) {
	e := newEnv(t)
	e.startBackend(t)
	e.createService(t, true)
	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)
	hs := httptest.NewServer(e.srv.Handler())
	defer hs.Close()
	const flunders = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders"
	post := func(name string) {
		t.Helper()
		body := `{"apiVersion":"wardle.example.com/v1alpha1","kind":"Flunder","metadata":{"name":"` + name + `"}}`
		res, err := http.Post(hs.URL+flunders, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		require.Equal(t, http.StatusCreated, res.StatusCode)
	}
	post("f1")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", hs.URL+flunders+"?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	events := make(chan map[string]any, 8)
	go func() {
		defer close(events)
		dec := json.NewDecoder(resp.Body)
		for {
			var ev map[string]any
			if dec.Decode(&ev) != nil {
				return
			}
			events <- ev
		}
	}()
	next := func() map[string]any {
		t.Helper()
		select {
		case ev, ok := <-events:
			require.True(t, ok, "the watch ended")
			return ev
		case <-time.After(30 * time.Second):
			t.Fatal("no watch event through the proxy")
		}
		return nil
	}
	ev := next()
	assert.Equal(t, "ADDED", ev["type"])
	assert.Equal(t, "f1", ev["object"].(map[string]any)["metadata"].(map[string]any)["name"])
	ev = next()
	require.Equal(t, "BOOKMARK", ev["type"])
	obj := ev["object"].(map[string]any)
	assert.Equal(t, "Flunder", obj["kind"])
	assert.Equal(t, map[string]any{"k8s.io/initial-events-end": "true"}, obj["metadata"].(map[string]any)["annotations"])
	// The bookmark arrived before any change: the proxy flushed it.
	post("f2")
	ev = next()
	assert.Equal(t, "ADDED", ev["type"])
	assert.Equal(t, "f2", ev["object"].(map[string]any)["metadata"].(map[string]any)["name"])
}

func TestBackendDownIsServiceUnavailable(t *testing.T) {
	e := newEnv(t)
	e.createService(t, true) // endpoints, but nothing listens at 10.244.0.5
	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)
	_, err := client.Dynamic(e.client, client.ResourceInfo{Group: sampleapiserver.Group, Version: sampleapiserver.Version, Resource: "flunders", Namespaced: true}).
		List(context.Background(), "default", client.ListOptions{})
	require.Error(t, err)
	var se *api.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, int32(http.StatusServiceUnavailable), se.ErrStatus.Code)
	assert.Equal(t, metav1.StatusReasonServiceUnavailable, se.ErrStatus.Reason)
	assert.Contains(t, se.ErrStatus.Message, "the server is currently unable to handle the request: error trying to reach service wardle/api")
	assert.Contains(t, se.ErrStatus.Message, "connection refused")
}

// runAvailability drives the availability controller in step mode.
func runAvailability(t *testing.T, e *env) {
	t.Helper()
	ctrl, err := availability.New(availability.Config{Client: e.client, Clock: e.clock, Mode: runmode.Step, Check: func(ctx context.Context, s *apiregistrationv1.APIService) availability.Availability {
		return availability.Availability(e.srv.Aggregator().CheckAvailability(ctx, s))
	}})
	require.NoError(t, err)
	ctx := context.Background()
	c := ctrl.Controllers()[0]
	require.NoError(t, c.Sync(ctx))
	for range 50 {
		info, ok := c.Step(ctx)
		if !ok {
			return
		}
		require.NoError(t, info.Err)
	}
}

func TestAvailability(t *testing.T) {
	tests := []struct {
		name                 string
		service, endpoints   bool
		backend              bool
		wantColumn, wantText string
	}{
		{"missing service", false, false, false, "False (ServiceNotFound)", `service/api in "wardle" is not present`},
		{"no endpoints object", true, false, false, "False (EndpointsNotFound)", `cannot find endpoints for service/api in "wardle"`},
		{"backend down", true, true, false, "False (FailedDiscoveryCheck)", "failing or missing response from https://10.244.0.5:8443/apis/wardle.example.com/v1alpha1"},
		{"backend up", true, true, true, "True", "all checks passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if tt.backend {
				e.startBackend(t)
			}
			if tt.service {
				e.createService(t, tt.endpoints)
			} else {
				_, err := e.client.Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wardle"}})
				require.NoError(t, err)
			}
			e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)
			runAvailability(t, e)
			s, err := apiServices(e.client).Get(context.Background(), "", "v1alpha1.wardle.example.com")
			require.NoError(t, err)
			assert.Equal(t, tt.wantColumn, aggregator.AvailableColumn(s))
			assert.Contains(t, api.GetAPIServiceConditionByType(s, apiregistrationv1.Available).Message, tt.wantText)
		})
	}
}

func TestMissingEndpointAddresses(t *testing.T) {
	e := newEnv(t)
	e.createService(t, false)
	_, err := e.client.Endpoints().Create(context.Background(), &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: "wardle", Name: "api"},
		Subsets: []corev1.EndpointSubset{{NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.244.0.5"}}, Ports: []corev1.EndpointPort{{Port: 8443}}}}})
	require.NoError(t, err)
	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)
	runAvailability(t, e)
	s, err := apiServices(e.client).Get(context.Background(), "", "v1alpha1.wardle.example.com")
	require.NoError(t, err)
	assert.Equal(t, "False (MissingEndpoints)", aggregator.AvailableColumn(s))
	assert.Equal(t, `endpoints for service/api in "wardle" have no addresses with port name ""`, api.GetAPIServiceConditionByType(s, apiregistrationv1.Available).Message)
}

// The API server alone serves no APIServices: they come with the
// aggregator composed in front of it, whose routing runs inside the
// delegate's filters (an unauthenticated request is refused before it).
func TestAggregatorIsComposedInFront(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	auth := authn.AuthenticatorFunc(func(r *http.Request) (*authn.UserInfo, bool, error) {
		return &authn.UserInfo{Name: "alice"}, r.Header.Get("Authorization") == "Bearer alice-token", nil
	})
	cfg := apiserver.Config{Storage: st, Clock: clock.NewFake(time.Now()), Rand: rand.NewChaCha8([32]byte{4}),
		Resources: kinds.Builtin(), Authenticator: auth}
	delegate, err := apiserver.New(cfg)
	require.NoError(t, err)
	require.NoError(t, delegate.Bootstrap(context.Background()))
	_, ok := delegate.Store(aggregator.Group, "v1", aggregator.ResourceName)
	assert.False(t, ok, "the API server alone serves no APIServices")

	srv, err := aggregator.NewServer(aggregator.ServerConfig{Delegate: delegate, ProxyClientCert: &testFrontProxy().ClientCert, Clock: cfg.Clock})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(context.Background()))
	_, ok = delegate.Store(aggregator.Group, "v1", aggregator.ResourceName)
	assert.True(t, ok, "the aggregator adds them to its delegate")

	get := func(token string) int {
		req := httptest.NewRequest(http.MethodGet, "/apis/apiregistration.k8s.io/v1/apiservices/v1.apps", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	assert.Equal(t, http.StatusOK, get("alice-token"))
	assert.Equal(t, http.StatusUnauthorized, get(""), "authentication runs before the aggregator")
}

// The extension server believes X-Remote-User only from a TLS peer whose
// client certificate the front-proxy CA issued to an allowed name: not from
// a bearer of any secret, not from another CA, not from another name.
func TestExtensionServerTrustsOnlyTheFrontProxyCertificate(t *testing.T) {
	e := newEnv(t)
	e.startBackend(t)
	get := func(cert *tls.Certificate) int {
		tc := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the test server's certificate is not the point
		if cert != nil {
			tc.Certificates = []tls.Certificate{*cert}
		}
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}, Timeout: 30 * time.Second}
		req, err := http.NewRequest("GET", "https://"+e.backend.Addr()+"/apis/wardle.example.com/v1alpha1/flunders", nil)
		require.NoError(t, err)
		req.Header.Set("X-Remote-User", "system:admin")
		req.Header.Set("X-Remote-Group", "system:masters")
		req.Header.Set("Authorization", "Bearer anything")
		resp, err := c.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusOK, get(&testFrontProxy().ClientCert), "the front proxy")
	assert.Equal(t, http.StatusUnauthorized, get(nil), "no certificate")
	other, err := pki.NewFrontProxy(time.Now(), crand.Reader)
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, get(&other.ClientCert), "another CA's certificate")

	// The right CA, but a name the server does not allow.
	fp := testFrontProxy()
	tlsState := &tls.ConnectionState{PeerCertificates: []*x509.Certificate{fp.ClientCert.Leaf}}
	h := http.Header{}
	h.Set("X-Remote-User", "system:admin")
	_, ok, err := sampleapiserver.RequestHeaderAuthenticator(fp.CAPool(), []string{"aggregator"}).AuthenticateRequest(&http.Request{Header: h.Clone(), TLS: tlsState})
	assert.False(t, ok)
	assert.ErrorContains(t, err, `common name "front-proxy-client" is not allowed`)
	u, ok, err := sampleapiserver.RequestHeaderAuthenticator(fp.CAPool(), []string{pki.FrontProxyClientName}).AuthenticateRequest(&http.Request{Header: h.Clone(), TLS: tlsState})
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "system:admin", u.Name)
}

// A client cannot repoint a group-version the API server serves itself
// (the built-in apps/v1 here) at a Service, nor take the API server's
// label off its APIService; nothing changes.
func TestLocalAPIServicesCannotBeRepointed(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	svc, err := apiServices(e.client).Get(ctx, "", "v1.apps")
	require.NoError(t, err)
	before := svc.ResourceVersion

	port := int32(443)
	svc.Spec.Service = &apiregistrationv1.ServiceReference{Namespace: "evil", Name: "api", Port: &port}
	svc.Spec.InsecureSkipTLSVerify = true
	_, err = apiServices(e.client).Update(ctx, svc)
	require.True(t, api.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "spec.service: Forbidden: v1.apps is served by this API server")

	svc, err = apiServices(e.client).Get(ctx, "", "v1.apps")
	require.NoError(t, err)
	delete(svc.Labels, aggregator.AutoManagedLabel)
	_, err = apiServices(e.client).Update(ctx, svc)
	require.True(t, api.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "the API server manages this APIService")

	got, err := apiServices(e.client).Get(ctx, "", "v1.apps")
	require.NoError(t, err)
	assert.Equal(t, before, got.ResourceVersion, "nothing changed")
	assert.Nil(t, got.Spec.Service)

	// A group nobody serves here may route to a Service, as before.
	e.createService(t, true)
	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)
}

// An extension API server that answers with a redirect: the client never
// gets the redirect (its Location, where a client following it would carry
// its credentials), but kube-apiserver's 502 and words instead. A 3xx with
// no Location (304 Not Modified) is not a redirect and passes.
func TestBackendRedirectIsNotForwarded(t *testing.T) {
	e := newEnv(t)
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/unchanged") {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Set-Cookie", "planted=1")
		http.Redirect(w, r, "https://attacker.example/steal", http.StatusFound)
	}))
	t.Cleanup(backend.Close)
	e.net.Register("10.244.0.5:8443", backend.Listener.Addr().String())
	e.createService(t, true)
	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)

	for _, method := range []string{http.MethodGet, http.MethodPost} {
		rec := httptest.NewRecorder()
		e.srv.Handler().ServeHTTP(rec, httptest.NewRequest(method, "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", nil))
		assert.Equal(t, http.StatusBadGateway, rec.Code, method)
		assert.Equal(t, "the backend attempted to redirect this request, which is not permitted", rec.Body.String(), method)
		assert.Empty(t, rec.Header().Get("Location"), method)
		assert.Empty(t, rec.Header().Get("Set-Cookie"), "none of the backend's headers is kept (%s)", method)
	}
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/apis/wardle.example.com/v1alpha1/unchanged", nil))
	assert.Equal(t, http.StatusNotModified, rec.Code)
}
