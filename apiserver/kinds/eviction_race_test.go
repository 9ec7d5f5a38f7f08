package kinds_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/store"
)

// racingStore lets a test land a write of its own just before the next
// Update or Delete of one key reaches the store: the write an eviction
// races (a kubelet's status report arriving between the eviction's read
// and its write), made deterministic.
type racingStore struct {
	store.Interface
	mu     sync.Mutex
	suffix string
	op     string // "update" or "delete"
	skip   int
	race   func()
	fired  int
}

// before arms the race: race runs once, before the op on a key ending in
// suffix that comes after skip such ops.
func (s *racingStore) before(op, suffix string, skip int, race func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.op, s.suffix, s.skip, s.race, s.fired = op, suffix, skip, race, 0
}

func (s *racingStore) maybeRace(op, key string) {
	s.mu.Lock()
	race := s.race
	if race == nil || op != s.op || !strings.HasSuffix(key, s.suffix) {
		s.mu.Unlock()
		return
	}
	if s.skip > 0 {
		s.skip--
		s.mu.Unlock()
		return
	}
	s.race = nil // the race's own write must not race again
	s.fired++
	s.mu.Unlock()
	race()
}

func (s *racingStore) Update(ctx context.Context, key string, value []byte, pre store.Preconditions) (store.KeyValue, error) {
	s.maybeRace("update", key)
	return s.Interface.Update(ctx, key, value, pre)
}

func (s *racingStore) Delete(ctx context.Context, key string, pre store.Preconditions) (store.KeyValue, error) {
	s.maybeRace("delete", key)
	return s.Interface.Delete(ctx, key, pre)
}

// TestEvictionRetriesARacingWrite: an eviction whose pod is written by
// someone else between the eviction's read and its own write (the kubelet
// reporting status) is not answered 409: kube-apiserver's EvictionREST
// starts again from a fresh read, and the answer is what that read
// decides — the pod evicted, or, when it turned ready meanwhile, the
// budget's 429. Only a resourceVersion the client named makes the conflict
// the client's.
func TestEvictionRetriesARacingWrite(t *testing.T) {
	rs := &racingStore{Interface: openStore(t)}
	cl := newServer(t, rs)
	mkPod := func(name string, phase corev1.PodPhase, ready bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"},
			Finalizers: []string{"example.com/hold"}}, // keeps the evicted pod to look at
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
		created, err := cl.Pods().Create(bg, p)
		require.NoError(t, err)
		created.Status.Phase = phase
		created.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: readiness(ready)}}
		created, err = cl.Pods().UpdateStatus(bg, created)
		require.NoError(t, err)
		return created
	}
	// kubeletWrites is the racing writer: a status report, as the kubelet
	// sends it, that may also change the pod's phase and readiness.
	kubeletWrites := func(name string, phase corev1.PodPhase, ready bool) func() {
		return func() {
			cur, err := cl.Pods().Get(bg, "default", name)
			if err != nil {
				panic(err)
			}
			cur.Status.Phase = phase
			setReady(cur, ready)
			cur.Status.Message = "reported by the kubelet"
			if _, err := cl.Pods().UpdateStatus(bg, cur); err != nil {
				panic(err)
			}
		}
	}
	evict := func(name string, opts *metav1.DeleteOptions) error {
		ev := &policyv1.Eviction{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"},
			ObjectMeta: metav1.ObjectMeta{Name: name}, DeleteOptions: opts}
		return cl.Pods().CreateSubresource(bg, "default", name, "eviction", ev)
	}
	requireEvicted := func(name string) {
		t.Helper()
		got, err := cl.Pods().Get(bg, "default", name)
		require.NoError(t, err)
		assert.NotNil(t, got.DeletionTimestamp, "the pod is being deleted")
		assert.True(t, hasCondition(got, corev1.DisruptionTarget), "%+v", got.Status.Conditions)
		assert.Equal(t, "reported by the kubelet", got.Status.Message, "the kubelet's write is kept")
	}

	t.Run("a running pod: the kubelet writes before the mark", func(t *testing.T) {
		mkPod("running", corev1.PodRunning, true)
		rs.before("update", "/pods/default/running", 0, kubeletWrites("running", corev1.PodRunning, true))
		require.NoError(t, evict("running", nil))
		require.Equal(t, 1, rs.fired)
		requireEvicted("running")
	})

	t.Run("a pending pod: the kubelet writes between the mark and the delete", func(t *testing.T) {
		mkPod("pending", corev1.PodPending, false)
		// The graceful delete is the second write: the mark is the first.
		rs.before("update", "/pods/default/pending", 1, kubeletWrites("pending", corev1.PodPending, false))
		require.NoError(t, evict("pending", nil))
		require.Equal(t, 1, rs.fired)
		requireEvicted("pending")
	})

	// The budget allows no disruption from here on.
	two := intstr.FromInt32(2)
	pdb, err := cl.PodDisruptionBudgets().Create(bg, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}})
	require.NoError(t, err)
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: 0,
		CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 2}
	_, err = cl.PodDisruptionBudgets().UpdateStatus(bg, pdb)
	require.NoError(t, err)

	t.Run("a pending pod turns ready meanwhile: the budget decides", func(t *testing.T) {
		mkPod("starting", corev1.PodPending, false)
		rs.before("update", "/pods/default/starting", 1, kubeletWrites("starting", corev1.PodRunning, true))
		err := evict("starting", nil)
		require.Equal(t, 1, rs.fired)
		requireBudgetRefusal(t, err, "The disruption budget web needs 2 healthy pods and has 2 currently")
		got, err := cl.Pods().Get(bg, "default", "starting")
		require.NoError(t, err)
		assert.Nil(t, got.DeletionTimestamp, "a ready pod the budget guards is not deleted")
	})

	t.Run("an unready pod turns ready meanwhile: 429, come back", func(t *testing.T) {
		mkPod("sick", corev1.PodRunning, false)
		rs.before("update", "/pods/default/sick", 0, kubeletWrites("sick", corev1.PodRunning, true))
		err := evict("sick", nil)
		require.Equal(t, 1, rs.fired)
		requireBudgetRefusal(t, err, "The disruption budget web is still being processed by the server.")
		var se *api.StatusError
		require.True(t, errors.As(err, &se))
		assert.Equal(t, int32(10), se.ErrStatus.Details.RetryAfterSeconds)
		got, err := cl.Pods().Get(bg, "default", "sick")
		require.NoError(t, err)
		assert.Nil(t, got.DeletionTimestamp)
	})

	t.Run("the client's own resourceVersion: its conflict is answered", func(t *testing.T) {
		p := mkPod("pinned", corev1.PodPending, false)
		rs.before("update", "/pods/default/pinned", 0, kubeletWrites("pinned", corev1.PodPending, false))
		err := evict("pinned", &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &p.ResourceVersion}})
		require.Equal(t, 1, rs.fired)
		require.True(t, api.IsConflict(err), "%v", err)
		assert.Contains(t, err.Error(), "the ResourceVersion in the precondition ("+p.ResourceVersion+") does not match the ResourceVersion in record")
		got, err := cl.Pods().Get(bg, "default", "pinned")
		require.NoError(t, err)
		assert.Nil(t, got.DeletionTimestamp)
	})
}

// TestEvictionRetriesARacingBudgetWrite: the disruption controller writing
// the budget's status between the eviction's read of it and its decrement
// makes the eviction decrement the fresh budget, not answer 409.
func TestEvictionRetriesARacingBudgetWrite(t *testing.T) {
	rs := &racingStore{Interface: openStore(t)}
	cl := newServer(t, rs)
	p, err := cl.Pods().Create(bg, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	p.Status.Phase = corev1.PodRunning
	setReady(p, true)
	_, err = cl.Pods().UpdateStatus(bg, p)
	require.NoError(t, err)
	one := intstr.FromInt32(1)
	_, err = cl.PodDisruptionBudgets().Create(bg, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}})
	require.NoError(t, err)
	// setBudget plays the disruption controller.
	setBudget := func(allowed, healthy int32) {
		cur, err := cl.PodDisruptionBudgets().Get(bg, "default", "web")
		if err != nil {
			panic(err)
		}
		cur.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: cur.Generation, DisruptionsAllowed: allowed,
			CurrentHealthy: healthy, DesiredHealthy: 1, ExpectedPods: healthy}
		if _, err := cl.PodDisruptionBudgets().UpdateStatus(bg, cur); err != nil {
			panic(err)
		}
	}
	setBudget(2, 3)
	// The controller's write lands just before the eviction's decrement:
	// it saw a fourth pod, and allows three disruptions now.
	rs.before("update", "/poddisruptionbudgets/default/web", 0, func() { setBudget(3, 4) })
	ev := &policyv1.Eviction{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"}, ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	require.NoError(t, cl.Pods().CreateSubresource(bg, "default", "a", "eviction", ev))
	require.Equal(t, 1, rs.fired)
	got, err := cl.PodDisruptionBudgets().Get(bg, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, int32(2), got.Status.DisruptionsAllowed, "one disruption taken from the fresh budget")
	assert.Equal(t, int32(4), got.Status.CurrentHealthy)
	assert.Contains(t, got.Status.DisruptedPods, "a")
	_, err = cl.Pods().Get(bg, "default", "a")
	assert.True(t, api.IsNotFound(err), "the evicted pod (on no node) is gone: %v", err)
}

func readiness(ready bool) corev1.ConditionStatus {
	if ready {
		return corev1.ConditionTrue
	}
	return corev1.ConditionFalse
}

func setReady(p *corev1.Pod, ready bool) {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			p.Status.Conditions[i].Status = readiness(ready)
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: readiness(ready)})
}

func hasCondition(p *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// TestBindingRetriesARacingWrite: a status write landing between the
// binding's read of the pod and its write (the scheduler's own
// PodScheduled=False report, say) does not make the binding a 409.
func TestBindingRetriesARacingWrite(t *testing.T) {
	rs := &racingStore{Interface: openStore(t)}
	cl := newServer(t, rs)
	_, err := cl.Pods().Create(bg, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	rs.before("update", "/pods/default/p", 0, func() {
		cur, err := cl.Pods().Get(bg, "default", "p")
		if err != nil {
			panic(err)
		}
		cur.Status.Message = "racing"
		if _, err := cl.Pods().UpdateStatus(bg, cur); err != nil {
			panic(err)
		}
	})
	b := &corev1.Binding{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Binding"}, ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}
	require.NoError(t, cl.Pods().CreateSubresource(bg, "default", "p", "binding", b))
	require.Equal(t, 1, rs.fired)
	got, err := cl.Pods().Get(bg, "default", "p")
	require.NoError(t, err)
	assert.Equal(t, "node-1", got.Spec.NodeName)
	assert.Equal(t, "racing", got.Status.Message)
}
