package protection

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

func TestClaimInUse(t *testing.T) {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"}}
	pod := func(ns, node string, phase corev1.PodPhase, claim string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns}, Spec: corev1.PodSpec{NodeName: node,
			Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}},
			Status: corev1.PodStatus{Phase: phase}}
	}
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		want bool
	}{
		{"no pods", nil, false},
		{"running pod mounts it", []*corev1.Pod{pod("default", "node-1", corev1.PodRunning, "data")}, true},
		{"pending but scheduled pod mounts it", []*corev1.Pod{pod("default", "node-1", corev1.PodPending, "data")}, true},
		{"unscheduled pod holds nothing", []*corev1.Pod{pod("default", "", corev1.PodPending, "data")}, false},
		{"finished pod holds nothing", []*corev1.Pod{pod("default", "node-1", corev1.PodSucceeded, "data"), pod("default", "node-1", corev1.PodFailed, "data")}, false},
		{"another claim", []*corev1.Pod{pod("default", "node-1", corev1.PodRunning, "logs")}, false},
		{"another namespace", []*corev1.Pod{pod("other", "node-1", corev1.PodRunning, "data")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, ClaimInUse(pvc, tc.pods)) })
	}
}

func TestVolumeInUse(t *testing.T) {
	for phase, want := range map[corev1.PersistentVolumePhase]bool{
		corev1.VolumeBound: true, corev1.VolumeReleased: false, corev1.VolumeAvailable: false, corev1.VolumeFailed: false, corev1.VolumePending: false,
	} {
		assert.Equal(t, want, VolumeInUse(&corev1.PersistentVolume{Status: corev1.PersistentVolumeStatus{Phase: phase}}), phase)
	}
	assert.Equal(t, []string{"a", "b"}, removeFinalizer([]string{"a", api.PVProtectionFinalizer, "b"}, api.PVProtectionFinalizer))
}
