package rbacregistry

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
)

// policySource serves the bootstrap policy (aggregated as Bootstrap
// writes it) and one RoleBinding per namespace of the test.
type policySource struct {
	roles []*rbacv1.ClusterRole
	rbs   []*rbacv1.RoleBinding
}

func (p *policySource) GetRole(_ context.Context, _, name string) (*rbacv1.Role, error) {
	return nil, api.NewNotFound(schema.GroupResource{Group: api.RBACGroupName, Resource: "roles"}, name)
}

func (p *policySource) GetClusterRole(_ context.Context, name string) (*rbacv1.ClusterRole, error) {
	for _, r := range p.roles {
		if r.Name == name {
			return r, nil
		}
	}
	return nil, api.NewNotFound(schema.GroupResource{Group: api.RBACGroupName, Resource: "clusterroles"}, name)
}

func (p *policySource) ListRoleBindings(_ context.Context, ns string) ([]*rbacv1.RoleBinding, error) {
	var out []*rbacv1.RoleBinding
	for _, b := range p.rbs {
		if b.Namespace == ns {
			out = append(out, b)
		}
	}
	return out, nil
}

func (p *policySource) ListClusterRoleBindings(context.Context) ([]*rbacv1.ClusterRoleBinding, error) {
	return BootstrapClusterRoleBindings(), nil
}

// The user-facing roles of the Kubernetes docs ("User-facing roles"), as
// aggregated from system:aggregate-to-*: view reads but not secrets, edit
// writes and reads secrets but not roles, admin grants within a
// namespace; and each component's role allows what it does.
func TestBootstrapPolicy(t *testing.T) {
	roles := BootstrapClusterRoles()
	fillAggregated(roles)
	bind := func(ns, user, role string) *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: api.RBACGroupName, Name: user}},
			RoleRef:  rbacv1.RoleRef{APIGroup: api.RBACGroupName, Kind: "ClusterRole", Name: role}}
	}
	a := &authz.RBAC{Source: &policySource{roles: roles, rbs: []*rbacv1.RoleBinding{
		bind("dev", "viewer", "view"), bind("dev", "editor", "edit"), bind("dev", "owner", "admin")}}}
	u := func(name string, groups ...string) *authn.UserInfo {
		return &authn.UserInfo{Name: name, Groups: append(groups, authn.AllAuthenticated)}
	}
	sa := func(name string) *authn.UserInfo {
		return u("system:serviceaccount:kube-system:"+name, "system:serviceaccounts", "system:serviceaccounts:kube-system")
	}
	at := func(user *authn.UserInfo, verb, group, resource, sub, ns, name string) authz.Attributes {
		return authz.Attributes{User: user, Verb: verb, ResourceRequest: true, APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
	}
	nonResource := func(user *authn.UserInfo, verb, path string) authz.Attributes {
		return authz.Attributes{User: user, Verb: verb, Path: path}
	}
	cases := []struct {
		name  string
		attrs authz.Attributes
		allow bool
	}{
		{"view lists pods", at(u("viewer"), "list", "", "pods", "", "dev", ""), true},
		{"view reads pod logs", at(u("viewer"), "get", "", "pods", "log", "dev", "web"), true},
		{"view reads no secret", at(u("viewer"), "get", "", "secrets", "", "dev", "s"), false},
		{"view writes nothing", at(u("viewer"), "create", "apps", "deployments", "", "dev", ""), false},
		{"view only in its namespace", at(u("viewer"), "list", "", "pods", "", "default", ""), false},
		{"view reads ingresses and network policies", at(u("viewer"), "list", "networking.k8s.io", "networkpolicies", "", "dev", ""), true},
		{"view reads an ingress's status", at(u("viewer"), "get", "networking.k8s.io", "ingresses", "status", "dev", "web"), true},
		{"view writes no ingress", at(u("viewer"), "create", "networking.k8s.io", "ingresses", "", "dev", ""), false},
		{"edit creates deployments", at(u("editor"), "create", "apps", "deployments", "", "dev", ""), true},
		{"edit writes ingresses and network policies", at(u("editor"), "create", "networking.k8s.io", "ingresses", "", "dev", ""), true},
		{"edit deletes network policies", at(u("editor"), "delete", "networking.k8s.io", "networkpolicies", "", "dev", "deny"), true},
		{"edit writes no ingress status", at(u("editor"), "update", "networking.k8s.io", "ingresses", "status", "dev", "web"), false},
		{"admin gathers the networking rules", at(u("owner"), "patch", "networking.k8s.io", "networkpolicies", "", "dev", "deny"), true},
		{"edit scales", at(u("editor"), "update", "apps", "deployments", "scale", "dev", "web"), true},
		{"edit reads secrets", at(u("editor"), "get", "", "secrets", "", "dev", "s"), true},
		{"edit gathers view (lists pods)", at(u("editor"), "list", "", "pods", "", "dev", ""), true},
		{"edit writes no role", at(u("editor"), "create", api.RBACGroupName, "rolebindings", "", "dev", ""), false},
		{"edit writes no status", at(u("editor"), "update", "apps", "deployments", "status", "dev", "web"), false},
		{"admin binds roles", at(u("owner"), "create", api.RBACGroupName, "rolebindings", "", "dev", ""), true},
		{"admin gathers edit", at(u("owner"), "delete", "apps", "deployments", "", "dev", "web"), true},
		{"admin is not cluster-admin", at(u("owner"), "list", "", "nodes", "", "", ""), false},
		{"everyone asks about themselves", at(u("anyone"), "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", ""), true},
		{"the scheduler binds", at(u(KubeScheduler), "create", "", "pods", "binding", "dev", "web"), true},
		{"the scheduler creates no pod", at(u(KubeScheduler), "create", "", "pods", "", "dev", ""), false},
		{"the controller manager's informers list anything", at(u(KubeControllerManager), "watch", "apps", "statefulsets", "", "", ""), true},
		{"the controller manager writes no pod", at(u(KubeControllerManager), "create", "", "pods", "", "dev", ""), false},
		{"the replicaset controller creates pods", at(sa("replicaset-controller"), "create", "", "pods", "", "dev", ""), true},
		{"the replicaset controller deletes no deployment", at(sa("replicaset-controller"), "delete", "apps", "deployments", "", "dev", "web"), false},
		{"the garbage collector deletes anything", at(sa("generic-garbage-collector"), "delete", "example.com", "widgets", "", "dev", "w"), true},
		{"the service account controller creates accounts", at(sa("service-account-controller"), "create", "", "serviceaccounts", "", "dev", ""), true},
		{"the aggregation controller may escalate", at(sa("clusterrole-aggregation-controller"), "escalate", api.RBACGroupName, "clusterroles", "", "", "view"), true},
		{"a controller's account elsewhere is nobody", at(u("system:serviceaccount:dev:replicaset-controller"), "create", "", "pods", "", "dev", ""), false},
		{"everyone reads the web page", nonResource(u("anyone"), "get", "/ui/api/activity"), true},
		{"everyone applies from the web page", nonResource(u("anyone"), "post", "/ui/api/apply"), true},
		{"nobody but cluster-admin stops a node from the web page", nonResource(u("owner"), "post", "/ui/api/node"), false},
		{"nobody but cluster-admin switches a controller", nonResource(u("anyone"), "post", "/ui/api/switch"), false},
		{"cluster-admin stops a node", nonResource(u("root", "system:masters"), "post", "/ui/api/node"), true},
		{"system:node is bound to nobody", at(u("system:node:node-1", "system:nodes"), "get", "", "nodes", "", "", "node-1"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _, err := a.Authorize(context.Background(), c.attrs)
			require.NoError(t, err)
			assert.Equal(t, c.allow, d == authz.DecisionAllow)
		})
	}
}

// Every controller role has its binding to its account in kube-system,
// each bootstrap object carries the autoupdate annotation.
func TestBootstrapBindings(t *testing.T) {
	bindings := map[string]*rbacv1.ClusterRoleBinding{}
	for _, b := range BootstrapClusterRoleBindings() {
		bindings[b.Name] = b
		assert.Equal(t, "true", b.Annotations[api.AutoUpdateAnnotation])
	}
	for _, r := range ControllerRoles() {
		b, ok := bindings[ControllerRolePrefix+r.Name]
		require.True(t, ok, r.Name)
		assert.Equal(t, []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: r.Name, Namespace: "kube-system"}}, b.Subjects)
	}
	for _, r := range BootstrapClusterRoles() {
		assert.Equal(t, "true", r.Annotations[api.AutoUpdateAnnotation], r.Name)
	}
}
