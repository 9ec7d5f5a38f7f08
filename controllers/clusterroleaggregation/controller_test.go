package clusterroleaggregation_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

var bg = context.Background()

var widgetsRule = rbacv1.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}

func hasRule(t *testing.T, cl *client.Client, role string, r rbacv1.PolicyRule) bool {
	t.Helper()
	got, err := cl.ClusterRoles().Get(bg, "", role)
	require.NoError(t, err)
	return slices.ContainsFunc(got.Rules, func(have rbacv1.PolicyRule) bool {
		return slices.Equal(have.Verbs, r.Verbs) && slices.Equal(have.APIGroups, r.APIGroups) && slices.Equal(have.Resources, r.Resources)
	})
}

// A ClusterRole labelled aggregate-to-view joins view, and through the
// labels of view and edit, edit and admin too (the Kubernetes docs' CRD
// example); unlabelled, it leaves them.
func TestAggregateToView(t *testing.T) {
	c, err := cluster.New(cluster.Config{DetectCacheMutations: true, Mode: runmode.Step, Seed: 1, NodeCount: 1, AuthorizationMode: "Node,RBAC"})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := c.CheckCacheMutations(); err != nil {
			t.Error(err)
		}
		c.Close()
	})
	cl := c.Client("test")
	settle := func() {
		_, err := c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
	}
	settle()
	podsRead := rbacv1.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"namespaces"}}
	for _, r := range []string{"view", "edit", "admin"} {
		assert.True(t, hasRule(t, cl, r, podsRead), "%s has system:aggregate-to-view's rules", r)
		assert.False(t, hasRule(t, cl, r, widgetsRule), r)
	}
	assert.False(t, hasRule(t, cl, "view", rbacv1.PolicyRule{Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{"serviceaccounts"}}),
		"view does not gather edit's rules")

	widgets := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "widgets-view",
		Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}}, Rules: []rbacv1.PolicyRule{widgetsRule}}
	_, err = cl.ClusterRoles().Create(bg, widgets)
	require.NoError(t, err)
	settle()
	for _, r := range []string{"view", "edit", "admin"} {
		assert.True(t, hasRule(t, cl, r, widgetsRule), "%s gathered widgets-view", r)
	}

	got, err := cl.ClusterRoles().Get(bg, "", "widgets-view")
	require.NoError(t, err)
	got.Labels = nil
	_, err = cl.ClusterRoles().Update(bg, got)
	require.NoError(t, err)
	settle()
	for _, r := range []string{"view", "edit", "admin"} {
		assert.False(t, hasRule(t, cl, r, widgetsRule), "%s let widgets-view go", r)
	}

	// A role of one's own: two selectors, the rules of both, once each,
	// and what a user edits by hand is put back.
	mine := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}, AggregationRule: &rbacv1.AggregationRule{
		ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"team": "a"}}, {MatchLabels: map[string]string{"team": "b"}}}}}
	_, err = cl.ClusterRoles().Create(bg, mine)
	require.NoError(t, err)
	for _, x := range []struct{ name, team, res string }{{"a1", "a", "pods"}, {"b1", "b", "services"}, {"b2", "b", "pods"}} {
		_, err = cl.ClusterRoles().Create(bg, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: x.name, Labels: map[string]string{"team": x.team}},
			Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{x.res}}}})
		require.NoError(t, err)
	}
	settle()
	got, err = cl.ClusterRoles().Get(bg, "", "monitoring")
	require.NoError(t, err)
	var res []string
	for _, r := range got.Rules {
		res = append(res, r.Resources...)
	}
	assert.Equal(t, []string{"pods", "services"}, res, "a1's rule, then b1's; b2's equals a1's")
	got.Rules = nil
	_, err = cl.ClusterRoles().Update(bg, got)
	require.NoError(t, err)
	settle()
	got, err = cl.ClusterRoles().Get(bg, "", "monitoring")
	require.NoError(t, err)
	assert.Len(t, got.Rules, 2, "the controller owns an aggregated role's rules")
}
