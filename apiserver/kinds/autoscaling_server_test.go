package kinds_test

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
)

func ptr[T any](v T) *T { return &v }

// An autoscaling/v1 HPA (what kubectl v1.32's `kubectl autoscale` sends)
// is the same object read at v2, and back.
func TestHPAServedAtV1AndV2(t *testing.T) {
	cl := newServer(t, openStore(t))
	v1 := client.For(cl, client.ResourceInfo{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers", Namespaced: true},
		func() *api.HorizontalPodAutoscalerV1 { return &api.HorizontalPodAutoscalerV1{} })
	v2 := client.For(cl, client.ResourceInfo{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Namespaced: true},
		func() *api.HorizontalPodAutoscaler { return &api.HorizontalPodAutoscaler{} })
	created, err := v1.Create(bg, &api.HorizontalPodAutoscalerV1{
		TypeMeta:   api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.HorizontalPodAutoscalerSpecV1{ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
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
	got.Status = api.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 3,
		CurrentMetrics: []api.MetricStatus{{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricStatus{Name: api.ResourceCPU,
			Current: api.MetricValueStatus{AverageUtilization: ptr(int32(75))}}}},
		Conditions: []api.HorizontalPodAutoscalerCondition{{Type: api.AbleToScale, Status: api.ConditionTrue, Reason: "SucceededRescale",
			LastTransitionTime: api.NewTime(time.Unix(0, 0))}}}
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
