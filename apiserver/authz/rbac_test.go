package authz

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
)

// source is a RuleSource over slices.
type source struct {
	roles        []*rbacv1.Role
	clusterRoles []*rbacv1.ClusterRole
	rbs          []*rbacv1.RoleBinding
	crbs         []*rbacv1.ClusterRoleBinding
}

func (s *source) GetRole(_ context.Context, ns, name string) (*rbacv1.Role, error) {
	for _, r := range s.roles {
		if r.Namespace == ns && r.Name == name {
			return r, nil
		}
	}
	return nil, api.NewNotFound(schema.GroupResource{Group: api.RBACGroupName, Resource: "role"}, name)
}

func (s *source) GetClusterRole(_ context.Context, name string) (*rbacv1.ClusterRole, error) {
	for _, r := range s.clusterRoles {
		if r.Name == name {
			return r, nil
		}
	}
	return nil, api.NewNotFound(schema.GroupResource{Group: api.RBACGroupName, Resource: "clusterrole"}, name)
}

func (s *source) ListRoleBindings(_ context.Context, ns string) ([]*rbacv1.RoleBinding, error) {
	var out []*rbacv1.RoleBinding
	for _, b := range s.rbs {
		if b.Namespace == ns {
			out = append(out, b)
		}
	}
	return out, nil
}

func (s *source) ListClusterRoleBindings(context.Context) ([]*rbacv1.ClusterRoleBinding, error) {
	return s.crbs, nil
}

func meta(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }

func user(name string, groups ...string) *authn.UserInfo {
	return &authn.UserInfo{Name: name, Groups: append(groups, "system:authenticated")}
}

// The examples of the Kubernetes RBAC documentation ("Using RBAC
// Authorization"), and the cases its rules are known for.
func docsSource() *source {
	return &source{
		roles: []*rbacv1.Role{
			{ObjectMeta: meta("default", "pod-reader"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "watch", "list"}}}},
			{ObjectMeta: meta("default", "configmap-updater"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"my-configmap"}, Verbs: []string{"update", "get"}}}},
			{ObjectMeta: meta("default", "pod-and-pod-logs-reader"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}, Verbs: []string{"get", "list"}}}},
			{ObjectMeta: meta("default", "scaler"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"*/scale"}, Verbs: []string{"update"}}}},
		},
		clusterRoles: []*rbacv1.ClusterRole{
			{ObjectMeta: meta("", "secret-reader"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "watch", "list"}}}},
			{ObjectMeta: meta("", "healthz"), Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/healthz", "/healthz/*"}, Verbs: []string{"get", "post"}}}},
			{ObjectMeta: meta("", "cluster-admin"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}, {NonResourceURLs: []string{"*"}, Verbs: []string{"*"}}}},
		},
		rbs: []*rbacv1.RoleBinding{
			{ObjectMeta: meta("default", "read-pods"), Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: api.RBACGroupName, Name: "jane"}}, RoleRef: rbacv1.RoleRef{APIGroup: api.RBACGroupName, Kind: "Role", Name: "pod-reader"}},
			{ObjectMeta: meta("development", "read-secrets"), Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: api.RBACGroupName, Name: "dave"}}, RoleRef: rbacv1.RoleRef{APIGroup: api.RBACGroupName, Kind: "ClusterRole", Name: "secret-reader"}},
			{ObjectMeta: meta("default", "cm"), Subjects: []rbacv1.Subject{{Kind: "User", Name: "carol"}}, RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "configmap-updater"}},
			{ObjectMeta: meta("default", "logs"), Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "logger"}}, RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "pod-and-pod-logs-reader"}},
			{ObjectMeta: meta("default", "scale"), Subjects: []rbacv1.Subject{{Kind: "Group", Name: "scalers"}}, RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "scaler"}},
			{ObjectMeta: meta("default", "dangling"), Subjects: []rbacv1.Subject{{Kind: "User", Name: "erin"}}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "gone"}},
		},
		crbs: []*rbacv1.ClusterRoleBinding{
			{ObjectMeta: meta("", "read-secrets-global"), Subjects: []rbacv1.Subject{{Kind: "Group", APIGroup: api.RBACGroupName, Name: "manager"}}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "secret-reader"}},
			{ObjectMeta: meta("", "healthz"), Subjects: []rbacv1.Subject{{Kind: "Group", Name: "system:authenticated"}}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "healthz"}},
			{ObjectMeta: meta("", "sa-admin"), Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "kube-system", Name: "root"}}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "cluster-admin"}},
		},
	}
}

func res(u *authn.UserInfo, verb, group, resource, sub, ns, name string) Attributes {
	return Attributes{User: u, Verb: verb, ResourceRequest: true, APIGroup: group, APIVersion: "v1", Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

func TestRBACAuthorizer(t *testing.T) {
	a := &RBAC{Source: docsSource()}
	cases := []struct {
		name  string
		attrs Attributes
		allow bool
	}{
		{"jane reads pods in default", res(user("jane"), "get", "", "pods", "", "default", "web"), true},
		{"jane lists pods in default", res(user("jane"), "list", "", "pods", "", "default", ""), true},
		{"jane cannot delete pods", res(user("jane"), "delete", "", "pods", "", "default", "web"), false},
		{"jane cannot read pods elsewhere", res(user("jane"), "get", "", "pods", "", "kube-system", "web"), false},
		{"jane cannot read pod logs", res(user("jane"), "get", "", "pods", "log", "default", "web"), false},
		{"jane cannot read pods cluster-wide", res(user("jane"), "list", "", "pods", "", "", ""), false},
		{"a RoleBinding to a ClusterRole is namespaced: dave in development", res(user("dave"), "get", "", "secrets", "", "development", "s"), true},
		{"dave not in default", res(user("dave"), "get", "", "secrets", "", "default", "s"), false},
		{"a ClusterRoleBinding to a group: managers everywhere", res(user("mia", "manager"), "list", "", "secrets", "", "", ""), true},
		{"managers in any namespace", res(user("mia", "manager"), "watch", "", "secrets", "", "kube-system", ""), true},
		{"the wrong API group", res(user("mia", "manager"), "list", "apps", "secrets", "", "", ""), false},
		{"resourceNames: carol updates my-configmap", res(user("carol"), "update", "", "configmaps", "", "default", "my-configmap"), true},
		{"resourceNames: not another", res(user("carol"), "update", "", "configmaps", "", "default", "other"), false},
		{"resourceNames: no list (no name)", res(user("carol"), "list", "", "configmaps", "", "default", ""), false},
		{"subresource pods/log", res(user(ServiceAccountUsername("default", "logger")), "get", "", "pods", "log", "default", "web"), true},
		{"a ServiceAccount subject in the binding's namespace only", res(user(ServiceAccountUsername("other", "logger")), "get", "", "pods", "log", "default", "web"), false},
		{"*/scale", res(user("sam", "scalers"), "update", "apps", "deployments", "scale", "default", "web"), true},
		{"*/scale is not the deployment", res(user("sam", "scalers"), "update", "apps", "deployments", "", "default", "web"), false},
		{"a cluster-admin service account", res(user(ServiceAccountUsername("kube-system", "root")), "delete", "", "nodes", "", "", "n1"), true},
		{"system:masters may do anything", res(user("root", "system:masters"), "escalate", "rbac.authorization.k8s.io", "clusterroles", "", "", ""), true},
		{"nobody else", res(user("nobody"), "get", "", "pods", "", "default", "web"), false},
		{"non-resource /healthz", Attributes{User: user("x"), Verb: "get", Path: "/healthz"}, true},
		{"non-resource /healthz/etcd", Attributes{User: user("x"), Verb: "get", Path: "/healthz/etcd"}, true},
		{"non-resource /metrics", Attributes{User: user("x"), Verb: "get", Path: "/metrics"}, false},
		{"non-resource needs a non-resource rule", Attributes{User: user("mia", "manager"), Verb: "get", Path: "/api"}, false},
		{"no user", res(nil, "get", "", "pods", "", "default", ""), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _, err := a.Authorize(context.Background(), c.attrs)
			require.NoError(t, err)
			assert.Equal(t, c.allow, d == DecisionAllow)
			assert.NotEqual(t, DecisionDeny, d, "RBAC never denies")
		})
	}
}

func TestForbiddenWording(t *testing.T) {
	a := &RBAC{Source: docsSource()}
	attrs := res(user("alice"), "list", "", "pods", "", "default", "")
	_, reason, err := a.Authorize(context.Background(), attrs)
	require.NoError(t, err)
	assert.Equal(t, `pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`, Forbidden(attrs, reason).Error())
	assert.Equal(t, 403, int(Forbidden(attrs, reason).Status().Code))

	attrs = res(user("alice"), "create", "", "pods", "exec", "default", "web")
	assert.Equal(t, `pods "web" is forbidden: User "alice" cannot create resource "pods/exec" in API group "" in the namespace "default"`, Forbidden(attrs, "").Error())
	attrs = res(user("alice"), "list", "apps", "deployments", "", "", "")
	assert.Equal(t, `deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" at the cluster scope`, Forbidden(attrs, "").Error())
	attrs = Attributes{User: user("alice"), Verb: "get", Path: "/metrics"}
	assert.Equal(t, `forbidden: User "alice" cannot get path "/metrics"`, Forbidden(attrs, "").Error())

	// A binding to a role that does not exist: the reason says so.
	attrs = res(user("erin"), "get", "", "pods", "", "default", "")
	_, reason, err = a.Authorize(context.Background(), attrs)
	require.NoError(t, err)
	assert.Equal(t, `RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found`, reason)
}

func TestRulesFor(t *testing.T) {
	a := &RBAC{Source: docsSource()}
	rules, errs := a.RulesFor(context.Background(), user("jane"), "default")
	assert.Empty(t, errs)
	assert.Equal(t, []rbacv1.PolicyRule{
		{NonResourceURLs: []string{"/healthz", "/healthz/*"}, Verbs: []string{"get", "post"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "watch", "list"}},
	}, rules)
}

func TestEscalation(t *testing.T) {
	owner := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"apps"}, Resources: []string{"*/scale"}, Verbs: []string{"update"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}, Verbs: []string{"get"}},
	}
	cases := []struct {
		name    string
		servant []rbacv1.PolicyRule
		ok      bool
	}{
		{"a subset", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}, true},
		{"a subresource held", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods/log"}, Verbs: []string{"list"}}}, true},
		{"*/scale covers deployments/scale", []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"deployments/scale"}, Verbs: []string{"update"}}}, true},
		{"a named configmap held", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}, Verbs: []string{"get"}}}, true},
		{"every configmap is more than one", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}}, false},
		{"a verb not held", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "delete"}}}, false},
		{"a wildcard not held", []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"pods"}, Verbs: []string{"get"}}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ok, missing := Covers(owner, c.servant)
			assert.Equal(t, c.ok, ok, "%v", missing)
		})
	}
	admin := []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}
	ok, _ := Covers(admin, []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"deployments/scale"}, ResourceNames: []string{"x"}, Verbs: []string{"patch"}}})
	assert.True(t, ok, "cluster-admin covers everything")

	_, missing := Covers(owner, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "delete"}}})
	assert.Equal(t, "user \"alice\" (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}",
		EscalationError(user("alice", "dev"), missing))
}

// The message lists what is missing as kube-apiserver does: the verbs of
// one group and resource (and name) on one line, in the servant's order,
// the lines sorted and without repeats, so that a role several verbs
// short reads as one line per resource.
func TestEscalationErrorCompactsTheMissingRules(t *testing.T) {
	owner := []rbacv1.PolicyRule{
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles", "rolebindings"}, Verbs: []string{"create", "get", "list", "delete"}},
	}
	servant := []rbacv1.PolicyRule{
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"localsubjectaccessreviews"}, Verbs: []string{"create"}},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles", "rolebindings"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a", "b"}, Verbs: []string{"get", "update"}},
		{NonResourceURLs: []string{"/healthz", "/livez"}, Verbs: []string{"get"}},
		{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}},
	}
	_, missing := Covers(owner, servant)
	assert.Equal(t, `user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`+"\n"+
		`{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["get" "update"]}`+"\n"+
		`{APIGroups:[""], Resources:["configmaps"], ResourceNames:["b"], Verbs:["get" "update"]}`+"\n"+
		`{APIGroups:["authorization.k8s.io"], Resources:["localsubjectaccessreviews"], Verbs:["create"]}`+"\n"+
		`{APIGroups:["rbac.authorization.k8s.io"], Resources:["rolebindings"], Verbs:["watch" "update" "patch" "deletecollection"]}`+"\n"+
		`{APIGroups:["rbac.authorization.k8s.io"], Resources:["roles"], Verbs:["watch" "update" "patch" "deletecollection"]}`+"\n"+
		`{NonResourceURLs:["/healthz"], Verbs:["get"]}`+"\n"+
		`{NonResourceURLs:["/livez"], Verbs:["get"]}`,
		EscalationError(user("bob"), missing))
	assert.Len(t, missing, 16, "Covers still reports every broken-down rule")
}
