package apiserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
)

// The API server starts with kube-apiserver's APF configuration, each
// FlowSchema's Dangling condition written; a restart puts back a changed
// mandatory object and an auto-updated suggested one, keeps one whose
// owner turned auto-update off, and rewrites nothing that is right.
func TestFlowControlBootstrap(t *testing.T) {
	dir := t.TempDir()
	st, cl := openServer(t, dir)
	ctx := context.Background()
	pls, err := cl.PriorityLevelConfigurations().List(ctx, "", client.ListOptions{})
	require.NoError(t, err)
	var names []string
	for _, pl := range pls.Items {
		names = append(names, pl.Name)
	}
	assert.Equal(t, []string{"catch-all", "exempt", "global-default", "leader-election", "node-high", "system", "workload-high", "workload-low"}, names)
	fss, err := cl.FlowSchemas().List(ctx, "", client.ListOptions{})
	require.NoError(t, err)
	names = nil
	for _, fs := range fss.Items {
		names = append(names, fs.Name)
		require.Len(t, fs.Status.Conditions, 1, fs.Name)
		assert.Equal(t, flowcontrolv1.ConditionFalse, fs.Status.Conditions[0].Status, fs.Name)
		assert.Equal(t, "true", fs.Annotations[kinds.AutoUpdateSpecAnnotation], fs.Name)
	}
	assert.Equal(t, []string{"catch-all", "endpoint-controller", "exempt", "global-default", "kube-controller-manager", "kube-scheduler",
		"kube-system-service-accounts", "probes", "service-accounts", "system-leader-election", "system-node-high", "system-nodes",
		"workload-leader-election"}, names)

	exempt, err := cl.FlowSchemas().Get(ctx, "", "exempt")
	require.NoError(t, err)
	exempt.Spec.MatchingPrecedence = 5
	_, err = cl.FlowSchemas().Update(ctx, exempt)
	require.NoError(t, err)
	global, err := cl.PriorityLevelConfigurations().Get(ctx, "", "global-default")
	require.NoError(t, err)
	global.Spec.Limited.NominalConcurrencyShares = ptr(int32(99))
	_, err = cl.PriorityLevelConfigurations().Update(ctx, global)
	require.NoError(t, err)
	low, err := cl.PriorityLevelConfigurations().Get(ctx, "", "workload-low")
	require.NoError(t, err)
	low.Annotations[kinds.AutoUpdateSpecAnnotation] = "false"
	low.Spec.Limited.NominalConcurrencyShares = ptr(int32(7))
	_, err = cl.PriorityLevelConfigurations().Update(ctx, low)
	require.NoError(t, err)
	system, err := cl.PriorityLevelConfigurations().Get(ctx, "", "system")
	require.NoError(t, err)
	require.NoError(t, st.Close())

	_, cl = openServer(t, dir)
	exempt, err = cl.FlowSchemas().Get(ctx, "", "exempt")
	require.NoError(t, err)
	assert.Equal(t, int32(1), exempt.Spec.MatchingPrecedence, "a mandatory object is put back")
	global, err = cl.PriorityLevelConfigurations().Get(ctx, "", "global-default")
	require.NoError(t, err)
	assert.Equal(t, int32(20), *global.Spec.Limited.NominalConcurrencyShares, "auto-updated")
	low, err = cl.PriorityLevelConfigurations().Get(ctx, "", "workload-low")
	require.NoError(t, err)
	assert.Equal(t, int32(7), *low.Spec.Limited.NominalConcurrencyShares, "its owner's choice")
	again, err := cl.PriorityLevelConfigurations().Get(ctx, "", "system")
	require.NoError(t, err)
	assert.Equal(t, system.ResourceVersion, again.ResourceVersion, "nothing rewritten")
}

func ptr[T any](v T) *T { return &v }
