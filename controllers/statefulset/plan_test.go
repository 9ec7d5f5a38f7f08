package statefulset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
)

func set(replicas int32, policy appsv1.PodManagementPolicyType, partition int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 3},
		Spec: appsv1.StatefulSetSpec{
			Replicas: &replicas, PodManagementPolicy: policy, ServiceName: "nginx",
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: &partition}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
}

// pod makes web-<ord> in a state: "ok" Running and Ready, "pending",
// "running" (not ready), "gone" (terminating), "failed"; rev is its revision.
func pod(name, state, rev string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
		Labels: map[string]string{"app": "web", appsv1.ControllerRevisionHashLabelKey: rev}}}
	switch state {
	case "ok", "gone":
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		if state == "gone" {
			now := metav1.NewTime(time.Unix(0, 0))
			p.DeletionTimestamp = &now
		}
	case "pending":
		p.Status.Phase = corev1.PodPending
	case "running":
		p.Status.Phase = corev1.PodRunning
	case "failed":
		p.Status.Phase = corev1.PodFailed
	}
	return p
}

func TestOrdinal(t *testing.T) {
	s := set(1, "", 0)
	for _, tc := range []struct {
		name string
		ord  int
		ok   bool
	}{
		{"web-0", 0, true}, {"web-12", 12, true}, {"web-", 0, false}, {"web", 0, false},
		{"web-01", 0, false}, {"web-x", 0, false}, {"webby-1", 0, false}, {"web--1", 0, false},
		{"web-1-2", 0, false}, {"other-1", 0, false},
	} {
		ord, ok := Ordinal(s, tc.name)
		assert.Equal(t, tc.ok, ok, tc.name)
		assert.Equal(t, tc.ord, ord, tc.name)
	}
}

func TestPlan(t *testing.T) {
	const cur, upd = "web-old", "web-new"
	type P = []*corev1.Pod
	for _, tc := range []struct {
		name string
		set  *appsv1.StatefulSet
		pods P
		cur  string
		want []string
	}{
		{"empty set creates web-0 only", set(3, "", 0), nil, upd, []string{"create web-0 (missing)"}},
		{"waits while web-0 is pending", set(3, "", 0), P{pod("web-0", "pending", upd)}, upd, nil},
		{"waits while web-0 is running but not ready", set(3, "", 0), P{pod("web-0", "running", upd)}, upd, nil},
		{"creates web-1 once web-0 is Running and Ready", set(3, "", 0), P{pod("web-0", "ok", upd)}, upd, []string{"create web-1 (missing)"}},
		{"a hole is filled first", set(3, "", 0), P{pod("web-0", "ok", upd), pod("web-2", "ok", upd)}, upd, []string{"create web-1 (missing)"}},
		{"a terminating pod is waited for", set(3, "", 0), P{pod("web-0", "gone", upd), pod("web-1", "ok", upd)}, upd, nil},
		{"a failed pod is deleted to be recreated", set(2, "", 0), P{pod("web-0", "failed", upd), pod("web-1", "ok", upd)}, upd, []string{"delete web-0 (failed)"}},
		{"parallel creates every missing pod", set(3, appsv1.ParallelPodManagement, 0), P{pod("web-1", "pending", upd)}, upd,
			[]string{"create web-0 (missing)", "create web-2 (missing)"}},
		{"scale down removes the highest ordinal first", set(1, "", 0), P{pod("web-0", "ok", upd), pod("web-1", "ok", upd), pod("web-2", "ok", upd)}, upd,
			[]string{"delete web-2 (scale down)"}},
		{"scale down waits for the terminating one", set(1, "", 0), P{pod("web-0", "ok", upd), pod("web-1", "ok", upd), pod("web-2", "gone", upd)}, upd, nil},
		{"scale down waits for an unhealthy replica", set(1, "", 0), P{pod("web-0", "running", upd), pod("web-1", "ok", upd)}, upd, nil},
		{"parallel scale down removes all at once", set(1, appsv1.ParallelPodManagement, 0), P{pod("web-0", "ok", upd), pod("web-1", "ok", upd), pod("web-2", "ok", upd)}, upd,
			[]string{"delete web-2 (scale down)", "delete web-1 (scale down)"}},
		{"rolling update starts at the highest ordinal", set(3, "", 0), P{pod("web-0", "ok", cur), pod("web-1", "ok", cur), pod("web-2", "ok", cur)}, cur,
			[]string{"delete web-2 (update)"}},
		{"rolling update waits for the new pod", set(3, "", 0), P{pod("web-0", "ok", cur), pod("web-1", "ok", cur), pod("web-2", "pending", upd)}, cur, nil},
		{"rolling update goes on down", set(3, "", 0), P{pod("web-0", "ok", cur), pod("web-1", "ok", cur), pod("web-2", "ok", upd)}, cur,
			[]string{"delete web-1 (update)"}},
		{"partition keeps lower ordinals", set(3, "", 2), P{pod("web-0", "ok", cur), pod("web-1", "ok", cur), pod("web-2", "ok", upd)}, cur, nil},
		{"below the partition a new pod gets the current revision", set(3, "", 2), P{pod("web-1", "ok", cur), pod("web-2", "ok", upd)}, cur,
			[]string{"create web-0 (missing)"}},
		{"foreign names are ignored", set(1, "", 0), P{pod("web-0", "ok", upd), pod("web-x", "ok", upd), pod("webby-3", "ok", upd)}, upd, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Plan(tc.set, tc.pods, tc.cur, upd)
			var s []string
			for _, a := range got {
				s = append(s, a.String())
			}
			assert.Equal(t, tc.want, s)
		})
	}
	t.Run("revision of a created pod", func(t *testing.T) {
		got := Plan(set(3, "", 2), []*corev1.Pod{pod("web-1", "ok", cur), pod("web-2", "ok", upd)}, cur, upd)
		assert.Equal(t, cur, got[0].Revision)
		got = Plan(set(3, "", 0), nil, cur, upd)
		assert.Equal(t, upd, got[0].Revision)
	})
}

func TestNewPodIdentity(t *testing.T) {
	s := set(3, "", 0)
	s.UID = "uid-1"
	p := NewPod(s, &s.Spec.Template, 2, "web-abc", api.NewControllerRef(&s.ObjectMeta, GroupVersionKind))
	assert.Equal(t, "web-2", p.Name)
	assert.Equal(t, "web-2", p.Spec.Hostname)
	assert.Equal(t, "nginx", p.Spec.Subdomain)
	assert.Equal(t, map[string]string{"app": "web", appsv1.StatefulSetPodNameLabel: "web-2", appsv1.PodIndexLabel: "2",
		appsv1.ControllerRevisionHashLabelKey: "web-abc"}, p.Labels)
	assert.Equal(t, types.UID("uid-1"), api.GetControllerOf(&p.ObjectMeta).UID)
	assert.NotContains(t, s.Spec.Template.Labels, appsv1.StatefulSetPodNameLabel, "the template is not changed")
}

func TestRevisionFollowsTheTemplate(t *testing.T) {
	a, b := set(3, "", 0), set(5, "", 0)
	assert.Equal(t, Revision(a), Revision(b), "replicas are not part of the revision")
	b.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	assert.NotEqual(t, Revision(a), Revision(b))
	assert.Regexp(t, `^web-[a-z0-9]+$`, Revision(a))
}

func TestComputeStatus(t *testing.T) {
	s := set(3, "", 0)
	now := time.Unix(100, 0)
	st := ComputeStatus(s, []*corev1.Pod{pod("web-0", "ok", "old"), pod("web-1", "ok", "new"), pod("web-2", "pending", "new"), pod("web-3", "gone", "old")}, "old", "new", now)
	assert.Equal(t, appsv1.StatefulSetStatus{ObservedGeneration: 3, Replicas: 4, ReadyReplicas: 3, AvailableReplicas: 3,
		CurrentReplicas: 1, UpdatedReplicas: 2, CurrentRevision: "old", UpdateRevision: "new"}, st)
	st = ComputeStatus(s, []*corev1.Pod{pod("web-0", "ok", "new"), pod("web-1", "ok", "new")}, "old", "new", now)
	assert.Equal(t, "new", st.CurrentRevision, "a finished rolling update makes the new revision current")
	assert.Equal(t, int32(2), st.CurrentReplicas)
}
