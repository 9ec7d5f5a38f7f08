package daemonset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func daemonSet(opts ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default", UID: "ds-uid", Generation: 2},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:1"}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one, MaxSurge: &zero}},
		},
	}
	for _, o := range opts {
		o(ds)
	}
	return ds
}

func surge(n int32) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) {
		s, u := intstr.FromInt32(n), intstr.FromInt32(0)
		ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: &s, MaxUnavailable: &u}
	}
}

func unavailable(v intstr.IntOrString) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &v }
}

func node(name string, opts ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	for _, o := range opts {
		o(n)
	}
	return n
}

func nodes(names ...string) []*corev1.Node {
	var out []*corev1.Node
	for _, n := range names {
		out = append(out, node(n))
	}
	return out
}

// pod makes a daemon pod on a node: state "ok" (Running and Ready),
// "pending" (not yet bound), "running" (not ready), "failed", "gone"
// (being deleted); hash its template; age orders pods (higher is older).
func pod(name, nodeName, state, hash string, age int) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
		Labels:            map[string]string{"app": "agent", appsv1.ControllerRevisionHashLabelKey: hash},
		CreationTimestamp: metav1.NewTime(now.Add(-time.Duration(age) * time.Minute))}}
	p.Spec.Affinity = PinToNode(nil, nodeName)
	switch state {
	case "pending":
		p.Status.Phase = corev1.PodPending
		return p
	case "ok", "gone":
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}}
		if state == "gone" {
			t := metav1.NewTime(now)
			p.DeletionTimestamp = &t
		}
	case "running":
		p.Status.Phase = corev1.PodRunning
	case "failed":
		p.Status.Phase = corev1.PodFailed
	}
	p.Spec.NodeName = nodeName
	return p
}

func strs(actions []Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.String())
	}
	return out
}

func TestManage(t *testing.T) {
	const h = "new"
	type P = []*corev1.Pod
	ssd := func(n *corev1.Node) { n.Labels["disk"] = "ssd" }
	noExecute := func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute})
	}
	for _, tc := range []struct {
		name  string
		ds    *appsv1.DaemonSet
		nodes []*corev1.Node
		pods  P
		want  []string
	}{
		{"a pod for every node, in name order", daemonSet(), nodes("b", "a"), nil, []string{"create on a (missing)", "create on b (missing)"}},
		{"nodes with a pod are left alone", daemonSet(), nodes("a", "b"), P{pod("p1", "a", "ok", h, 1)}, []string{"create on b (missing)"}},
		{"a pending pod, not yet bound, counts for its node", daemonSet(), nodes("a"), P{pod("p1", "a", "pending", h, 1)}, nil},
		{"a terminating pod holds its node until it is gone", daemonSet(), nodes("a"), P{pod("p1", "a", "gone", h, 1)}, nil},
		{"a failed pod is deleted (recreated next sync)", daemonSet(), nodes("a"), P{pod("p1", "a", "failed", h, 1)}, []string{"delete p1 (failed)"}},
		{"two pods on a node: the oldest stays", daemonSet(), nodes("a"), P{pod("young", "a", "ok", h, 1), pod("old", "a", "ok", h, 5)}, []string{"delete young (excess)"}},
		{"nodeSelector rules a node out", daemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"} }),
			[]*corev1.Node{node("a", ssd), node("b")}, P{pod("p2", "b", "ok", h, 1)}, []string{"create on a (missing)", "delete p2 (not eligible)"}},
		{"an untolerated NoExecute taint removes the pod", daemonSet(), []*corev1.Node{node("a", noExecute)}, P{pod("p1", "a", "ok", h, 1)}, []string{"delete p1 (not eligible)"}},
		{"a pod of a gone node is left to the pod GC", daemonSet(), nodes("a"), P{pod("p1", "a", "ok", h, 1), pod("p2", "gone-node", "ok", h, 1)}, nil},
		{"surge: new and old both stay while the new one is not available", daemonSet(surge(1)), nodes("a"),
			P{pod("old", "a", "ok", "old", 5), pod("new", "a", "running", h, 1)}, nil},
		{"surge: the old one goes once the new one is available", daemonSet(surge(1)), nodes("a"),
			P{pod("old", "a", "ok", "old", 5), pod("new", "a", "ok", h, 1)}, []string{"delete old (surge)"}},
		{"surge: an old one that is not ready goes at once", daemonSet(surge(1)), nodes("a"),
			P{pod("old", "a", "running", "old", 5), pod("new", "a", "running", h, 1)}, []string{"delete old (surge)"}},
		{"surge: a third pod is excess", daemonSet(surge(1)), nodes("a"),
			P{pod("old", "a", "ok", "old", 5), pod("old2", "a", "ok", "old", 4), pod("new", "a", "running", h, 1)}, []string{"delete old2 (excess)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, strs(Manage(tc.ds, tc.nodes, tc.pods, h, now)))
		})
	}
}

func TestRollingUpdate(t *testing.T) {
	const h = "new"
	type P = []*corev1.Pod
	three := nodes("a", "b", "c")
	for _, tc := range []struct {
		name string
		ds   *appsv1.DaemonSet
		pods P
		want []string
	}{
		{"all up to date: nothing", daemonSet(), P{pod("a1", "a", "ok", h, 1), pod("b1", "b", "ok", h, 1), pod("c1", "c", "ok", h, 1)}, nil},
		{"maxUnavailable 1: one old pod at a time", daemonSet(), P{pod("a1", "a", "ok", "old", 1), pod("b1", "b", "ok", "old", 1), pod("c1", "c", "ok", "old", 1)},
			[]string{"delete a1 (update)"}},
		{"waits while a new pod is not available", daemonSet(), P{pod("a2", "a", "running", h, 1), pod("b1", "b", "ok", "old", 1), pod("c1", "c", "ok", "old", 1)}, nil},
		{"a node without a pod counts as unavailable", daemonSet(), P{pod("b1", "b", "ok", "old", 1), pod("c1", "c", "ok", "old", 1)}, nil},
		{"next one once the new pod is available", daemonSet(), P{pod("a2", "a", "ok", h, 1), pod("b1", "b", "ok", "old", 1), pod("c1", "c", "ok", "old", 1)},
			[]string{"delete b1 (update)"}},
		{"an unavailable old pod goes whatever the budget", daemonSet(), P{pod("a2", "a", "running", h, 1), pod("b1", "b", "running", "old", 1), pod("c1", "c", "ok", "old", 1)},
			[]string{"delete b1 (update)"}},
		{"maxUnavailable 2", daemonSet(unavailable(intstr.FromInt32(2))), P{pod("a1", "a", "ok", "old", 1), pod("b1", "b", "ok", "old", 1), pod("c1", "c", "ok", "old", 1)},
			[]string{"delete a1 (update)", "delete b1 (update)"}},
		{"maxUnavailable 50% of 3 rounds up to 2", daemonSet(unavailable(intstr.FromString("50%"))), P{pod("a1", "a", "ok", "old", 1), pod("b1", "b", "ok", "old", 1), pod("c1", "c", "ok", "old", 1)},
			[]string{"delete a1 (update)", "delete b1 (update)"}},
		{"surge 1: a new pod beside one old one", daemonSet(surge(1)), P{pod("a1", "a", "ok", "old", 1), pod("b1", "b", "ok", "old", 1), pod("c1", "c", "ok", "old", 1)},
			[]string{"create on a (surge)"}},
		{"surge: waits for the new pod", daemonSet(surge(1)), P{pod("a1", "a", "ok", "old", 2), pod("a2", "a", "running", h, 1), pod("b1", "b", "ok", "old", 1), pod("c1", "c", "ok", "old", 1)}, nil},
		{"surge: old goes once the new is available, and the next node surges", daemonSet(surge(1)),
			P{pod("a1", "a", "ok", "old", 2), pod("a2", "a", "ok", h, 1), pod("b1", "b", "ok", "old", 1), pod("c1", "c", "ok", "old", 1)},
			[]string{"delete a1 (update)", "create on b (surge)"}},
		{"surge: an unavailable old pod is replaced beyond the budget", daemonSet(surge(1)),
			P{pod("a1", "a", "ok", "old", 2), pod("a2", "a", "running", h, 1), pod("b1", "b", "running", "old", 1), pod("c1", "c", "ok", "old", 1)},
			[]string{"create on b (surge)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, strs(RollingUpdate(tc.ds, three, tc.pods, h, now)))
		})
	}
}

func TestUpdateLimits(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		ds                    *appsv1.DaemonSet
		desired               int
		wantSurge, wantUnavai int
	}{
		{"defaults", daemonSet(), 5, 0, 1},
		{"percent rounds up", daemonSet(unavailable(intstr.FromString("10%"))), 5, 0, 1},
		{"surge percent", daemonSet(func(ds *appsv1.DaemonSet) {
			s, u := intstr.FromString("30%"), intstr.FromInt32(0)
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: &s, MaxUnavailable: &u}
		}), 10, 3, 0},
		{"0 and 0 behaves as maxUnavailable 1", daemonSet(unavailable(intstr.FromInt32(0))), 4, 0, 1},
		{"no nodes", daemonSet(unavailable(intstr.FromInt32(0))), 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, u := UpdateLimits(tc.ds, tc.desired)
			assert.Equal(t, tc.wantSurge, s)
			assert.Equal(t, tc.wantUnavai, u)
		})
	}
}

func TestComputeStatus(t *testing.T) {
	const h = "new"
	noSchedule := func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule}, {Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}}
	}
	ns := []*corev1.Node{node("a"), node("b"), node("c"), node("d", noSchedule)}
	ds := daemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 7200 })
	collisions := int32(1)
	ds.Status.CollisionCount = &collisions
	pods := []*corev1.Pod{
		pod("a1", "a", "ok", h, 1),          // ready, not yet available (ready an hour, needs two)
		pod("b1", "b", "running", "old", 1), // scheduled, not ready, old
		pod("d1", "d", "ok", h, 1),          // on an unreachable node: misscheduled
		pod("x1", "x", "ok", h, 1),          // node gone: not counted
	}
	st := ComputeStatus(ds, ns, pods, h, now)
	assert.Equal(t, appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 2, NumberReady: 1, NumberAvailable: 0,
		UpdatedNumberScheduled: 1, NumberMisscheduled: 1, NumberUnavailable: 3, ObservedGeneration: 2, CollisionCount: &collisions}, st)

	ds.Spec.MinReadySeconds = 0
	st = ComputeStatus(ds, ns, pods, h, now)
	assert.Equal(t, int32(1), st.NumberAvailable)
	assert.Equal(t, int32(2), st.NumberUnavailable)
}
