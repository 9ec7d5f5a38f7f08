package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func validHPA() *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MaxReplicas:    6,
		},
	}
}

func TestHPADefaults(t *testing.T) {
	h := validHPA()
	require.Empty(t, create(t, "horizontalpodautoscalers", h))
	assert.Equal(t, int32(1), *h.Spec.MinReplicas)
	require.Len(t, h.Spec.Metrics, 1, "no metric means 80% of the CPU request")
	assert.Equal(t, corev1.ResourceCPU, h.Spec.Metrics[0].Resource.Name)
	assert.Equal(t, int32(80), *h.Spec.Metrics[0].Resource.Target.AverageUtilization)
	assert.Nil(t, h.Spec.Behavior, "an absent behavior stays absent")

	// A behavior given in part is completed from the defaults.
	h = validHPA()
	h.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptrTo(int32(60))}}
	require.Empty(t, create(t, "horizontalpodautoscalers", h))
	assert.Equal(t, DefaultScaleUpRules(), *h.Spec.Behavior.ScaleUp)
	down := h.Spec.Behavior.ScaleDown
	assert.Equal(t, int32(60), *down.StabilizationWindowSeconds)
	assert.Equal(t, autoscalingv2.MaxChangePolicySelect, *down.SelectPolicy)
	assert.Equal(t, []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}, down.Policies)
}

func TestHPAValidation(t *testing.T) {
	q := resource.MustParse("100m")
	for name, c := range map[string]struct {
		mutate func(h *autoscalingv2.HorizontalPodAutoscaler)
		want   []string
	}{
		"min above max": {func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptrTo(int32(7)) },
			[]string{"spec.maxReplicas: Invalid value: 6: must be greater than or equal to `minReplicas`"}},
		"min zero": {func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptrTo(int32(0)) },
			[]string{"spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"}},
		"max zero": {func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MaxReplicas = 0 },
			[]string{"spec.maxReplicas: Invalid value: 0: must be greater than 0",
				"spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`"}},
		"no target kind": {func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.ScaleTargetRef.Kind = "" },
			[]string{"spec.scaleTargetRef.kind: Required value"}},
		"resource without target": {func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType}}}}
		}, []string{"spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization"}},
		"both targets": {func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptrTo(int32(50)), AverageValue: &q}}}}
		}, []string{"spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization"}},
		"type without source": {func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.PodsMetricSourceType}}
		}, []string{"spec.metrics[0].pods: Required value: must populate information for the given metric source"}},
		"bad policy": {func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
				Policies: []autoscalingv2.HPAScalingPolicy{{Type: "Pods", Value: 0, PeriodSeconds: 1801}}}}
		}, []string{"spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
			"spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800"}},
	} {
		t.Run(name, func(t *testing.T) {
			h := validHPA()
			c.mutate(h)
			assert.Equal(t, c.want, create(t, "horizontalpodautoscalers", h))
		})
	}
}
