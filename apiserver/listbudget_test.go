package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

// gatedStore holds lists of ConfigMaps made by one user (by) in the store
// until the test lets them go: a list in flight, at a point the test
// chooses, without timing. Each held list is announced on entered.
type gatedStore struct {
	store.Interface
	by      string
	once    bool // hold only the first such list
	entered chan struct{}
	release chan struct{}
	// releaseAll closes release once (budgetServer sets it).
	releaseAll func()

	mu     sync.Mutex
	held   int
	after  atomic.Int64 // lists under the gate's prefix after a held one ended
	passed bool
}

func (g *gatedStore) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	if strings.Contains(prefix, "/configmaps/") {
		u, _ := authn.UserFrom(ctx)
		g.mu.Lock()
		hold := u != nil && u.Name == g.by && !(g.once && g.held > 0)
		if hold {
			g.held++
		}
		passed := g.passed
		g.mu.Unlock()
		if passed {
			g.after.Add(1)
		}
		if hold {
			g.entered <- struct{}{}
			select {
			case <-g.release:
			case <-ctx.Done():
			}
			g.mu.Lock()
			g.passed = true
			g.mu.Unlock()
			// The held read itself answers, as a read already under way
			// when the client went would.
			return g.Interface.List(context.WithoutCancel(ctx), prefix, opts)
		}
	}
	return g.Interface.List(ctx, prefix, opts)
}

func budgetServer(t *testing.T, gate *gatedStore, budget int64) (*apiserver.Server, *httptest.Server) {
	t.Helper()
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	gate.Interface = st
	srv, err := apiserver.New(apiserver.Config{
		Storage: gate, Clock: clock.NewFake(apiservertest.Start), Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin(),
		Authenticator: authn.NewTokenAuthenticator(map[string]authn.UserInfo{
			"admin-token": {Name: "admin", Groups: []string{"system:masters"}},
			"alice-token": {Name: "alice", Groups: []string{"dev"}},
			"node-token":  {Name: "system:node:n1", Groups: []string{"system:nodes"}},
		}),
		AuthorizationMode: "AlwaysAllow", ListMemoryBudget: budget,
	})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(context.Background()))
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	// A test that fails with a list held must still let it go (before
	// Close, which waits for it: cleanups run last first).
	var releaseOnce sync.Once
	gate.releaseAll = func() { releaseOnce.Do(func() { close(gate.release) }) }
	t.Cleanup(gate.releaseAll)
	return srv, hs
}

// get makes a GET over real HTTP as the token's user.
func get(ctx context.Context, t *testing.T, hs *httptest.Server, token, path string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hs.Client().Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var body []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		body = append(body, buf[:n]...)
		if err != nil {
			break
		}
	}
	return resp, body, nil
}

func fillConfigMaps(t *testing.T, srv *apiserver.Server, ns string, n, size int) {
	t.Helper()
	ctx := context.Background()
	client := srv.LoopbackHandler()
	for _, path := range []string{"/api/v1/namespaces"} {
		code, _, body := call(t, client, "", "POST", path, `{"metadata":{"name":"`+ns+`"}}`)
		require.Equal(t, 201, code, body)
	}
	for i := range n {
		body := fmt.Sprintf(`{"metadata":{"name":"cm-%03d","labels":{"last":"%t"}},"data":{"v":%q}}`, i, i == n-1, strings.Repeat("x", size))
		code, _, out := call(t, client, "", "POST", "/api/v1/namespaces/"+ns+"/configmaps", body)
		require.Equal(t, 201, code, out)
	}
	_ = ctx
}

// A storm of user lists is refused with 429 beyond the list budget, while
// a kubelet's list and the API server's own loopback are still served;
// once the lists in flight are done the budget is free again.
func TestListStormIsRefusedBeyondTheBudget(t *testing.T) {
	gate := &gatedStore{by: "alice", once: true, entered: make(chan struct{}, 1), release: make(chan struct{})}
	// 20 objects of 10 KB: about 200 KB stored, charged 600 KB; the
	// workloads' share of 1 MiB takes one such list, not two.
	srv, hs := budgetServer(t, gate, 1<<20)
	fillConfigMaps(t, srv, "storm", 20, 10_000)
	ctx := context.Background()
	const path = "/api/v1/namespaces/storm/configmaps"
	resp, _, err := get(ctx, t, hs, "admin-token", path) // the size is learned
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)

	first := make(chan int, 1)
	go func() {
		resp, _, err := get(ctx, t, hs, "alice-token", path)
		if err != nil {
			first <- 0
			return
		}
		first <- resp.StatusCode
	}()
	<-gate.entered // alice's first list holds its share now

	resp, body, err := get(ctx, t, hs, "alice-token", path)
	require.NoError(t, err)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "%s", body)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	var st metav1.Status
	require.NoError(t, json.Unmarshal(body, &st))
	assert.Equal(t, metav1.StatusReasonTooManyRequests, st.Reason)
	assert.Equal(t, "Too many requests, please try again later.", st.Message)
	resp, _, err = get(ctx, t, hs, "admin-token", path)
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "system:masters is a user here, not exempt")

	// The kubelet is a component: its share is still there.
	resp, body, err = get(ctx, t, hs, "node-token", path)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, "%s", body)
	var list struct{ Items []json.RawMessage }
	require.NoError(t, json.Unmarshal(body, &list))
	assert.Len(t, list.Items, 20)
	// So is the API server's own loopback (exempt).
	code, _, out := call(t, srv.LoopbackHandler(), "", "GET", path, "")
	assert.Equal(t, 200, code, out)

	gate.releaseAll()
	assert.Equal(t, 200, <-first)
	resp, _, err = get(ctx, t, hs, "alice-token", path)
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode, "the budget is free again")
	stats := srv.ListBudget().Stats()
	assert.Equal(t, int64(2), stats.Refused)
	assert.Equal(t, int64(0), stats.InUse)
}

// The components' lists wait for room instead of being refused: a
// kubelet's second list, which the budget cannot take while its first is
// held, waits and is served once the first is done. When kubesim serve
// starts, every informer of every component lists at once, each charged
// the budget's UnknownCharge; refused, each retried and logged a warning.
func TestComponentsListsWaitForRoom(t *testing.T) {
	gate := &gatedStore{by: "system:node:n1", once: true, entered: make(chan struct{}, 1), release: make(chan struct{})}
	srv, hs := budgetServer(t, gate, 1<<20)
	fillConfigMaps(t, srv, "boot", 20, 10_000)
	ctx := context.Background()
	const path = "/api/v1/namespaces/boot/configmaps"
	resp, _, err := get(ctx, t, hs, "admin-token", path) // the size is learned
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)

	first := make(chan int, 2)
	list := func() {
		resp, _, err := get(ctx, t, hs, "node-token", path)
		if err != nil {
			first <- 0
			return
		}
		first <- resp.StatusCode
	}
	go list()
	<-gate.entered // the first holds 600 KB of the 1 MiB
	go list()
	require.Eventually(t, func() bool { return srv.ListBudget().Stats().Waiting == 1 }, time.Minute, time.Millisecond,
		"the second list waits for room")
	gate.releaseAll()
	assert.Equal(t, 200, <-first)
	assert.Equal(t, 200, <-first)
	stats := srv.ListBudget().Stats()
	assert.Equal(t, int64(0), stats.Refused)
	assert.Equal(t, int64(0), stats.InUse)
}

// A list whose client has gone stops: the registry reads the store no
// more once the request's context has ended. The list (a selector that
// only the last of 30 objects matches, one object a page) needs a store
// read per object; the first is held until the client hangs up.
func TestListStopsWhenTheClientGoes(t *testing.T) {
	gate := &gatedStore{by: "alice", once: true, entered: make(chan struct{}, 1), release: make(chan struct{})}
	srv, hs := budgetServer(t, gate, 0)
	fillConfigMaps(t, srv, "gone", 30, 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := get(ctx, t, hs, "alice-token", "/api/v1/namespaces/gone/configmaps?labelSelector=last%3Dtrue&limit=1")
		done <- err
	}()
	<-gate.entered
	cancel() // the client hangs up while its list is being read
	require.Error(t, <-done)
	// The held read ends when the server sees the connection go; wait for
	// the request to finish (the budget's charge is released with it).
	require.Eventually(t, func() bool {
		gate.mu.Lock()
		defer gate.mu.Unlock()
		return gate.passed && srv.ListBudget().Stats().InUse == 0
	}, 30*time.Second, 10*time.Millisecond)
	assert.Equal(t, int64(0), gate.after.Load(), "no store read after the client went")
}
