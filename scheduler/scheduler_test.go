package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// env is an API server and a scheduler on it, driven in step mode.
type env struct {
	*apiservertest.Env
	t     testing.TB
	ctx   context.Context
	sched *Scheduler
	ctrl  *controllers.Controller
}

func newEnv(t *testing.T, seed uint64) *env {
	t.Helper()
	e := apiservertest.New(t)
	s, err := New(Config{Client: e.Client, Clock: e.Clock, Mode: runmode.Step, Rand: rand.New(rand.NewPCG(seed, seed))})
	require.NoError(t, err)
	cs := s.Controllers()
	require.Len(t, cs, 1)
	require.Equal(t, "scheduler", cs[0].Name())
	return &env{Env: e, t: t, ctx: context.Background(), sched: s, ctrl: cs[0]}
}

// newMeteredEnv is newEnv with cfg (its profiles), the scheduler's
// metrics counted in a registry of their own.
func newMeteredEnv(t *testing.T, cfg Config) (*env, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	require.NoError(t, err)
	base := apiservertest.New(t)
	cfg.Client, cfg.Clock, cfg.Mode, cfg.Rand, cfg.Metrics = base.Client, base.Clock, runmode.Step, rand.New(rand.NewPCG(1, 1)), m
	s, err := New(cfg)
	require.NoError(t, err)
	return &env{Env: base, t: t, ctx: t.Context(), sched: s, ctrl: s.Controllers()[0]}, reg
}

// run syncs and steps until nothing is ready (the clock does not move) and
// returns the steps.
func (e *env) run() []controllers.StepInfo {
	e.t.Helper()
	var steps []controllers.StepInfo
	for range 1000 {
		require.NoError(e.t, e.ctrl.Sync(e.ctx))
		info, ok := e.ctrl.Step(e.ctx)
		if !ok {
			return steps
		}
		require.NoError(e.t, info.Err, "reconcile of %s", info.Key)
		steps = append(steps, info)
	}
	e.t.Fatal("the scheduler never went quiet")
	return nil
}

// createNode registers a Ready node as a kubelet would.
func (e *env) createNode(name, cpu, mem string) *corev1.Node {
	e.t.Helper()
	n := testNode(name)
	n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse(cpu)
	n.Status.Allocatable[corev1.ResourceMemory] = resource.MustParse(mem)
	n.Status.Capacity = n.Status.Allocatable
	status := n.Status
	created, err := e.Client.Nodes().Create(e.ctx, n)
	require.NoError(e.t, err)
	if len(created.Status.Allocatable) == 0 {
		created.Status = status
		created, err = e.Client.Nodes().UpdateStatus(e.ctx, created)
		require.NoError(e.t, err)
	}
	return created
}

func (e *env) createPod(p *corev1.Pod) *corev1.Pod {
	e.t.Helper()
	created, err := e.Client.Pods().Create(e.ctx, p)
	require.NoError(e.t, err)
	return created
}

func (e *env) pod(name string) *corev1.Pod {
	e.t.Helper()
	p, err := e.Client.Pods().Get(e.ctx, "default", name)
	require.NoError(e.t, err)
	return p
}

// events lists the events about the pod name, in name order.
func (e *env) events(name string) []*corev1.Event {
	e.t.Helper()
	l, err := e.Client.Events().List(e.ctx, "default", client.ListOptions{})
	require.NoError(e.t, err)
	var out []*corev1.Event
	for _, ev := range l.Items {
		if ev.InvolvedObject.Name == name && ev.InvolvedObject.Kind == "Pod" {
			out = append(out, ev)
		}
	}
	return out
}

func condition(p *corev1.Pod, typ corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func threeNodes(e *env) {
	for i := 1; i <= 3; i++ {
		e.createNode(fmt.Sprintf("node-%d", i), "4", "8Gi")
	}
}

func TestSchedulesAndSpreadsPodsOfOneController(t *testing.T) {
	e := newEnv(t, 1)
	threeNodes(e)
	for i := range 6 {
		e.createPod(testPod(fmt.Sprintf("web-%d", i), "250m", "256Mi", ownedBy("rs-uid")))
	}
	steps := e.run()
	assert.Len(t, steps, 6, "one cycle per pod")

	perNode := map[string]int{}
	for i := range 6 {
		name := fmt.Sprintf("web-%d", i)
		p := e.pod(name)
		require.NotEmpty(t, p.Spec.NodeName, "%s is bound", name)
		perNode[p.Spec.NodeName]++
		c := condition(p, corev1.PodScheduled)
		require.NotNil(t, c)
		assert.Equal(t, corev1.ConditionTrue, c.Status)
		evs := e.events(name)
		require.Len(t, evs, 1)
		assert.Equal(t, "Scheduled", evs[0].Reason)
		assert.Equal(t, "Normal", evs[0].Type)
		assert.Equal(t, "default-scheduler", evs[0].Source.Component)
		assert.Equal(t, fmt.Sprintf("Successfully assigned default/%s to %s", name, p.Spec.NodeName), evs[0].Message)
	}
	assert.Equal(t, map[string]int{"node-1": 2, "node-2": 2, "node-3": 2}, perNode)

	d := e.sched.LastDecision()
	assert.Equal(t, uint64(6), d.Cycle)
	assert.Equal(t, "default/web-5", d.Pod)
	assert.Len(t, d.Nodes, 3)
	assert.Equal(t, e.pod("web-5").Spec.NodeName, d.Chosen)
	assert.Contains(t, d.String(), d.Chosen+": score ")
}

func TestPodThatFitsNowhereWaitsForABigNode(t *testing.T) {
	e := newEnv(t, 1)
	threeNodes(e)
	e.createPod(testPod("huge", "64", "1Gi"))
	steps := e.run()
	require.Len(t, steps, 1, "one failed cycle, and our own status update does not wake the pod")
	assert.Equal(t, "ADDED Pod default/huge", steps[0].Cause.String()[:len("ADDED Pod default/huge")])

	const msg = "0/3 nodes are available: 3 Insufficient cpu."
	p := e.pod("huge")
	assert.Empty(t, p.Spec.NodeName)
	c := condition(p, corev1.PodScheduled)
	require.NotNil(t, c)
	assert.Equal(t, corev1.ConditionFalse, c.Status)
	assert.Equal(t, "Unschedulable", c.Reason)
	assert.Equal(t, msg, c.Message)
	assert.Equal(t, apiservertest.Start, c.LastTransitionTime.Time.UTC())
	evs := e.events("huge")
	require.Len(t, evs, 1)
	assert.Equal(t, "FailedScheduling", evs[0].Reason)
	assert.Equal(t, "Warning", evs[0].Type)
	assert.Equal(t, msg, evs[0].Message)
	assert.Equal(t, "node-1: Insufficient cpu | node-2: Insufficient cpu | node-3: Insufficient cpu", e.sched.LastDecision().String())

	// The safety net: a retry after five minutes, which fails the same way.
	next, ok := e.ctrl.NextDeadline()
	require.True(t, ok)
	assert.Equal(t, DefaultUnschedulableRetry, next.Sub(e.Clock.Now()))

	// A node bigger than the pod: its ADDED event wakes the pod.
	e.createNode("big", "128", "256Gi")
	steps = e.run()
	require.Len(t, steps, 1, "woken at once, before the clock moved")
	assert.Equal(t, apiservertest.Start, e.Clock.Now())
	p = e.pod("huge")
	assert.Equal(t, "big", p.Spec.NodeName)
	assert.Equal(t, corev1.ConditionTrue, condition(p, corev1.PodScheduled).Status)
	evs = e.events("huge")
	require.Len(t, evs, 2)
	reasons := []string{evs[0].Reason, evs[1].Reason}
	assert.ElementsMatch(t, []string{"FailedScheduling", "Scheduled"}, reasons)
	// cpu 64 of 128 left → 50, memory 255Gi of 256Gi left → 99: 74; no
	// controller and no constraints, so no spreading score.
	assert.Equal(t, "big: score 74 (chosen) | node-1: Insufficient cpu | node-2: Insufficient cpu | node-3: Insufficient cpu", e.sched.LastDecision().String())

	// The event-driven retry replaced the safety-net timer.
	_, ok = e.ctrl.NextDeadline()
	assert.False(t, ok)
}

func TestSafetyNetRetryCountsTheEvent(t *testing.T) {
	e := newEnv(t, 1)
	threeNodes(e)
	e.createPod(testPod("huge", "64", ""))
	e.run()
	next, ok := e.ctrl.NextDeadline()
	require.True(t, ok)
	e.Clock.SetTime(next)
	steps := e.run()
	require.Len(t, steps, 1)
	assert.Equal(t, "requeue after 5m0s", steps[0].Cause.String())
	evs := e.events("huge")
	require.Len(t, evs, 1, "the recorder folds the repeat into a count")
	assert.Equal(t, int32(2), evs[0].Count)
}

func TestDeletedPodFreesRoomForAWaitingPod(t *testing.T) {
	e := newEnv(t, 1)
	e.createNode("node-1", "4", "8Gi")
	e.createPod(testPod("first", "3", "1Gi"))
	e.run()
	require.Equal(t, "node-1", e.pod("first").Spec.NodeName)

	e.createPod(testPod("second", "3", "1Gi"))
	e.run()
	require.Empty(t, e.pod("second").Spec.NodeName)
	assert.Equal(t, "0/1 nodes are available: 1 Insufficient cpu.", condition(e.pod("second"), corev1.PodScheduled).Message)

	// A heartbeat changes nothing the filters look at: no retry.
	n, err := e.Client.Nodes().Get(e.ctx, "", "node-1")
	require.NoError(t, err)
	n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(e.Clock.Now().Add(10e9))
	_, err = e.Client.Nodes().UpdateStatus(e.ctx, n)
	require.NoError(t, err)
	assert.Empty(t, e.run())

	// A pod that finished frees its room as a deleted one would.
	done := e.pod("first")
	done.Status.Phase = corev1.PodSucceeded
	_, err = e.Client.Pods().UpdateStatus(e.ctx, done)
	require.NoError(t, err)
	require.NotEmpty(t, e.run())
	assert.Equal(t, apiservertest.Start, e.Clock.Now(), "woken by the event, not the timer")
	assert.Equal(t, "node-1", e.pod("second").Spec.NodeName)
}

func TestDeletedPodRequeues(t *testing.T) {
	e := newEnv(t, 1)
	e.createNode("node-1", "4", "8Gi")
	e.createPod(testPod("first", "3", ""))
	e.run()
	e.createPod(testPod("second", "3", ""))
	e.run()
	require.Empty(t, e.pod("second").Spec.NodeName)
	zero := int64(0)
	require.NoError(t, e.Client.Pods().Delete(e.ctx, "default", "first", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	require.NotEmpty(t, e.run())
	assert.Equal(t, apiservertest.Start, e.Clock.Now(), "woken by the event, not the timer")
	assert.Equal(t, "node-1", e.pod("second").Spec.NodeName)
}

func TestCordonTaintAndSelector(t *testing.T) {
	e := newEnv(t, 1)
	threeNodes(e)
	n1, err := e.Client.Nodes().Get(e.ctx, "", "node-1")
	require.NoError(t, err)
	n1.Spec.Unschedulable = true
	_, err = e.Client.Nodes().Update(e.ctx, n1)
	require.NoError(t, err)
	n2, err := e.Client.Nodes().Get(e.ctx, "", "node-2")
	require.NoError(t, err)
	n2.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	_, err = e.Client.Nodes().Update(e.ctx, n2)
	require.NoError(t, err)

	e.createPod(testPod("anywhere", "", ""))
	e.createPod(testPod("picky", "", "", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} }))
	e.createPod(testPod("gpu", "", "", tolerate(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists}),
		func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{corev1.LabelHostname: "node-2"} }))
	e.run()
	assert.Equal(t, "node-3", e.pod("anywhere").Spec.NodeName)
	assert.Equal(t, "node-2", e.pod("gpu").Spec.NodeName)
	assert.Empty(t, e.pod("picky").Spec.NodeName)
	assert.Equal(t, "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable.",
		condition(e.pod("picky"), corev1.PodScheduled).Message)

	// Labelling a node is a node update that matters: picky gets it.
	n3, err := e.Client.Nodes().Get(e.ctx, "", "node-3")
	require.NoError(t, err)
	n3.Labels["disk"] = "ssd"
	_, err = e.Client.Nodes().Update(e.ctx, n3)
	require.NoError(t, err)
	e.run()
	assert.Equal(t, "node-3", e.pod("picky").Spec.NodeName)
}

func TestAlreadyBoundPodIsDropped(t *testing.T) {
	e := newEnv(t, 1)
	threeNodes(e)
	e.createPod(testPod("p", "", ""))
	require.NoError(t, e.ctrl.Sync(e.ctx))
	// Someone else binds it after the scheduler's informer saw it unbound.
	require.NoError(t, e.Client.Pods().CreateSubresource(e.ctx, "default", "p", "binding",
		&corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-2"}}))
	info, ok := e.ctrl.Step(e.ctx)
	require.True(t, ok)
	require.NoError(t, info.Err, "a 409 from pods/binding is not an error to retry")
	assert.Equal(t, controllers.Result{}, info.Result)
	assert.Equal(t, "node-2", e.pod("p").Spec.NodeName)
	assert.Empty(t, e.events("p"), "no Scheduled event for a binding that failed")
	assert.Equal(t, uint64(1), e.sched.LastDecision().Cycle)
	assert.Empty(t, e.run())

	// The node the failed binding had assumed is free again.
	e.sched.mu.Lock()
	defer e.sched.mu.Unlock()
	for name, ni := range e.sched.nodeInfos {
		want := int64(0)
		if name == "node-2" {
			want = 1
		}
		assert.Equal(t, want, ni.Requested.Pods, name)
	}
}

func TestOtherSchedulersPodsAreLeftAlone(t *testing.T) {
	e := newEnv(t, 1)
	threeNodes(e)
	e.createPod(testPod("mine", "", ""))
	e.createPod(testPod("theirs", "", "", func(p *corev1.Pod) { p.Spec.SchedulerName = "my-scheduler" }))
	e.run()
	assert.NotEmpty(t, e.pod("mine").Spec.NodeName)
	assert.Empty(t, e.pod("theirs").Spec.NodeName)
	assert.Equal(t, uint64(1), e.sched.LastDecision().Cycle, "no cycle for another scheduler's pod")
	assert.Empty(t, e.events("theirs"))
}

func TestNoNodes(t *testing.T) {
	e := newEnv(t, 1)
	e.createPod(testPod("p", "", ""))
	e.run()
	assert.Equal(t, "no nodes available to schedule pods", condition(e.pod("p"), corev1.PodScheduled).Message)
	e.createNode("node-1", "4", "8Gi")
	e.run()
	assert.Equal(t, "node-1", e.pod("p").Spec.NodeName)
}

// placement schedules nine pods without a controller (so equal nodes tie
// often) and returns where each went.
func placement(t *testing.T, seed uint64) (map[string]string, []string) {
	e := newEnv(t, seed)
	for i := 1; i <= 4; i++ {
		e.createNode(fmt.Sprintf("node-%d", i), "4", "8Gi")
	}
	out := map[string]string{}
	var decisions []string
	for i := range 9 {
		name := fmt.Sprintf("p-%d", i)
		e.createPod(testPod(name, "", ""))
		e.run()
		decisions = append(decisions, e.sched.LastDecision().String())
		out[name] = e.pod(name).Spec.NodeName
	}
	return out, decisions
}

func TestSameSeedSamePlacement(t *testing.T) {
	a, da := placement(t, 42)
	b, db := placement(t, 42)
	assert.Equal(t, a, b)
	assert.Equal(t, da, db)
	assert.Contains(t, da[0], "(tie, picked by seed)", "four empty nodes tie")
	// Other seeds break the first tie differently at least once.
	firsts := map[string]bool{}
	for seed := range uint64(8) {
		p, _ := placement(t, seed+100)
		firsts[p["p-0"]] = true
	}
	assert.Greater(t, len(firsts), 1)
}

func TestNewValidates(t *testing.T) {
	_, err := New(Config{})
	assert.ErrorContains(t, err, "Client, Clock and Rand are required")
}

// A pod with scheduling gates is not scheduled, nor even tried, until its
// last gate is removed; then it is scheduled at once.
func TestSchedulingGatesHoldThePodBack(t *testing.T) {
	e := newEnv(t, 1)
	e.createNode("node-1", "4", "8Gi")
	p := testPod("gated", "", "")
	p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}, {Name: "example.com/review"}}
	e.createPod(p)
	assert.Empty(t, e.run(), "a gated pod never enters the queue")
	got := e.pod("gated")
	assert.Empty(t, got.Spec.NodeName)
	c := condition(got, corev1.PodScheduled)
	require.NotNil(t, c)
	assert.Equal(t, corev1.PodReasonSchedulingGated, c.Reason, "the API server's condition")
	assert.Empty(t, e.events("gated"))

	// One gate removed: still held.
	got.Spec.SchedulingGates = got.Spec.SchedulingGates[1:]
	got, err := e.Client.Pods().Update(e.ctx, got)
	require.NoError(t, err)
	assert.Empty(t, e.run())
	assert.Empty(t, e.pod("gated").Spec.NodeName)

	// The last gate removed: scheduled.
	got.Spec.SchedulingGates = nil
	_, err = e.Client.Pods().Update(e.ctx, got)
	require.NoError(t, err)
	require.Len(t, e.run(), 1)
	got = e.pod("gated")
	assert.Equal(t, "node-1", got.Spec.NodeName)
	assert.Equal(t, corev1.ConditionTrue, condition(got, corev1.PodScheduled).Status)
}
