package kubelet

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestParseUsage(t *testing.T) {
	tests := []struct {
		in   string
		want Usage
		err  string
	}{
		{"cpu=250m,memory=64Mi", Usage{MilliCPU: 250, MemoryBytes: 64 << 20}, ""},
		{" cpu = 2 ", Usage{MilliCPU: 2000}, ""},
		{"memory=1Gi", Usage{MemoryBytes: 1 << 30}, ""},
		{"cpu=lots", Usage{}, "want a quantity"},
		{"disk=1Gi", Usage{}, `unknown usage key "disk"`},
		{"cpu", Usage{}, "want cpu=QUANTITY"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseUsage(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestContainerUsage(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "a", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("128Mi")}}},
		{Name: "b"},
	}}}
	assert.Equal(t, map[string]Usage{"a": {MilliCPU: 50, MemoryBytes: 64 << 20}, "b": {MilliCPU: idleMilliCPU, MemoryBytes: idleMemoryBytes}},
		containerUsage(pod, []string{"a", "b"}), "from requests, or idle")
	pod.Annotations = map[string]string{UsageAnnotation: "cpu=300m,memory=100Mi"}
	assert.Equal(t, map[string]Usage{"a": {MilliCPU: 150, MemoryBytes: 50 << 20}, "b": {MilliCPU: 150, MemoryBytes: 50 << 20}},
		containerUsage(pod, []string{"a", "b"}), "the annotation, shared")
	pod.Annotations[UsageAnnotation] = "nonsense"
	assert.Equal(t, int64(50), containerUsage(pod, []string{"a"})["a"].MilliCPU, "a bad annotation is ignored")
}
