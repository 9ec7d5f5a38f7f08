package rbacregistry

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/store"
)

// The four resources of rbac.authorization.k8s.io/v1 the cache reads.
const (
	Roles               = "roles"
	ClusterRoles        = "clusterroles"
	RoleBindings        = "rolebindings"
	ClusterRoleBindings = "clusterrolebindings"
)

// Lookup finds the storage of a served resource (apiserver.Server.Store).
type Lookup func(group, version, resource string) (*registry.Store, bool)

// Cache is an authz.RuleSource over the API server's own storage, decoded
// once per change rather than once per request.
type Cache struct {
	lookup Lookup
	// generation moves on every write to a role or binding; loaded is
	// the generation the snapshot was read at.
	generation atomic.Int64
	// snap is read without a lock on every authorization; mu makes one
	// request reload while the others wait for its result.
	snap atomic.Pointer[snapshot]
	mu   sync.Mutex
}

// snapshot is one reading of the four resources. It is never changed
// once built, so readers share it without a lock.
type snapshot struct {
	gen          int64                   // the generation it was read at
	roles        map[string]*rbacv1.Role // namespace/name
	clusterRoles map[string]*rbacv1.ClusterRole
	rbs          map[string][]*rbacv1.RoleBinding // by namespace
	crbs         []*rbacv1.ClusterRoleBinding
}

// NewCache returns a cache reading through lookup; its first use loads.
func NewCache(lookup Lookup) *Cache {
	c := &Cache{lookup: lookup}
	c.generation.Store(1) // loaded is 0: the first read loads
	return c
}

// Decorate wraps a resource's storage so that every successful write
// invalidates the cache (a registry.Resource's DecorateStorage).
func (c *Cache) Decorate(st store.Interface) store.Interface {
	return store.WithWriteHook(st, func([]byte, int64, bool) { c.generation.Add(1) })
}

// IsRBACResource reports whether res is one the cache reads, whose
// storage must be decorated.
func IsRBACResource(group, resource string) bool {
	if group != api.RBACGroupName {
		return false
	}
	switch resource {
	case Roles, ClusterRoles, RoleBindings, ClusterRoleBindings:
		return true
	}
	return false
}

// current returns a snapshot no older than the last write that finished
// before the call.
func (c *Cache) current(ctx context.Context) (*snapshot, error) {
	if s := c.snap.Load(); s != nil && s.gen == c.generation.Load() {
		return s, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := c.generation.Load()
	if s := c.snap.Load(); s != nil && s.gen == gen {
		return s, nil // another request reloaded meanwhile
	}
	// Read the generation before loading: a write during the load moves
	// it past gen, so the next request loads again.
	snap, err := c.load(ctx)
	if err != nil {
		return nil, err
	}
	snap.gen = gen
	c.snap.Store(snap)
	return snap, nil
}

func (c *Cache) load(ctx context.Context) (*snapshot, error) {
	s := &snapshot{roles: map[string]*rbacv1.Role{}, clusterRoles: map[string]*rbacv1.ClusterRole{}, rbs: map[string][]*rbacv1.RoleBinding{}}
	err := c.each(ctx, Roles, func(o api.Object) {
		r := o.(*rbacv1.Role)
		s.roles[r.Namespace+"/"+r.Name] = r
	})
	if err == nil {
		err = c.each(ctx, ClusterRoles, func(o api.Object) {
			r := o.(*rbacv1.ClusterRole)
			s.clusterRoles[r.Name] = r
		})
	}
	if err == nil {
		err = c.each(ctx, RoleBindings, func(o api.Object) {
			b := o.(*rbacv1.RoleBinding)
			s.rbs[b.Namespace] = append(s.rbs[b.Namespace], b)
		})
	}
	if err == nil {
		err = c.each(ctx, ClusterRoleBindings, func(o api.Object) {
			s.crbs = append(s.crbs, o.(*rbacv1.ClusterRoleBinding))
		})
	}
	return s, err
}

// each visits every stored object of resource, page by page.
func (c *Cache) each(ctx context.Context, resource string, visit func(api.Object)) error {
	st, ok := c.lookup(api.RBACGroupName, "v1", resource)
	if !ok {
		return fmt.Errorf("%s.%s is not served", resource, api.RBACGroupName)
	}
	opts := registry.ListOptions{Limit: 500}
	for {
		res, err := st.List(ctx, "", opts)
		if err != nil {
			return err
		}
		for _, o := range res.Items {
			visit(o)
		}
		if res.Continue == "" {
			return nil
		}
		opts.Continue = res.Continue
	}
}

// notFound is the lister's error: singular resource, as
// `clusterrole.rbac.authorization.k8s.io "x" not found`.
func notFound(singular, name string) error {
	return api.NewNotFound(schema.GroupResource{Group: api.RBACGroupName, Resource: singular}, name)
}

// GetRole implements authz.RuleSource.
func (c *Cache) GetRole(ctx context.Context, namespace, name string) (*rbacv1.Role, error) {
	s, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	if r, ok := s.roles[namespace+"/"+name]; ok {
		return r, nil
	}
	return nil, notFound("role", name)
}

// GetClusterRole implements authz.RuleSource.
func (c *Cache) GetClusterRole(ctx context.Context, name string) (*rbacv1.ClusterRole, error) {
	s, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	if r, ok := s.clusterRoles[name]; ok {
		return r, nil
	}
	return nil, notFound("clusterrole", name)
}

// ListRoleBindings implements authz.RuleSource.
func (c *Cache) ListRoleBindings(ctx context.Context, namespace string) ([]*rbacv1.RoleBinding, error) {
	s, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	return s.rbs[namespace], nil
}

// ListClusterRoleBindings implements authz.RuleSource.
func (c *Cache) ListClusterRoleBindings(ctx context.Context) ([]*rbacv1.ClusterRoleBinding, error) {
	s, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	return s.crbs, nil
}

var _ authz.RuleSource = (*Cache)(nil)
