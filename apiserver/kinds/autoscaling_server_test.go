package kinds_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
)

func ptr[T any](v T) *T { return &v }

// An autoscaling/v1 HPA (what kubectl v1.32's `kubectl autoscale` sends)
// is the same object read at v2, and back.
func TestHPAServedAtV1AndV2(t *testing.T) {
	cl := newServer(t, openStore(t))
	v1 := client.For(cl, client.ResourceInfo{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers", Namespaced: true},
		func() *autoscalingv1.HorizontalPodAutoscaler { return &autoscalingv1.HorizontalPodAutoscaler{} })
	v2 := client.For(cl, client.ResourceInfo{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Namespaced: true},
		func() *autoscalingv2.HorizontalPodAutoscaler { return &autoscalingv2.HorizontalPodAutoscaler{} })
	created, err := v1.Create(bg, &autoscalingv1.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas: ptr(int32(2)), MaxReplicas: 6, TargetCPUUtilizationPercentage: ptr(int32(50))}})
	require.NoError(t, err)
	assert.Equal(t, int32(50), *created.Spec.TargetCPUUtilizationPercentage)
	assert.Empty(t, created.Annotations)

	got, err := v2.Get(bg, "default", "web")
	require.NoError(t, err)
	require.Len(t, got.Spec.Metrics, 1)
	assert.Equal(t, int32(50), *got.Spec.Metrics[0].Resource.Target.AverageUtilization)
	assert.Equal(t, int32(2), *got.Spec.MinReplicas)

	// Status written at v2 reads at v1; the conditions ride in an
	// annotation, and a v1 update keeps them.
	got.Status = autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 3,
		CurrentMetrics: []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU,
			Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr(int32(75))}}}},
		Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "SucceededRescale",
			LastTransitionTime: metav1.NewTime(time.Unix(0, 0))}}}
	_, err = v2.UpdateStatus(bg, got)
	require.NoError(t, err)
	old, err := v1.Get(bg, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, int32(75), *old.Status.CurrentCPUUtilizationPercentage)
	assert.Contains(t, old.Annotations["autoscaling.alpha.kubernetes.io/conditions"], "SucceededRescale")
	old.Spec.MaxReplicas = 8
	_, err = v1.Update(bg, old)
	require.NoError(t, err)
	got, err = v2.Get(bg, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, int32(8), got.Spec.MaxReplicas)
	require.Len(t, got.Status.Conditions, 1)
	assert.Empty(t, got.Annotations)

	assert.Equal(t, "cpu: 75%/50%", kinds.FormatHPAMetrics(got.Spec.Metrics, got.Status.CurrentMetrics))
	assert.Equal(t, "cpu: <unknown>/50%", kinds.FormatHPAMetrics(got.Spec.Metrics, nil))
}
