package controllers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
)

func template(image string) *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}}}
}

func TestComputeHash(t *testing.T) {
	a := ComputeHash(template("nginx:1"), nil)
	assert.Equal(t, a, ComputeHash(template("nginx:1"), nil), "deterministic")
	assert.NotEqual(t, a, ComputeHash(template("nginx:2"), nil))
	one := int32(1)
	assert.NotEqual(t, a, ComputeHash(template("nginx:1"), &one), "the collision count changes the hash")
	for _, c := range a {
		assert.Contains(t, safeAlphabet, string(c))
	}
	assert.Equal(t, "24b", SafeEncodeString(string([]byte{20, 21, 27})), "bytes index the alphabet, modulo its length")
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// readyPod is a pod Ready since t0 plus s seconds (not ready when s < 0).
func readyPod(s int) *corev1.Pod {
	p := &corev1.Pod{}
	if s >= 0 {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(t0.Add(time.Duration(s) * time.Second))}}
	}
	return p
}

func TestIsPodAvailableAndNextAvailable(t *testing.T) {
	now := t0.Add(10 * time.Second)
	ready := readyPod(0)
	assert.True(t, api.IsPodAvailable(ready, 0, now))
	assert.True(t, api.IsPodAvailable(ready, 9, now))
	assert.False(t, api.IsPodAvailable(ready, 10, now), "strictly before now")
	assert.False(t, api.IsPodAvailable(readyPod(-1), 0, now))

	d, ok := NextAvailable([]*corev1.Pod{ready, readyPod(-1), readyPod(5)}, 10, now)
	require.True(t, ok)
	assert.Equal(t, time.Second, d)
	_, ok = NextAvailable([]*corev1.Pod{ready}, 0, now)
	assert.False(t, ok)
	_, ok = NextAvailable([]*corev1.Pod{ready}, 5, now)
	assert.False(t, ok, "already available")
}

func TestFindPort(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "a", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}},
		{Name: "b", Ports: []corev1.ContainerPort{{Name: "https", ContainerPort: 8443}}},
	}}}
	tests := []struct {
		target intstr.IntOrString
		want   int32
		ok     bool
	}{
		{intstr.FromInt32(9000), 9000, true},
		{intstr.FromString("https"), 8443, true},
		{intstr.FromString("nope"), 0, false},
		{intstr.IntOrString{}, 443, true},
	}
	for _, tt := range tests {
		got, ok := FindPort(p, corev1.ServicePort{Port: 443, TargetPort: tt.target})
		assert.Equal(t, tt.ok, ok, "%v", tt.target)
		assert.Equal(t, tt.want, got, "%v", tt.target)
	}
}
