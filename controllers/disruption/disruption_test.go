package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func pod(name string, ready bool, owner string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"app": "web"}}}
	p.Status.Phase = corev1.PodRunning
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
	if owner != "" {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: owner, UID: types.UID(owner), Controller: &yes}}
	}
	return p
}

func budget(minAvailable, maxUnavailable *intstr.IntOrString) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Generation: 3},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
}

func ptr(v intstr.IntOrString) *intstr.IntOrString { return &v }

// scales: ReplicaSet "rs" has 4 replicas.
func scales(_ string, ref *metav1.OwnerReference) (string, int32, bool) {
	if ref.Kind == "ReplicaSet" && ref.Name == "rs" {
		return "rs", 4, true
	}
	return "", 0, false
}

func TestStatus(t *testing.T) {
	three := []*corev1.Pod{pod("a", true, "rs"), pod("b", true, "rs"), pod("c", true, "rs")}
	for _, tc := range []struct {
		name                                string
		pdb                                 *policyv1.PodDisruptionBudget
		pods                                []*corev1.Pod
		healthy, desired, expected, allowed int32
		reason, message                     string
	}{
		{"minAvailable int counts the pods present", budget(ptr(intstr.FromInt32(2)), nil), three, 3, 2, 3, 1, policyv1.SufficientPodsReason, ""},
		{"minAvailable met exactly allows none", budget(ptr(intstr.FromInt32(3)), nil), three, 3, 3, 3, 0, policyv1.InsufficientPodsReason, ""},
		{"unready pods are not healthy", budget(ptr(intstr.FromInt32(1)), nil),
			[]*corev1.Pod{pod("a", false, "rs"), pod("b", true, "rs")}, 1, 1, 2, 0, policyv1.InsufficientPodsReason, ""},
		{"maxUnavailable uses the controller's scale", budget(nil, ptr(intstr.FromInt32(1))), three, 3, 3, 4, 0, policyv1.InsufficientPodsReason, ""},
		{"maxUnavailable percent rounds up", budget(nil, ptr(intstr.FromString("50%"))), three, 3, 2, 4, 1, policyv1.SufficientPodsReason, ""},
		{"minAvailable percent rounds up", budget(ptr(intstr.FromString("50%")), nil), three, 3, 2, 4, 1, policyv1.SufficientPodsReason, ""},
		{"a pod without controller fails the sync", budget(nil, ptr(intstr.FromInt32(1))),
			[]*corev1.Pod{pod("bare", true, "")}, 0, 0, 0, 0, policyv1.SyncFailedReason, `found no controller ref for pod "bare"`},
		{"a pod of an unknown controller fails the sync", budget(ptr(intstr.FromString("10%")), nil),
			[]*corev1.Pod{pod("x", true, "other")}, 0, 0, 0, 0, policyv1.SyncFailedReason, `found no controllers for pod "x"`},
		{"no pods, nothing allowed", budget(ptr(intstr.FromInt32(0)), nil), nil, 0, 0, 0, 0, policyv1.InsufficientPodsReason, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _ := Status(tc.pdb, tc.pods, scales, now)
			assert.Equal(t, []int32{tc.healthy, tc.desired, tc.expected, tc.allowed},
				[]int32{st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods, st.DisruptionsAllowed})
			assert.Equal(t, int64(3), st.ObservedGeneration)
			if assert.Len(t, st.Conditions, 1) {
				c := st.Conditions[0]
				assert.Equal(t, policyv1.DisruptionAllowedCondition, c.Type)
				assert.Equal(t, tc.reason, c.Reason)
				assert.Equal(t, tc.message, c.Message)
				assert.Equal(t, tc.allowed > 0, c.Status == metav1.ConditionTrue)
			}
		})
	}
}

func TestStatusDisruptedPods(t *testing.T) {
	pdb := budget(ptr(intstr.FromInt32(1)), nil)
	pdb.Status.DisruptedPods = map[string]metav1.Time{
		"a":    metav1.NewTime(now.Add(-30 * time.Second)), // evicted, not yet deleted: not healthy
		"b":    metav1.NewTime(now.Add(-3 * time.Minute)),  // expired: healthy again
		"gone": metav1.NewTime(now.Add(-10 * time.Second)), // no such pod: forgotten
	}
	deleting := pod("c", true, "rs")
	deleting.DeletionTimestamp = &metav1.Time{Time: now}
	pods := []*corev1.Pod{pod("a", true, "rs"), pod("b", true, "rs"), deleting}
	st, recheck := Status(pdb, pods, scales, now)
	assert.Equal(t, map[string]metav1.Time{"a": pdb.Status.DisruptedPods["a"]}, st.DisruptedPods)
	assert.Equal(t, 90*time.Second, recheck, "the entry of a expires two minutes after the eviction")
	assert.Equal(t, int32(1), st.CurrentHealthy, "only b: a is disrupted, c is being deleted")
	assert.Equal(t, int32(0), st.DisruptionsAllowed)
}

func TestStatusKeepsTransitionTime(t *testing.T) {
	pdb := budget(ptr(intstr.FromInt32(1)), nil)
	pods := []*corev1.Pod{pod("a", true, "rs"), pod("b", true, "rs")}
	st, _ := Status(pdb, pods, scales, now)
	pdb.Status = st
	later, _ := Status(pdb, pods, scales, now.Add(time.Hour))
	assert.Equal(t, st.Conditions[0].LastTransitionTime, later.Conditions[0].LastTransitionTime)
	pods[1] = pod("b", false, "rs")
	changed, _ := Status(pdb, pods, scales, now.Add(time.Hour))
	assert.Equal(t, now.Add(time.Hour), changed.Conditions[0].LastTransitionTime.Time)
}
