package replicaset

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

type harness struct {
	t   *testing.T
	ctx context.Context
	env *apiservertest.Env
	rsc *ReplicaSetController
	c   *controllers.Controller
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	env := apiservertest.New(t)
	rsc, err := New(Config{Client: env.Client, Informers: detectingInformers(t), Clock: env.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	require.Len(t, rsc.Controllers(), 1)
	return &harness{t: t, ctx: context.Background(), env: env, rsc: rsc, c: rsc.Controllers()[0]}
}

// settle syncs the informers and reconciles until nothing is queued; it
// does not move the clock.
func (h *harness) settle() {
	h.t.Helper()
	for range 100 {
		require.NoError(h.t, h.c.Sync(h.ctx))
		stepped := false
		for {
			info, ok := h.c.Step(h.ctx)
			if !ok {
				break
			}
			require.NoError(h.t, info.Err, "reconcile %s", info.Key)
			stepped = true
		}
		if !stepped {
			return
		}
	}
	h.t.Fatal("controller did not settle")
}

func newRS(name string, n int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &n,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name, "tier": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

func (h *harness) createRS(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	h.t.Helper()
	out, err := h.env.Client.ReplicaSets().Create(h.ctx, rs)
	require.NoError(h.t, err)
	return out
}

func (h *harness) getRS(name string) *appsv1.ReplicaSet {
	h.t.Helper()
	rs, err := h.env.Client.ReplicaSets().Get(h.ctx, "default", name)
	require.NoError(h.t, err)
	return rs
}

func (h *harness) scale(name string, n int32) {
	h.t.Helper()
	rs := h.getRS(name)
	rs.Spec.Replicas = &n
	_, err := h.env.Client.ReplicaSets().Update(h.ctx, rs)
	require.NoError(h.t, err)
}

// pods lists the pods of the namespace, by name; active only when asked.
func (h *harness) pods(activeOnly bool) []*corev1.Pod {
	h.t.Helper()
	l, err := h.env.Client.Pods().List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	var out []*corev1.Pod
	for i := range l.Items {
		if !activeOnly || IsPodActive(l.Items[i]) {
			out = append(out, l.Items[i])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func names(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

func (h *harness) markReady(p *corev1.Pod) {
	h.t.Helper()
	cur, err := h.env.Client.Pods().Get(h.ctx, p.Namespace, p.Name)
	require.NoError(h.t, err)
	cur.Status.Phase = corev1.PodRunning
	cur.Status.Conditions = append(cur.Status.Conditions, corev1.PodCondition{
		Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(h.env.Clock.Now()),
	})
	_, err = h.env.Client.Pods().UpdateStatus(h.ctx, cur)
	require.NoError(h.t, err)
}

func (h *harness) events(reason string) []string {
	h.t.Helper()
	l, err := h.env.Client.Events().List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	var out []string
	for _, e := range l.Items {
		if e.Reason == reason {
			out = append(out, e.Message)
		}
	}
	sort.Strings(out)
	return out
}

func TestCreatesExactlyReplicasEvenWhileTheInformerLags(t *testing.T) {
	h := newHarness(t)
	rs := h.createRS(newRS("web", 3))
	require.NoError(t, h.c.Sync(h.ctx))
	info, ok := h.c.Step(h.ctx)
	require.True(t, ok)
	require.NoError(t, info.Err)
	assert.Equal(t, "default/web", info.Key)
	assert.Equal(t, "ADDED ReplicaSet default/web@"+rs.ResourceVersion, info.Cause.String())
	require.Len(t, h.pods(false), 3)

	// The cache still shows no pods: without expectations each of these
	// reconciles would create three more.
	for range 5 {
		h.c.Enqueue("default/web", controllers.Cause{Event: "test"})
		info, ok := h.c.Step(h.ctx)
		require.True(t, ok)
		// Its status write may conflict with its own earlier one (the
		// cache is stale); that only retries.
		if info.Err != nil {
			require.True(t, api.IsConflict(info.Err), info.Err)
		}
	}
	require.Len(t, h.pods(false), 3)
	add, del := h.rsc.Expectations().Pending("default/web")
	assert.Equal(t, 3, add)
	assert.Equal(t, 0, del)

	h.settle()
	pods := h.pods(false)
	require.Len(t, pods, 3)
	add, _ = h.rsc.Expectations().Pending("default/web")
	assert.LessOrEqual(t, add, 0, "the informer saw every creation")
	var msgs []string
	for _, p := range pods {
		assert.Equal(t, "web-", p.GenerateName)
		assert.True(t, strings.HasPrefix(p.Name, "web-"))
		assert.Equal(t, map[string]string{"app": "web", "tier": "web"}, p.Labels)
		ref := api.GetControllerOf(&p.ObjectMeta)
		require.NotNil(t, ref)
		assert.Equal(t, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: rs.UID,
			Controller: ref.Controller, BlockOwnerDeletion: ref.BlockOwnerDeletion}, *ref)
		assert.True(t, *ref.Controller)
		require.NotNil(t, ref.BlockOwnerDeletion)
		assert.True(t, *ref.BlockOwnerDeletion)
		msgs = append(msgs, "Created pod: "+p.Name)
	}
	assert.Equal(t, msgs, h.events(SuccessfulCreatePodReason))

	got := h.getRS("web")
	assert.Equal(t, appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ObservedGeneration: 1}, got.Status)
}

func TestDeletedPodIsReplaced(t *testing.T) {
	h := newHarness(t)
	h.createRS(newRS("web", 3))
	h.settle()
	before := h.pods(false)
	require.Len(t, before, 3)
	require.NoError(t, h.env.Client.Pods().Delete(h.ctx, "default", before[1].Name, nil))
	h.settle()
	after := h.pods(false)
	require.Len(t, after, 3)
	assert.NotContains(t, names(after), before[1].Name)
	assert.Contains(t, names(after), before[0].Name)
	assert.Contains(t, names(after), before[2].Name)
	assert.Len(t, h.events(SuccessfulCreatePodReason), 4)
}

func TestScaleUpThenDownDeletesUnscheduledPodsFirst(t *testing.T) {
	h := newHarness(t)
	h.createRS(newRS("web", 2))
	h.settle()
	h.scale("web", 5)
	h.settle()
	pods := h.pods(false)
	require.Len(t, pods, 5)

	// Two pods are scheduled, one of them running and ready.
	for _, p := range pods[1:3] {
		require.NoError(t, h.env.Client.Pods().CreateSubresource(h.ctx, "default", p.Name, "binding",
			&corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}))
	}
	h.markReady(pods[2])
	h.settle()
	assert.Equal(t, int32(1), h.getRS("web").Status.ReadyReplicas)

	h.scale("web", 1)
	h.settle()
	active := h.pods(true)
	assert.Equal(t, []string{pods[2].Name}, names(active), "the ready, scheduled pod stays")
	deleted := h.events(SuccessfulDeletePodReason)
	want := []string{"Deleted pod: " + pods[0].Name, "Deleted pod: " + pods[1].Name, "Deleted pod: " + pods[3].Name, "Deleted pod: " + pods[4].Name}
	sort.Strings(want)
	assert.Equal(t, want, deleted)
	// The bound pod is deleted gracefully: it lingers, marked, and is not
	// counted.
	all := h.pods(false)
	require.Len(t, all, 2)
	st := h.getRS("web").Status
	assert.Equal(t, int32(1), st.Replicas)
	assert.Equal(t, int32(1), st.ReadyReplicas)
	_, del := h.rsc.Expectations().Pending("default/web")
	assert.LessOrEqual(t, del, 0, "a graceful deletion counts as observed")
}

func TestAdoptsOrphansAndReleasesPodsThatStopMatching(t *testing.T) {
	h := newHarness(t)
	orphan, err := h.env.Client.Pods().Create(h.ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "stray", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	})
	require.NoError(t, err)
	rs := h.createRS(newRS("web", 2))
	h.settle()

	pods := h.pods(false)
	require.Len(t, pods, 2, "the orphan counts as one of the two")
	adopted, err := h.env.Client.Pods().Get(h.ctx, "default", "stray")
	require.NoError(t, err)
	assert.Equal(t, orphan.UID, adopted.UID)
	ref := api.GetControllerOf(&adopted.ObjectMeta)
	require.NotNil(t, ref)
	assert.Equal(t, rs.UID, ref.UID)
	st := h.getRS("web").Status
	assert.Equal(t, int32(2), st.Replicas)
	assert.Equal(t, int32(1), st.FullyLabeledReplicas, "the adopted pod lacks the template's tier label")

	// Relabel the adopted pod away: it is released and replaced.
	adopted.Labels = map[string]string{"app": "other"}
	_, err = h.env.Client.Pods().Update(h.ctx, adopted)
	require.NoError(t, err)
	h.settle()
	released, err := h.env.Client.Pods().Get(h.ctx, "default", "stray")
	require.NoError(t, err)
	assert.Nil(t, api.GetControllerOf(&released.ObjectMeta), "released")
	assert.Empty(t, released.OwnerReferences)
	assert.Len(t, h.pods(false), 3)
	assert.Equal(t, int32(2), h.getRS("web").Status.Replicas)
}

func TestPodsOfAnotherControllerAreLeftAlone(t *testing.T) {
	h := newHarness(t)
	h.createRS(newRS("web", 1))
	h.settle()
	other := newRS("web2", 1)
	other.Spec.Selector.MatchLabels = map[string]string{"tier": "web"} // overlaps web's pods
	other.Spec.Template.Labels = map[string]string{"app": "web2", "tier": "web"}
	h.createRS(other)
	h.settle()
	assert.Len(t, h.pods(false), 2)
	for _, p := range h.pods(false) {
		assert.Equal(t, strings.TrimSuffix(p.GenerateName, "-"), api.GetControllerOf(&p.ObjectMeta).Name)
	}
}

func TestStatusCountsReadyAndAvailable(t *testing.T) {
	h := newHarness(t)
	rs := newRS("web", 3)
	rs.Spec.MinReadySeconds = 10
	h.createRS(rs)
	h.settle()
	pods := h.pods(false)
	h.markReady(pods[0])
	h.markReady(pods[1])
	h.settle()
	st := h.getRS("web").Status
	assert.Equal(t, int32(3), st.Replicas)
	assert.Equal(t, int32(2), st.ReadyReplicas)
	assert.Equal(t, int32(0), st.AvailableReplicas, "not ready for minReadySeconds yet")

	h.markReady(pods[2])
	h.settle()
	next, ok := h.c.NextDeadline()
	require.True(t, ok, "the controller looks again when the pods become available")
	assert.False(t, next.After(h.env.Clock.Now().Add(12*time.Second)))
	h.env.Clock.SetTime(next)
	h.settle()
	st = h.getRS("web").Status
	assert.Equal(t, int32(3), st.ReadyReplicas)
	assert.Equal(t, int32(3), st.AvailableReplicas)
}

func TestStatusIsWrittenOnlyWhenItChanges(t *testing.T) {
	h := newHarness(t)
	h.createRS(newRS("web", 1))
	h.settle()
	rv := h.getRS("web").ResourceVersion
	h.c.Enqueue("default/web", controllers.Cause{Event: "test"})
	h.settle()
	assert.Equal(t, rv, h.getRS("web").ResourceVersion)

	h.scale("web", 1) // no change to the spec: nothing to write
	rs := h.getRS("web")
	rs.Labels = map[string]string{"x": "y"}
	_, err := h.env.Client.ReplicaSets().Update(h.ctx, rs)
	require.NoError(t, err)
	h.settle()
	assert.Equal(t, int64(1), h.getRS("web").Status.ObservedGeneration)
	h.scale("web", 2)
	h.settle()
	assert.Equal(t, int64(2), h.getRS("web").Status.ObservedGeneration)
}

func TestDeletedReplicaSetForgetsExpectations(t *testing.T) {
	h := newHarness(t)
	h.createRS(newRS("web", 2))
	require.NoError(t, h.c.Sync(h.ctx))
	_, ok := h.c.Step(h.ctx)
	require.True(t, ok)
	add, _ := h.rsc.Expectations().Pending("default/web")
	require.Equal(t, 2, add)
	require.NoError(t, h.env.Client.ReplicaSets().Delete(h.ctx, "default", "web", nil))
	h.settle()
	add, _ = h.rsc.Expectations().Pending("default/web")
	assert.Equal(t, 0, add)
}

// detectingInformers builds private informers watched by a cache mutation
// detector, checked when the test ends: the controller must copy what it
// changes.
func detectingInformers(t *testing.T) *cache.Factory {
	d := cache.NewMutationDetector()
	t.Cleanup(func() {
		if err := d.Check(); err != nil {
			t.Error(err)
		}
	})
	return cache.NewFactory(cache.FactoryConfig{Detector: d})
}

// debugRecords keeps the messages and attributes a logger writes at Debug.
type debugRecords struct {
	mu   sync.Mutex
	msgs []string
}

func (d *debugRecords) Enabled(context.Context, slog.Level) bool { return true }

func (d *debugRecords) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "duration" {
			msg += " " + a.Key + "=" + a.Value.String()
		}
		return true
	})
	d.mu.Lock()
	d.msgs = append(d.msgs, msg)
	d.mu.Unlock()
	return nil
}

func (d *debugRecords) WithAttrs([]slog.Attr) slog.Handler { return d }
func (d *debugRecords) WithGroup(string) slog.Handler      { return d }

func (d *debugRecords) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.msgs
	d.msgs = nil
	return out
}

// At Debug the controller logs the timeline of a scale-up, as the real
// one logs at V(4): the burst, each slow-start batch, the end of the sync,
// and the moment its informer has shown every pod it created (when the
// next burst may start).
func TestDebugLogIsTheTimelineOfAScaleUp(t *testing.T) {
	env := apiservertest.New(t)
	logs := &debugRecords{}
	rsc, err := New(Config{Client: env.Client, Informers: detectingInformers(t), Clock: env.Clock, Mode: runmode.Step,
		Logger: slog.New(logs)})
	require.NoError(t, err)
	h := &harness{t: t, ctx: context.Background(), env: env, rsc: rsc, c: rsc.Controllers()[0]}
	h.createRS(newRS("web", 5))
	require.NoError(t, h.c.Sync(h.ctx))
	_, ok := h.c.Step(h.ctx)
	require.True(t, ok)
	assert.Equal(t, []string{
		"Too few replicas replicaSet=default/web need=5 creating=5",
		"Slow-start batch done replicaSet=default/web size=1",
		"Slow-start batch done replicaSet=default/web size=2",
		"Slow-start batch done replicaSet=default/web size=2",
		"Finished syncing kind=ReplicaSet key=default/web",
	}, logs.take())

	// The informer shows the five pods: the last of them fulfils the
	// expectations, once.
	require.NoError(t, h.c.Sync(h.ctx))
	var fulfilled []string
	for _, m := range logs.take() {
		if strings.HasPrefix(m, "Controller expectations") {
			fulfilled = append(fulfilled, m)
		}
	}
	assert.Equal(t, []string{"Controller expectations fulfilled replicaSet=default/web"}, fulfilled)
	h.settle()
	assert.Len(t, h.pods(false), 5)
}
