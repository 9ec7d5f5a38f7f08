package rbacregistry_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/rbacregistry"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

// countingStorage counts the lists that reach the store.
type countingStorage struct {
	store.Interface
	lists *atomic.Int64
}

func (c countingStorage) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	c.lists.Add(1)
	return c.Interface.List(ctx, prefix, opts)
}

// rbacStores serves the four RBAC resources over one bolt store, through
// the cache's hook, and counts the store's lists.
func rbacStores(t *testing.T) (*rbacregistry.Cache, map[string]*registry.Store, *atomic.Int64) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	stores := map[string]*registry.Store{}
	cache := rbacregistry.NewCache(func(group, version, resource string) (*registry.Store, bool) {
		s, ok := stores[resource]
		return s, ok
	})
	lists := &atomic.Int64{}
	ids := registry.NewIDs(rand.NewChaCha8([32]byte{2}))
	for _, r := range kinds.Builtin() {
		if !rbacregistry.IsRBACResource(r.Group, r.Name) {
			continue
		}
		s, err := registry.NewStore(registry.Config{Resource: r, Storage: cache.Decorate(countingStorage{st, lists}),
			Clock: clock.NewFake(apiservertest.Start), IDs: ids})
		require.NoError(t, err)
		stores[r.Name] = s
	}
	require.Len(t, stores, 4)
	return cache, stores, lists
}

func TestCacheReloadsOnlyAfterWrites(t *testing.T) {
	ctx := context.Background()
	cache, stores, lists := rbacStores(t)
	_, err := cache.GetClusterRole(ctx, "x")
	assert.Equal(t, `clusterrole.rbac.authorization.k8s.io "x" not found`, err.Error(), "the lister's wording")
	assert.True(t, api.IsNotFound(err))
	_, err = cache.GetRole(ctx, "default", "x")
	assert.Equal(t, `role.rbac.authorization.k8s.io "x" not found`, err.Error())
	loaded := lists.Load()
	assert.Equal(t, int64(4), loaded, "one list per resource")

	for range 10 {
		_, _ = cache.ListClusterRoleBindings(ctx)
		_, _ = cache.GetClusterRole(ctx, "x")
	}
	assert.Equal(t, loaded, lists.Load(), "no write, no list")

	_, err = stores["clusterroles"].Create(ctx, "", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "x"},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}}, registry.CreateOptions{})
	require.NoError(t, err)
	_, err = stores["rolebindings"].Create(ctx, "default", &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "alice"}}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "x"}}, registry.CreateOptions{})
	require.NoError(t, err)
	cr, err := cache.GetClusterRole(ctx, "x")
	require.NoError(t, err)
	assert.Equal(t, "x", cr.Name)
	assert.Equal(t, loaded+4, lists.Load(), "one reload after the writes")

	// The authorizer over the cache sees the binding.
	a := &authz.RBAC{Source: cache}
	d, _, err := a.Authorize(ctx, authz.Attributes{User: userAlice(), Verb: "get", ResourceRequest: true, Resource: "pods", Namespace: "default", Name: "p"})
	require.NoError(t, err)
	assert.Equal(t, authz.DecisionAllow, d)

	_, err = stores["rolebindings"].Delete(ctx, "default", "b", nil, false)
	require.NoError(t, err)
	d, _, _ = a.Authorize(ctx, authz.Attributes{User: userAlice(), Verb: "get", ResourceRequest: true, Resource: "pods", Namespace: "default", Name: "p"})
	assert.Equal(t, authz.DecisionNoOpinion, d, "a deleted binding grants nothing")
}

func userAlice() *authn.UserInfo {
	return &authn.UserInfo{Name: "alice", Groups: []string{"dev", "system:authenticated"}}
}

// TestCacheConcurrentReadersAndWriters: under -race, readers during
// writes; once the writes returned, every role is seen.
func TestCacheConcurrentReadersAndWriters(t *testing.T) {
	ctx := context.Background()
	cache, stores, _ := rbacStores(t)
	done := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-done:
					return
				default:
					_, _ = cache.GetClusterRole(ctx, "r0")
				}
			}
		}()
	}
	for i := range 20 {
		_, err := stores["clusterroles"].Create(ctx, "", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("r%d", i)}}, registry.CreateOptions{})
		require.NoError(t, err)
	}
	close(done)
	readers.Wait()
	for i := range 20 {
		_, err := cache.GetClusterRole(ctx, fmt.Sprintf("r%d", i))
		require.NoError(t, err)
	}
}
