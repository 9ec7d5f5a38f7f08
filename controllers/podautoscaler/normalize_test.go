package podautoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/kinds"
)

func rules(r autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules { return &r }

func TestBehaviorScaleUpPolicies(t *testing.T) {
	up, down := rules(kinds.DefaultScaleUpRules()), rules(kinds.DefaultScaleDownRules())
	// The defaults allow the larger of +4 pods and +100% per 15 seconds.
	var h history
	n := h.NormalizeWithBehavior(t0, up, down, 2, 10, 1, 10)
	assert.Equal(t, int32(6), n.replicas, "2+4 beats 2×2")
	assert.Equal(t, condition{corev1.ConditionTrue, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"}, n.scalingLimited)
	h.recordScale(t0, &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: up, ScaleDown: down}, 2, 6)
	// Within the same 15 seconds the period started at 2: no more than 6.
	n = h.NormalizeWithBehavior(t0.Add(5*time.Second), up, down, 6, 10, 1, 10)
	assert.Equal(t, int32(6), n.replicas)
	// A new period: 6+4 or 12, capped by max 10.
	n = h.NormalizeWithBehavior(t0.Add(16*time.Second), up, down, 6, 20, 1, 10)
	assert.Equal(t, int32(10), n.replicas)
	assert.Equal(t, "TooManyReplicas", n.scalingLimited.reason)

	// selectPolicy Min picks the smaller change: 2×2 = 4.
	minUp := rules(kinds.DefaultScaleUpRules())
	sel := autoscalingv2.MinChangePolicySelect
	minUp.SelectPolicy = &sel
	var h2 history
	assert.Equal(t, int32(4), h2.NormalizeWithBehavior(t0, minUp, down, 2, 10, 1, 10).replicas)
	// Disabled: no scaling up at all.
	off := autoscalingv2.DisabledPolicySelect
	minUp.SelectPolicy = &off
	var h3 history
	assert.Equal(t, int32(2), h3.NormalizeWithBehavior(t0, minUp, down, 2, 10, 1, 10).replicas)
}

func TestBehaviorScaleDownStabilization(t *testing.T) {
	up, down := rules(kinds.DefaultScaleUpRules()), rules(kinds.DefaultScaleDownRules())
	var h history
	assert.Equal(t, int32(6), h.NormalizeWithBehavior(t0, up, down, 6, 6, 2, 6).replicas)
	// Load drops: the 300-second window keeps the highest recommendation.
	n := h.NormalizeWithBehavior(t0.Add(60*time.Second), up, down, 6, 2, 2, 6)
	assert.Equal(t, int32(6), n.replicas)
	assert.Equal(t, condition{corev1.ConditionTrue, "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation"}, n.ableToScale)
	// Once the 6 has left the window, down to 2 (-100% per 15s allows it).
	n = h.NormalizeWithBehavior(t0.Add(301*time.Second), up, down, 6, 2, 2, 6)
	assert.Equal(t, int32(2), n.replicas)
	assert.Equal(t, "ReadyForNewScale", n.ableToScale.reason)
	assert.Equal(t, condition{corev1.ConditionFalse, "DesiredWithinRange", "the desired count is within the acceptable range"}, n.scalingLimited)

	// A Pods policy of 1 per minute steps down one at a time.
	slow := rules(autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: new(int32), Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 60}}})
	sel := autoscalingv2.MaxChangePolicySelect
	slow.SelectPolicy = &sel
	var h2 history
	b := &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: up, ScaleDown: slow}
	n = h2.NormalizeWithBehavior(t0, up, slow, 6, 2, 1, 6)
	assert.Equal(t, int32(5), n.replicas)
	assert.Equal(t, "ScaleDownLimit", n.scalingLimited.reason)
	h2.recordScale(t0, b, 6, 5)
	assert.Equal(t, int32(5), h2.NormalizeWithBehavior(t0.Add(30*time.Second), up, slow, 5, 2, 1, 6).replicas)
	assert.Equal(t, int32(4), h2.NormalizeWithBehavior(t0.Add(61*time.Second), up, slow, 5, 2, 1, 6).replicas)
}

func TestNormalizeWithoutBehavior(t *testing.T) {
	var h history
	// At most double (or 4) per sync.
	n := h.Normalize(t0, DefaultDownscaleStabilization, 2, 10, 1, 10)
	assert.Equal(t, int32(4), n.replicas)
	assert.Equal(t, "ScaleUpLimit", n.scalingLimited.reason)
	n = h.Normalize(t0.Add(15*time.Second), DefaultDownscaleStabilization, 4, 1, 2, 10)
	assert.Equal(t, int32(8), n.replicas, "the window still holds the 10 recommended 15 seconds ago; from 4, at most 8")
	n = h.Normalize(t0.Add(10*time.Minute), DefaultDownscaleStabilization, 10, 1, 2, 10)
	assert.Equal(t, int32(2), n.replicas)
	assert.Equal(t, condition{corev1.ConditionTrue, "TooFewReplicas", "the desired replica count is less than the minimum replica count"}, n.scalingLimited)
}
