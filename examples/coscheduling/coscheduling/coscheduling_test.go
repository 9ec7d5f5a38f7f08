package coscheduling

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/scheduler"
)

// fakeHandle is the framework as the plugin sees it: nodes with pods,
// and pods waiting in Permit.
type fakeHandle struct {
	nodes   []*scheduler.NodeInfo
	waiting []*fakeWaiting
}

func (h *fakeHandle) ClientSet() *client.Client { return nil }
func (h *fakeHandle) SnapshotSharedLister() scheduler.NodeInfoLister {
	return lister(h.nodes)
}
func (h *fakeHandle) GetWaitingPod(types.UID) scheduler.WaitingPod { return nil }
func (h *fakeHandle) IterateOverWaitingPods(f func(scheduler.WaitingPod)) {
	for _, w := range h.waiting {
		f(w)
	}
}
func (h *fakeHandle) RejectWaitingPod(types.UID) bool { return false }

type lister []*scheduler.NodeInfo

func (l lister) List() []*scheduler.NodeInfo { return l }

type fakeWaiting struct {
	pod               *corev1.Pod
	allowed, rejected []string
}

func (w *fakeWaiting) GetPod() *corev1.Pod         { return w.pod }
func (w *fakeWaiting) NodeName() string            { return w.pod.Spec.NodeName }
func (w *fakeWaiting) GetPendingPlugins() []string { return []string{Name} }
func (w *fakeWaiting) Allow(plugin string)         { w.allowed = append(w.allowed, plugin) }
func (w *fakeWaiting) Reject(plugin, msg string)   { w.rejected = append(w.rejected, plugin+": "+msg) }

func pod(name, group, minAvailable string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(name), Labels: map[string]string{}, Annotations: map[string]string{}}}
	if group != "" {
		p.Labels[PodGroupLabel] = group
	}
	if minAvailable != "" {
		p.Annotations[MinAvailableAnnotation] = minAvailable
	}
	return p
}

// node is a NodeInfo holding pods.
func node(name string, pods ...*corev1.Pod) *scheduler.NodeInfo {
	ni := scheduler.NewNodeInfo(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
	for _, p := range pods {
		ni.AddPod(scheduler.NewPodInfo(p))
	}
	return ni
}

func newPlugin(t *testing.T, h scheduler.Handle, args runtime.Object) *Coscheduling {
	t.Helper()
	p, err := New(args, h)
	require.NoError(t, err)
	return p.(*Coscheduling)
}

func TestPermit(t *testing.T) {
	ctx := context.Background()
	a, b, c := pod("a", "g", "3"), pod("b", "g", "3"), pod("c", "g", "3")
	other := pod("x", "other", "3")
	h := &fakeHandle{}
	p := newPlugin(t, h, nil)

	// a alone on a node (assumed there before Permit): it waits.
	h.nodes = []*scheduler.NodeInfo{node("n1", a), node("n2", other)}
	st, timeout := p.Permit(ctx, nil, scheduler.NewPodInfo(a), "n1")
	assert.True(t, st.IsWait(), st.Message())
	assert.Equal(t, DefaultPermitWaitingTime, timeout)
	assert.Equal(t, `pod group "g": 1 of 3 members placed`, st.Message())

	// c makes three: every waiting member of g is allowed, not x's group.
	wa, wb, wx := &fakeWaiting{pod: a}, &fakeWaiting{pod: b}, &fakeWaiting{pod: other}
	h.waiting = []*fakeWaiting{wa, wb, wx}
	h.nodes = []*scheduler.NodeInfo{node("n1", a, b), node("n2", c, other)}
	st, _ = p.Permit(ctx, nil, scheduler.NewPodInfo(c), "n2")
	assert.True(t, st.IsSuccess(), st.Message())
	assert.Equal(t, []string{Name}, wa.allowed)
	assert.Equal(t, []string{Name}, wb.allowed)
	assert.Empty(t, wx.allowed)

	// A pod of another namespace with the same group name is not counted.
	elsewhere := pod("e", "g", "2")
	elsewhere.Namespace = "other"
	h.nodes = []*scheduler.NodeInfo{node("n1", a), node("n2", elsewhere)}
	st, _ = p.Permit(ctx, nil, scheduler.NewPodInfo(elsewhere), "n2")
	assert.True(t, st.IsWait())

	// No group: permitted at once. A bad minimum: rejected.
	st, _ = p.Permit(ctx, nil, scheduler.NewPodInfo(pod("free", "", "")), "n1")
	assert.True(t, st.IsSuccess())
	st, _ = p.Permit(ctx, nil, scheduler.NewPodInfo(pod("bad", "g", "zero")), "n1")
	assert.Equal(t, scheduler.UnschedulableAndUnresolvable, st.Code())
	assert.Contains(t, st.Message(), `annotation scheduling.x-k8s.io/min-available="zero" is not a positive number`)
	// A group without the annotation needs one member: itself.
	h.nodes = []*scheduler.NodeInfo{node("n1", pod("solo", "s", ""))}
	st, _ = p.Permit(ctx, nil, scheduler.NewPodInfo(pod("solo", "s", "")), "n1")
	assert.True(t, st.IsSuccess())
}

// A member unreserved rejects the other waiting members of its group.
func TestUnreserveRejectsTheGroup(t *testing.T) {
	a, b, x := pod("a", "g", "3"), pod("b", "g", "3"), pod("x", "other", "2")
	wa, wb, wx := &fakeWaiting{pod: a}, &fakeWaiting{pod: b}, &fakeWaiting{pod: x}
	h := &fakeHandle{waiting: []*fakeWaiting{wa, wb, wx}}
	p := newPlugin(t, h, nil)
	p.Unreserve(context.Background(), nil, scheduler.NewPodInfo(a), "n1")
	assert.Empty(t, wa.rejected, "not itself")
	assert.Equal(t, []string{`Coscheduling: pod group "g": member a gave its node back`}, wb.rejected)
	assert.Empty(t, wx.rejected)
}

func TestArgs(t *testing.T) {
	p := newPlugin(t, &fakeHandle{}, &runtime.Unknown{Raw: []byte(`{"permitWaitingTimeSeconds": 5}`)})
	assert.Equal(t, 5*time.Second, p.timeout)
	_, err := New(&runtime.Unknown{Raw: []byte(`{"permitWaitingTimeSeconds": 0}`)}, &fakeHandle{})
	assert.EqualError(t, err, "Coscheduling args: permitWaitingTimeSeconds must be positive, got 0")
	_, err = New(&runtime.Unknown{Raw: []byte(`{`)}, &fakeHandle{})
	assert.ErrorContains(t, err, "decoding Coscheduling args")
}
