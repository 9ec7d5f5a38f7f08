package podautoscaler

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// pod is a running pod, ready for 10 minutes, requesting milliCPU.
func pod(name string, milliCPU int64) *corev1.Pod {
	start := metav1.NewTime(t0.Add(-10 * time.Minute))
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: start}}}}
	if milliCPU > 0 {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI)}
	}
	return p
}

func pods(n int, milliCPU int64) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range n {
		out = append(out, pod(fmt.Sprintf("p%d", i), milliCPU))
	}
	return out
}

// usage gives each named pod a sample taken now over 15 seconds.
func usage(milli ...int64) PodMetricsInfo {
	out := PodMetricsInfo{}
	for i, m := range milli {
		out[fmt.Sprintf("p%d", i)] = PodMetric{Timestamp: t0, Window: 15 * time.Second, Value: m}
	}
	return out
}

func TestResourceReplicas(t *testing.T) {
	calc := DefaultCalculator()
	for name, c := range map[string]struct {
		current     int32
		target      int32
		pods        []*corev1.Pod
		metrics     PodMetricsInfo
		want        int32
		utilization int32
	}{
		// The docs' rule: desired = ceil(current × current value / target).
		"doubles at twice the target": {2, 50, pods(2, 200), usage(200, 200), 4, 100},
		"halves at half the target":   {4, 50, pods(4, 200), usage(50, 50, 50, 50), 2, 25},
		"2 to 6 at 150% of 50%":       {2, 50, pods(2, 200), usage(300, 300), 6, 150},
		// The HPA walkthrough: one php-apache pod at 305% of a 50%
		// target becomes 7 (6.1 rounded up).
		"walkthrough 305%": {1, 50, pods(1, 200), usage(610), 7, 305},
		// Within the 0.1 tolerance nothing changes.
		"within tolerance up":   {3, 50, pods(3, 200), usage(108, 108, 108), 3, 54},
		"within tolerance down": {3, 50, pods(3, 200), usage(92, 92, 92), 3, 46},
		"just past tolerance":   {3, 50, pods(3, 200), usage(112, 112, 112), 4, 56},
		// Missing metrics on a scale down count at 100% of the request:
		// here that cancels the scale down.
		"missing on scale down": {3, 50, pods(3, 100), usage(25, 25), 3, 25},
		// ... and at 0% on a scale up, which damps it: (100+100+0)/300
		// is 66%, 1.33 × 3 pods is 4 (not the 6 the two samples ask).
		"missing on scale up": {3, 50, pods(3, 100), usage(100, 100), 4, 100},
		// A missing pod that would turn a scale up into a scale down
		// makes no change.
		"missing reverses": {3, 50, pods(3, 100), usage(60), 3, 60},
	} {
		t.Run(name, func(t *testing.T) {
			got, util, _, err := calc.ResourceReplicas(c.current, c.target, corev1.ResourceCPU, "", c.pods, c.metrics, t0)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.utilization, util, "the utilization observed (before any assumption)")
		})
	}
}

func TestUnreadyPodsOnScaleUp(t *testing.T) {
	calc := DefaultCalculator()
	ps := pods(3, 100)
	// p2 is pending: on a scale up it counts at 0%.
	ps[2].Status.Phase = corev1.PodPending
	got, util, _, err := calc.ResourceReplicas(3, 50, corev1.ResourceCPU, "", ps, usage(100, 100), t0)
	require.NoError(t, err)
	assert.Equal(t, int32(4), got)
	assert.Equal(t, int32(100), util)

	// A pod that became ready 5 seconds ago has a sample taken before a
	// full window since: not trusted yet (it is starting up).
	ps = pods(2, 100)
	start := metav1.NewTime(t0.Add(-time.Minute))
	ps[1].Status.StartTime = &start
	ps[1].Status.Conditions[0].LastTransitionTime = metav1.NewTime(t0.Add(-5 * time.Second))
	got, _, _, err = calc.ResourceReplicas(2, 50, corev1.ResourceCPU, "", ps, usage(100, 100), t0)
	require.NoError(t, err)
	assert.Equal(t, int32(2), got, "p0 alone asks for 4; with p1 at 0%% the average is 50%%: no change")

	// A deleted pod is ignored altogether.
	ps = pods(3, 100)
	now := metav1.NewTime(t0)
	ps[2].DeletionTimestamp = &now
	got, _, _, err = calc.ResourceReplicas(3, 50, corev1.ResourceCPU, "", ps, usage(25, 25, 500), t0)
	require.NoError(t, err)
	assert.Equal(t, int32(1), got, "two ready pods at half the target")
}

func TestResourceReplicasErrors(t *testing.T) {
	calc := DefaultCalculator()
	_, _, _, err := calc.ResourceReplicas(2, 50, corev1.ResourceCPU, "", nil, usage(), t0)
	assert.EqualError(t, err, "no pods returned by selector while calculating replica count")
	_, _, _, err = calc.ResourceReplicas(2, 50, corev1.ResourceCPU, "", pods(2, 0), usage(10, 10), t0)
	assert.EqualError(t, err, "missing request for cpu in container c of Pod p0")
	ps := pods(2, 100)
	ps[0].Status.Phase, ps[1].Status.Phase = corev1.PodPending, corev1.PodPending
	_, _, _, err = calc.ResourceReplicas(2, 50, corev1.ResourceCPU, "", ps, usage(10, 10), t0)
	assert.EqualError(t, err, "did not receive metrics for targeted pods (pods might be unready)")
}

func TestRawResourceReplicas(t *testing.T) {
	calc := DefaultCalculator()
	// The docs: 200m against an averageValue of 100m doubles; 50m halves.
	got, avg, err := calc.RawResourceReplicas(3, 100, corev1.ResourceCPU, pods(3, 0), usage(200, 200, 200), t0)
	require.NoError(t, err)
	assert.Equal(t, int32(6), got)
	assert.Equal(t, int64(200), avg)
	got, _, err = calc.RawResourceReplicas(4, 100, corev1.ResourceCPU, pods(4, 0), usage(50, 50, 50, 50), t0)
	require.NoError(t, err)
	assert.Equal(t, int32(2), got)
	// A missing pod on a scale down counts at the target: (50+50+100)/3
	// is 66m, ceil(0.66 × 3) = 2 (the two samples alone would give 1).
	got, _, err = calc.RawResourceReplicas(3, 100, corev1.ResourceCPU, pods(3, 0), usage(50, 50), t0)
	require.NoError(t, err)
	assert.Equal(t, int32(2), got)
}
