package kinds

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

func TestRBACValidation(t *testing.T) {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "default"}, Rules: []rbacv1.PolicyRule{
		{Resources: []string{"pods"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}},
	}}
	assert.Equal(t, []string{
		"rules[0].verbs: Required value: verbs must contain at least one value",
		"rules[0].apiGroups: Required value: resource rules must supply at least one api group",
		`rules[1].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs`,
	}, create(t, "roles", role))

	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:x"}, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}},
	}, AggregationRule: &rbacv1.AggregationRule{}}
	assert.Equal(t, []string{
		"aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil",
	}, create(t, "clusterroles", cr))
	assert.Equal(t, []string{"may not contain '/'"}, IsValidPathSegmentName("a/b"))
	assert.Empty(t, IsValidPathSegmentName("system:basic-user"))

	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "default"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "alice"}, {Kind: "Robot", Name: "r2"}, {Kind: "ServiceAccount", Name: "default"}},
		RoleRef:  rbacv1.RoleRef{Kind: "Role", Name: "r"}}
	assert.Equal(t, []string{`subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`}, create(t, "rolebindings", rb))
	assert.Equal(t, api.RBACGroupName, rb.RoleRef.APIGroup, "roleRef.apiGroup defaults")
	assert.Equal(t, api.RBACGroupName, rb.Subjects[0].APIGroup, "a user's apiGroup defaults")

	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default"}},
		RoleRef:  rbacv1.RoleRef{Kind: "Role", Name: "r"}}
	assert.Equal(t, []string{
		`roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`,
		"subjects[0].namespace: Required value",
	}, create(t, "clusterrolebindings", crb))

	old := rb.DeepCopy()
	old.Subjects = old.Subjects[:1]
	changed := old.DeepCopy()
	changed.RoleRef.Name = "other"
	msgs := update(t, "rolebindings", changed, old)
	assert.Len(t, msgs, 1)
	assert.Contains(t, msgs[0], "roleRef: Invalid value: ")
	assert.Contains(t, msgs[0], ": cannot change roleRef")
}

func TestRBACTables(t *testing.T) {
	created := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", CreationTimestamp: metav1.Time{Time: created}}}
	assert.Equal(t, []any{"r", "2026-01-01T10:00:00Z"}, builtin(t, "roles").Table.Cells(role, created.Add(time.Hour)))
	b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b", CreationTimestamp: metav1.Time{Time: created}},
		RoleRef:  rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "a"}, {Kind: "User", Name: "b"}, {Kind: "Group", Name: "g"}, {Kind: "ServiceAccount", Namespace: "ns", Name: "sa"}}}
	assert.Equal(t, []any{"b", "ClusterRole/view", "5m", "a, b", "g", "ns:sa"}, builtin(t, "clusterrolebindings").Table.Cells(b, created.Add(5*time.Minute)))
}
