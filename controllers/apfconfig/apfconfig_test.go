package apfconfig

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/runmode"
)

// steps syncs and reconciles until nothing is queued, returning how many
// reconciles ran.
func steps(t *testing.T, c *Controller) int {
	t.Helper()
	ctx := context.Background()
	n := 0
	ctrl := c.Controllers()[0]
	for range 20 {
		require.NoError(t, ctrl.Sync(ctx))
		stepped := false
		for {
			info, ok := ctrl.Step(ctx)
			if !ok {
				break
			}
			require.NoError(t, info.Err)
			stepped, n = true, n+1
		}
		if !stepped {
			return n
		}
	}
	t.Fatal("did not settle")
	return n
}

func dangling(t *testing.T, env *apiservertest.Env, name string) flowcontrolv1.FlowSchemaCondition {
	t.Helper()
	fs, err := env.Client.FlowSchemas().Get(context.Background(), "", name)
	require.NoError(t, err)
	for _, c := range fs.Status.Conditions {
		if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
			return c
		}
	}
	t.Fatalf("flow schema %s has no Dangling condition", name)
	return flowcontrolv1.FlowSchemaCondition{}
}

// The bootstrap configuration starts with right conditions, so the
// controller has nothing to do; a schema naming a missing level is
// marked dangling, and no longer once the level exists.
func TestDanglingConditions(t *testing.T) {
	env := apiservertest.New(t)
	ctx := context.Background()
	c, err := New(Config{Client: env.Client, Clock: env.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	assert.Equal(t, 0, steps(t, c), "the bootstrap wrote the conditions")
	ok := dangling(t, env, "global-default")
	assert.Equal(t, flowcontrolv1.ConditionFalse, ok.Status)
	assert.Equal(t, "Found", ok.Reason)
	assert.Equal(t, `This FlowSchema references the PriorityLevelConfiguration object named "global-default" and it exists`, ok.Message)

	_, err = env.Client.FlowSchemas().Create(ctx, &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "batch"},
		Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "batch"},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects:      []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: "batch"}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true}}}}}})
	require.NoError(t, err)
	env.Clock.Step(time.Minute)
	assert.Equal(t, 1, steps(t, c))
	d := dangling(t, env, "batch")
	assert.Equal(t, flowcontrolv1.ConditionTrue, d.Status)
	assert.Equal(t, "NotFound", d.Reason)
	assert.Equal(t, `This FlowSchema references the PriorityLevelConfiguration object named "batch" but there is no such object`, d.Message)
	assert.True(t, env.Clock.Now().Truncate(time.Second).Equal(d.LastTransitionTime.Time))

	_, err = env.Client.PriorityLevelConfigurations().Create(ctx, &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "batch"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}})
	require.NoError(t, err)
	assert.Equal(t, 1, steps(t, c))
	assert.Equal(t, flowcontrolv1.ConditionFalse, dangling(t, env, "batch").Status)
	assert.Equal(t, 0, steps(t, c), "its own write queues nothing more")
}
