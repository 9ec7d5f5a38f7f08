package quota

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

// A pod's RuntimeClass overhead is charged with its requests, and with
// its limits where it sets limits (PodRequests and PodLimits).
func TestPodUsageChargesTheOverhead(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: rl("cpu", "100m", "memory", "64Mi"), Limits: rl("cpu", "200m")}}},
		Overhead: rl("cpu", "250m", "memory", "120Mi"),
	}}
	u := PodUsage(p)
	assert.Equal(t, "350m", ptrQ(u, "requests.cpu"))
	assert.Equal(t, "184Mi", ptrQ(u, "requests.memory"))
	assert.Equal(t, "450m", ptrQ(u, "limits.cpu"))
	_, ok := u["limits.memory"]
	assert.False(t, ok, "no memory limit, none charged")
}

func ptrQ(l corev1.ResourceList, name string) string {
	q := l[corev1.ResourceName(name)]
	return q.String()
}
