package replicaset

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type podOpt func(*corev1.Pod)

func scheduled(p *corev1.Pod) { p.Spec.NodeName = "n1" }
func running(p *corev1.Pod)   { p.Status.Phase = corev1.PodRunning }
func createdAt(s int) podOpt {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(t0.Add(time.Duration(s) * time.Second)) }
}
func readySince(s int) podOpt {
	return func(p *corev1.Pod) { setReady(p, t0.Add(time.Duration(s)*time.Second)) }
}
func phase(ph corev1.PodPhase) podOpt { return func(p *corev1.Pod) { p.Status.Phase = ph } }

func setReady(p *corev1.Pod, at time.Time) {
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)})
}

func pod(name string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: metav1.NewTime(t0)},
		Status: corev1.PodStatus{Phase: corev1.PodPending}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func TestPodsToDelete(t *testing.T) {
	tests := []struct {
		name string
		pods []*corev1.Pod
		n    int
		want []string
	}{
		{"unscheduled first", []*corev1.Pod{pod("a", scheduled), pod("b"), pod("c", scheduled)}, 1, []string{"b"}},
		{"pending before running", []*corev1.Pod{pod("a", scheduled, running), pod("b", scheduled)}, 1, []string{"b"}},
		{"unknown between pending and running", []*corev1.Pod{pod("a", scheduled, running), pod("b", scheduled, phase(corev1.PodUnknown))}, 1, []string{"b"}},
		{"not ready before ready", []*corev1.Pod{pod("a", scheduled, running, readySince(0)), pod("b", scheduled, running)}, 1, []string{"b"}},
		{"newer before older", []*corev1.Pod{pod("a", createdAt(1)), pod("b", createdAt(5)), pod("c", createdAt(3))}, 2, []string{"b", "c"}},
		{"ties by name", []*corev1.Pod{pod("c"), pod("a"), pod("b")}, 2, []string{"a", "b"}},
		{"more than there are", []*corev1.Pod{pod("a")}, 3, []string{"a"}},
		{"none", []*corev1.Pod{pod("a")}, 0, []string{}},
		{"order of criteria", []*corev1.Pod{
			pod("ready-old", scheduled, running, readySince(0), createdAt(0)),
			pod("ready-new", scheduled, running, readySince(0), createdAt(9)),
			pod("running", scheduled, running, createdAt(0)),
			pod("pending", scheduled, createdAt(0)),
			pod("unscheduled", createdAt(0)),
		}, 5, []string{"unscheduled", "pending", "running", "ready-new", "ready-old"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{}
			for _, p := range PodsToDelete(tt.pods, tt.n) {
				got = append(got, p.Name)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSlowStartBatch(t *testing.T) {
	tests := []struct {
		name          string
		count, failAt int // failAt: the call (1-based) that fails, 0 none
		wantCalls     int
		wantSuccesses int
	}{
		{"all succeed", 10, 0, 10, 10},
		{"first fails", 10, 1, 1, 0},
		{"failure in the batch of two stops after it", 10, 2, 3, 2},
		{"failure in the batch of four", 10, 5, 7, 6},
		{"zero", 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			successes, err := slowStartBatch(tt.count, 1, func() error {
				calls++
				if calls == tt.failAt {
					return errors.New("boom")
				}
				return nil
			})
			assert.Equal(t, tt.wantCalls, calls)
			assert.Equal(t, tt.wantSuccesses, successes)
			assert.Equal(t, tt.failAt != 0, err != nil)
		})
	}
}

func TestCalculateStatus(t *testing.T) {
	n := int32(3)
	rs := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Replicas: &n, MinReadySeconds: 5,
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x", "tier": "t"}}}}}
	full := func(p *corev1.Pod) { p.Labels = map[string]string{"app": "x", "tier": "t", "extra": "1"} }
	pods := []*corev1.Pod{pod("a", full, readySince(0)), pod("b", readySince(8)), pod("c", full)}
	st := CalculateStatus(rs, pods, nil, t0.Add(10*time.Second))
	assert.Equal(t, appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 1}, st)

	st = CalculateStatus(rs, pods[:1], errors.New("quota"), t0)
	require.Len(t, st.Conditions, 1)
	assert.Equal(t, appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
		LastTransitionTime: metav1.NewTime(t0), Reason: "FailedCreate", Message: "quota"}, st.Conditions[0])
	rs.Status = st
	assert.Empty(t, CalculateStatus(rs, pods, nil, t0).Conditions, "success clears the failure")
}

func TestPodFromTemplate(t *testing.T) {
	tmpl := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"},
		Annotations: map[string]string{"a": "b"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
	parent := &metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "u1"}
	ref := api.NewControllerRef(parent, GroupVersionKind)
	p, err := podFromTemplate(tmpl, parent, ref)
	require.NoError(t, err)
	assert.Equal(t, "web-", p.GenerateName)
	assert.Equal(t, "ns", p.Namespace)
	assert.Equal(t, tmpl.Labels, p.Labels)
	assert.Equal(t, tmpl.Annotations, p.Annotations)
	assert.Equal(t, []metav1.OwnerReference{*ref}, p.OwnerReferences)
	p.Labels["app"] = "changed"
	assert.Equal(t, "x", tmpl.Labels["app"], "the template is not shared")

	_, err = podFromTemplate(&corev1.PodTemplateSpec{}, parent, ref)
	assert.EqualError(t, err, "unable to create pods, no labels")
}

// The debug timeline hears of every batch as it ends, in order, the
// failing one included, whether the calls of a batch run one after
// another or concurrently.
func TestSlowStartBatchReportsEachBatch(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		var sizes []int
		successes, err := slowStartBatchParallel(10, 1, parallel, func() error { return nil }, func(size int) { sizes = append(sizes, size) })
		require.NoError(t, err)
		assert.Equal(t, 10, successes)
		assert.Equal(t, []int{1, 2, 4, 3}, sizes, "parallel %v", parallel)

		sizes = nil
		var mu sync.Mutex
		calls := 0
		_, err = slowStartBatchParallel(10, 1, parallel, func() error {
			mu.Lock()
			defer mu.Unlock()
			if calls++; calls == 5 {
				return errors.New("boom")
			}
			return nil
		}, func(size int) { sizes = append(sizes, size) })
		require.Error(t, err)
		assert.Equal(t, []int{1, 2, 4}, sizes, "parallel %v: the batch with the failure is the last", parallel)
	}
}
