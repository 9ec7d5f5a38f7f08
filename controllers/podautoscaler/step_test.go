package podautoscaler_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/controllers/podautoscaler"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// An HPA whose target does not exist says so in its AbleToScale
// condition and an event, and does not keep the stepper busy (its 15s
// resync is periodic).
func TestMissingTargetInStepMode(t *testing.T) {
	ctx := context.Background()
	c, err := cluster.New(cluster.Config{DetectCacheMutations: true, Mode: runmode.Step, Seed: 3, NodeCount: 1})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := c.CheckCacheMutations(); err != nil {
			t.Error(err)
		}
		c.Close()
	})
	_, err = c.RunUntilStable(ctx, stepper.Limits{})
	require.NoError(t, err)

	cl := c.Client("test")
	hpas := client.For(cl, podautoscaler.HPAInfo, func() *autoscalingv2.HorizontalPodAutoscaler { return &autoscalingv2.HorizontalPodAutoscaler{} })
	maxReplicas := int32(3)
	_, err = hpas.Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MaxReplicas: maxReplicas}})
	require.NoError(t, err)
	_, err = c.RunUntilStable(ctx, stepper.Limits{MaxSteps: 500})
	require.NoError(t, err, "an HPA's periodic sync must not keep the stepper busy")

	h, err := hpas.Get(ctx, "default", "web")
	require.NoError(t, err)
	require.Len(t, h.Status.Conditions, 1, "%+v", h.Status)
	cond := h.Status.Conditions[0]
	assert.Equal(t, autoscalingv2.AbleToScale, cond.Type)
	assert.Equal(t, corev1.ConditionFalse, cond.Status)
	assert.Equal(t, "FailedGetScale", cond.Reason)
	assert.Equal(t, `the HPA controller was unable to get the target's current scale: deployments.apps "web" not found`, cond.Message)
	events, err := cl.Events().List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	var reasons []string
	for _, e := range events.Items {
		if e.InvolvedObject.Kind == "HorizontalPodAutoscaler" {
			reasons = append(reasons, e.Type+" "+e.Reason+" "+e.Message)
		}
	}
	assert.Equal(t, []string{`Warning FailedGetScale deployments.apps "web" not found`}, reasons)
}
