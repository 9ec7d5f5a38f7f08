package kinds_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
)

func TestEvictionHonoursBudget(t *testing.T) {
	cl := newServer(t, openStore(t))
	running := func(name string, phase corev1.PodPhase, ready bool) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
		created, err := cl.Pods().Create(bg, p)
		require.NoError(t, err)
		st := corev1.ConditionFalse
		if ready {
			st = corev1.ConditionTrue
		}
		created.Status.Phase = phase
		created.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
		_, err = cl.Pods().UpdateStatus(bg, created)
		require.NoError(t, err)
	}
	evict := func(name string) error {
		ev := &policyv1.Eviction{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"}, ObjectMeta: metav1.ObjectMeta{Name: name}}
		return cl.Pods().CreateSubresource(bg, "default", name, "eviction", ev)
	}
	two := intstr.FromInt32(2)
	pdb, err := cl.PodDisruptionBudgets().Create(bg, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}})
	require.NoError(t, err)
	assert.Equal(t, int64(1), pdb.Generation)
	running("a", corev1.PodRunning, true)
	running("b", corev1.PodRunning, true)

	// Not yet seen by the disruption controller: 429, still processing.
	err = evict("a")
	requireBudgetRefusal(t, err, "The disruption budget web is still being processed by the server.")

	setStatus := func(allowed, current, desired int32) {
		cur, err := cl.PodDisruptionBudgets().Get(bg, "default", "web")
		require.NoError(t, err)
		cur.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: cur.Generation, DisruptionsAllowed: allowed,
			CurrentHealthy: current, DesiredHealthy: desired, ExpectedPods: current}
		_, err = cl.PodDisruptionBudgets().UpdateStatus(bg, cur)
		require.NoError(t, err)
	}
	setStatus(0, 2, 2)
	err = evict("a")
	requireBudgetRefusal(t, err, "The disruption budget web needs 2 healthy pods and has 2 currently")
	_, err = cl.Pods().Get(bg, "default", "a")
	require.NoError(t, err, "a refused eviction deletes nothing")

	// A pod not yet running, or unready while the budget is met, is not
	// counted: it goes whatever the budget.
	running("pending", corev1.PodPending, false)
	require.NoError(t, evict("pending"))

	// One disruption allowed: the eviction takes it and records the pod.
	setStatus(1, 3, 2)
	require.NoError(t, evict("a"))
	got, err := cl.PodDisruptionBudgets().Get(bg, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, int32(0), got.Status.DisruptionsAllowed)
	assert.Contains(t, got.Status.DisruptedPods, "a")
	require.Len(t, got.Status.Conditions, 1)
	assert.Equal(t, policyv1.InsufficientPodsReason, got.Status.Conditions[0].Reason)
	err = evict("b")
	requireBudgetRefusal(t, err, "The disruption budget web does not allow evicting pods currently")

	// An unready pod may go while the budget is met (IfHealthyBudget).
	running("sick", corev1.PodRunning, false)
	setStatus(0, 2, 2)
	require.NoError(t, evict("sick"))

	// Two budgets over one pod: the eviction cannot choose.
	_, err = cl.PodDisruptionBudgets().Create(bg, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "all", Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &two, Selector: &metav1.LabelSelector{}}})
	require.NoError(t, err)
	err = evict("b")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")
}

func requireBudgetRefusal(t *testing.T, err error, cause string) {
	t.Helper()
	var se *api.StatusError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Equal(t, int32(429), se.ErrStatus.Code)
	assert.Equal(t, "Cannot evict pod as it would violate the pod's disruption budget.", se.ErrStatus.Message)
	require.NotNil(t, se.ErrStatus.Details)
	require.Len(t, se.ErrStatus.Details.Causes, 1)
	assert.Equal(t, api.DisruptionBudgetCause, se.ErrStatus.Details.Causes[0].Type)
	assert.Equal(t, cause, se.ErrStatus.Details.Causes[0].Message)
}

func TestPodDisruptionBudgetValidation(t *testing.T) {
	cl := newServer(t, openStore(t))
	one, pct, bad, neg := intstr.FromInt32(1), intstr.FromString("120%"), intstr.FromString("half"), intstr.FromInt32(-1)
	for _, tc := range []struct {
		spec policyv1.PodDisruptionBudgetSpec
		want string
	}{
		{policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, MaxUnavailable: &one}, "minAvailable and maxUnavailable cannot be both set"},
		{policyv1.PodDisruptionBudgetSpec{MinAvailable: &pct}, `spec.minAvailable: Invalid value: "120%": must not be greater than 100%`},
		{policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &bad}, `spec.maxUnavailable: Invalid value: "half": must be an integer or percentage (e.g '5%')`},
		{policyv1.PodDisruptionBudgetSpec{MinAvailable: &neg}, `spec.minAvailable: Invalid value: -1: must be greater than or equal to 0`},
	} {
		_, err := cl.PodDisruptionBudgets().Create(bg, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "default"}, Spec: tc.spec})
		require.Error(t, err)
		assert.True(t, api.IsInvalid(err), "%v", err)
		assert.Contains(t, err.Error(), tc.want)
	}
}
