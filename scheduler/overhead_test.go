package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// A pod's overhead (its RuntimeClass's) counts toward what it requests of
// a node, as resource.PodRequests adds it.
func TestPodInfoChargesTheOverhead(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}}},
		Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("120Mi")},
	}}
	pi := NewPodInfo(pod)
	assert.Equal(t, int64(350), pi.Requests.MilliCPU)
	assert.Equal(t, int64(184*1024*1024), pi.Requests.Memory)
	assert.Equal(t, int64(1), pi.Requests.Pods)
	assert.Equal(t, int64(350), pi.NonZeroRequests.MilliCPU)
}
