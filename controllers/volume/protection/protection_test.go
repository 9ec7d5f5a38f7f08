package protection

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/api"
)

func TestClaimInUse(t *testing.T) {
	pvc := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data", Namespace: "default"}}
	pod := func(ns, node string, phase api.PodPhase, claim string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: ns}, Spec: api.PodSpec{NodeName: node,
			Volumes: []api.Volume{{Name: "v", VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}},
			Status: api.PodStatus{Phase: phase}}
	}
	for _, tc := range []struct {
		name string
		pods []*api.Pod
		want bool
	}{
		{"no pods", nil, false},
		{"running pod mounts it", []*api.Pod{pod("default", "node-1", api.PodRunning, "data")}, true},
		{"pending but scheduled pod mounts it", []*api.Pod{pod("default", "node-1", api.PodPending, "data")}, true},
		{"unscheduled pod holds nothing", []*api.Pod{pod("default", "", api.PodPending, "data")}, false},
		{"finished pod holds nothing", []*api.Pod{pod("default", "node-1", api.PodSucceeded, "data"), pod("default", "node-1", api.PodFailed, "data")}, false},
		{"another claim", []*api.Pod{pod("default", "node-1", api.PodRunning, "logs")}, false},
		{"another namespace", []*api.Pod{pod("other", "node-1", api.PodRunning, "data")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, ClaimInUse(pvc, tc.pods)) })
	}
}

func TestVolumeInUse(t *testing.T) {
	for phase, want := range map[api.PersistentVolumePhase]bool{
		api.VolumeBound: true, api.VolumeReleased: false, api.VolumeAvailable: false, api.VolumeFailed: false, api.VolumePending: false,
	} {
		assert.Equal(t, want, VolumeInUse(&api.PersistentVolume{Status: api.PersistentVolumeStatus{Phase: phase}}), phase)
	}
	assert.Equal(t, []string{"a", "b"}, removeFinalizer([]string{"a", api.PVProtectionFinalizer, "b"}, api.PVProtectionFinalizer))
}
