package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// The lifecycle as a pure function: what is known of a pod, how its
// containers behave and the time give the next transition.
func TestNextTransition(t *testing.T) {
	st := Stages{ContainerCreating: time.Second, Running: 2 * time.Second, Ready: 3 * time.Second}
	running := func(name string, ready bool) containerRuntime {
		return containerRuntime{name: name, state: containerRunning, startedAt: t0, ready: ready, everStarted: true}
	}
	exitsAfter := func(d time.Duration, code int32) containerBehaviour {
		return containerBehaviour{exits: true, exitAfter: d, exitCode: code, readiness: []flip{{3 * time.Second, true}}}
	}
	serves := containerBehaviour{readiness: []flip{{3 * time.Second, true}}}
	tests := []struct {
		name string
		rt   podRuntime
		bs   map[string]containerBehaviour
		now  time.Time
		at   time.Time
		kind transition
		idx  int
		none bool
	}{
		{name: "accepted: creating after its delay", rt: podRuntime{seenAt: t0}, at: t0.Add(time.Second), kind: toCreating},
		{name: "creating: running after its delay", rt: podRuntime{stage: stageCreating, stageAt: t0}, at: t0.Add(2 * time.Second), kind: toRunning},
		{name: "running: ready after Stages.Ready",
			rt: podRuntime{stage: stageStarted, initialized: true, containers: []containerRuntime{running("c", false)}},
			bs: map[string]containerBehaviour{"c": serves}, now: t0, at: t0.Add(3 * time.Second), kind: toReady},
		{name: "ready and serving: nothing more",
			rt: podRuntime{stage: stageStarted, initialized: true, containers: []containerRuntime{running("c", true)}},
			bs: map[string]containerBehaviour{"c": serves}, now: t0.Add(time.Hour), none: true},
		{name: "an exit before ready wins",
			rt: podRuntime{stage: stageStarted, initialized: true, containers: []containerRuntime{running("c", false)}},
			bs: map[string]containerBehaviour{"c": exitsAfter(time.Second, 1)}, now: t0, at: t0.Add(time.Second), kind: toExit},
		{name: "an exit at the same time as ready wins",
			rt: podRuntime{stage: stageStarted, initialized: true, containers: []containerRuntime{running("c", false)}},
			bs: map[string]containerBehaviour{"c": exitsAfter(3*time.Second, 0)}, now: t0, at: t0.Add(3 * time.Second), kind: toExit},
		{name: "the earliest container goes first",
			rt:  podRuntime{stage: stageStarted, initialized: true, containers: []containerRuntime{running("a", true), running("b", true)}},
			bs:  map[string]containerBehaviour{"a": exitsAfter(9*time.Second, 0), "b": exitsAfter(5*time.Second, 0)},
			now: t0.Add(4 * time.Second), at: t0.Add(5 * time.Second), kind: toExit, idx: 1},
		{name: "back-off: restart when it is over",
			rt: podRuntime{stage: stageStarted, initialized: true, containers: []containerRuntime{{name: "c", state: containerWaiting,
				everStarted: true, backoffUntil: t0.Add(10 * time.Second)}}},
			bs: map[string]containerBehaviour{"c": exitsAfter(time.Second, 1)}, now: t0, at: t0.Add(10 * time.Second), kind: toRestart},
		{name: "liveness kills before the exit",
			rt: podRuntime{stage: stageStarted, initialized: true, containers: []containerRuntime{running("c", true)}},
			bs: map[string]containerBehaviour{"c": {exits: true, exitAfter: time.Hour, liveness: []flip{{50 * time.Second, false}},
				readiness: []flip{{0, true}}}},
			now: t0.Add(time.Second), at: t0.Add(50 * time.Second), kind: toLivenessKill},
		{name: "readiness fails later",
			rt:  podRuntime{stage: stageStarted, initialized: true, containers: []containerRuntime{running("c", true)}},
			bs:  map[string]containerBehaviour{"c": {readiness: []flip{{0, true}, {40 * time.Second, false}}}},
			now: t0.Add(time.Second), at: t0.Add(40 * time.Second), kind: toUnready},
		{name: "init containers first: the first one starts",
			rt: podRuntime{stage: stageStarted, containers: []containerRuntime{{name: "i", init: true, state: containerWaiting},
				{name: "c", state: containerWaiting}}},
			bs: map[string]containerBehaviour{"i": exitsAfter(time.Second, 0), "c": serves}, now: t0, at: t0, kind: toInitNext},
		{name: "a running init container exits; the pod's containers wait",
			rt: podRuntime{stage: stageStarted, containers: []containerRuntime{{name: "i", init: true, state: containerRunning, startedAt: t0, everStarted: true},
				{name: "c", state: containerWaiting}}},
			bs: map[string]containerBehaviour{"i": exitsAfter(4*time.Second, 0), "c": serves}, now: t0, at: t0.Add(4 * time.Second), kind: toExit},
		{name: "a started sidecar lets the pod's containers start",
			rt: podRuntime{stage: stageStarted, containers: []containerRuntime{{name: "s", init: true, sidecar: true, state: containerRunning, startedAt: t0, everStarted: true},
				{name: "c", state: containerWaiting}}},
			bs: map[string]containerBehaviour{"s": serves, "c": serves}, now: t0, at: t0, kind: toInitNext},
		{name: "terminal: nothing", rt: podRuntime{stage: stageTerminal}, none: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, kind, idx, ok := nextTransition(&tt.rt, tt.bs, st, tt.now)
			if tt.none {
				assert.False(t, ok, "no transition, got %v at %v", kind, at)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.at, at)
			assert.Equal(t, tt.kind, kind)
			assert.Equal(t, tt.idx, idx)
		})
	}
}

func TestProbeFlips(t *testing.T) {
	pod, ct := &corev1.Pod{}, &corev1.Container{Image: "busybox", Args: []string{"sh", "-c",
		"touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"}}
	tl := programFor(pod, ct).run(pod, ct)
	cat := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/healthy"}}},
		InitialDelaySeconds: 5, PeriodSeconds: 5}
	// The course's liveness example: probes at 5, 10, … succeed until 30;
	// 30, 35, 40 fail: the third failure kills it at 40s.
	assert.Equal(t, []flip{{40 * time.Second, false}}, probeFlips(newProbeSpec(cat, tl, 0), true))
	// As a readiness probe: ready at the first probe, unready at 40s.
	assert.Equal(t, []flip{{5 * time.Second, true}, {40 * time.Second, false}}, probeFlips(newProbeSpec(cat, tl, 0), false))
	// An HTTP probe always succeeds, unless the annotation says otherwise.
	http := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/"}}}
	assert.Equal(t, []flip(nil), probeFlips(newProbeSpec(http, tl, 0), true))
	assert.Equal(t, []flip{{40 * time.Second, false}}, probeFlips(newProbeSpec(http, tl, 15*time.Second), true),
		"fails from 15s: probes at 20, 30, 40 fail (period 10s, threshold 3)")
	assert.False(t, verdictAt([]flip{{5 * time.Second, true}}, false, 4*time.Second))
	assert.True(t, verdictAt([]flip{{5 * time.Second, true}}, false, 5*time.Second))
}

// The liveness tutorial's HTTP example: agnhost liveness answers /healthz
// with 200 for its first 10 seconds, then 500. Probes from 3s every 3s:
// 12, 15 and 18 fail, the third kills the container at 18s.
func TestAgnhostLivenessProbe(t *testing.T) {
	pod := &corev1.Pod{}
	ct := &corev1.Container{Name: "liveness", Image: "registry.k8s.io/e2e-test-images/agnhost:2.40", Args: []string{"liveness"},
		LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
			InitialDelaySeconds: 3, PeriodSeconds: 3}}
	b := behaviourOf(ct, programFor(pod, ct).run(pod, ct), false, PodBehaviour{}, time.Second)
	at, ok := b.killAt()
	require.True(t, ok, "the liveness probe kills it")
	assert.Equal(t, 18*time.Second, at)
	assert.Equal(t, "HTTP probe failed with statuscode: 500", b.livenessOutput)

	// Another agnhost command, or another image, answers its probe.
	ct.Args = []string{"netexec"}
	_, ok = behaviourOf(ct, programFor(pod, ct).run(pod, ct), false, PodBehaviour{}, time.Second).killAt()
	assert.False(t, ok)
}

func TestInitContainersThenSidecarThenMain(t *testing.T) {
	f := newFixture(t, Config{})
	always := corev1.ContainerRestartPolicyAlways
	f.createPod("init", func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{
			{Name: "migrate", Image: "busybox", Command: []string{"sh", "-c", "echo migrating; sleep 5"}},
			{Name: "proxy", Image: "envoyproxy/envoy:v1.31-latest", RestartPolicy: &always},
		}
	})
	f.settle()
	t0 := f.clk.Now()
	pod := f.pod("init")
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	require.Len(t, pod.Status.InitContainerStatuses, 2)
	assert.NotNil(t, pod.Status.InitContainerStatuses[0].State.Running, "the first init container runs")
	assert.Equal(t, "PodInitializing", pod.Status.InitContainerStatuses[1].State.Waiting.Reason)
	assert.Equal(t, "PodInitializing", pod.Status.ContainerStatuses[0].State.Waiting.Reason)
	init := podCondition(pod, corev1.PodInitialized)
	assert.Equal(t, corev1.ConditionFalse, init.Status)
	assert.Equal(t, "containers with incomplete status: [migrate proxy]", init.Message)

	f.until(t0.Add(5 * time.Second))
	pod = f.pod("init")
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
	assert.Equal(t, "Completed", pod.Status.InitContainerStatuses[0].State.Terminated.Reason)
	assert.NotNil(t, pod.Status.InitContainerStatuses[1].State.Running, "the sidecar keeps running")
	assert.NotNil(t, pod.Status.ContainerStatuses[0].State.Running)
	assert.Equal(t, corev1.ConditionTrue, podCondition(pod, corev1.PodInitialized).Status)
	assert.Equal(t, corev1.ConditionTrue, podCondition(pod, corev1.PodReady).Status)
}

func TestFailedInitContainer(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("bad", func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Spec.InitContainers = []corev1.Container{{Name: "check", Image: "busybox", Command: []string{"sh", "-c", "exit 4"}}}
	})
	f.settle()
	pod := f.pod("bad")
	assert.Equal(t, corev1.PodFailed, pod.Status.Phase)
	assert.Equal(t, int32(4), pod.Status.InitContainerStatuses[0].State.Terminated.ExitCode)
	assert.Equal(t, "PodInitializing", pod.Status.ContainerStatuses[0].State.Waiting.Reason, "never started")

	g := newFixture(t, Config{})
	g.createPod("retry", func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{{Name: "check", Image: "busybox", Command: []string{"sh", "-c", "exit 4"}}}
	})
	g.settle()
	pod = g.pod("retry")
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	assert.Equal(t, "CrashLoopBackOff", pod.Status.InitContainerStatuses[0].State.Waiting.Reason)
	assert.Equal(t, int32(2), pod.Status.InitContainerStatuses[0].RestartCount, "restarted at once after its first failure, then backing off")
}

// kubernetes.io's liveness-exec tutorial: the probe (cat /tmp/healthy
// every 5 seconds from 5 seconds on) fails from +30s, when the script
// removes the file; after three failures in a row (failureThreshold's
// default) the container is killed and, being killed for the first time,
// started again at once. Each failure is an Unhealthy event.
func TestLivenessProbeRestartsTheContainer(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("live", func(p *corev1.Pod) {
		p.Spec.Containers[0] = corev1.Container{Name: "liveness", Image: "registry.k8s.io/busybox",
			Args: []string{"/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"},
			LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/healthy"}}},
				InitialDelaySeconds: 5, PeriodSeconds: 5}}
	})
	f.settle()
	t0 := f.clk.Now()
	unhealthy := func() (int32, time.Time, time.Time) {
		l, err := f.env.Client.Events().List(f.ctx, "", client.ListOptions{FieldSelector: "involvedObject.name=live,reason=Unhealthy"})
		require.NoError(t, err)
		if len(l.Items) == 0 {
			return 0, time.Time{}, time.Time{}
		}
		require.Len(t, l.Items, 1, "the failures are one event, counted")
		return l.Items[0].Count, l.Items[0].FirstTimestamp.Time, l.Items[0].LastTimestamp.Time
	}
	f.until(t0.Add(30*time.Second - time.Millisecond))
	n, _, _ := unhealthy()
	assert.Zero(t, n, "healthy while the file is there")

	// The probe at +30s finds the file just removed.
	f.until(t0.Add(35 * time.Second))
	n, _, _ = unhealthy()
	assert.Equal(t, int32(2), n, "two failures: not yet failureThreshold")
	assert.Equal(t, int32(0), f.pod("live").Status.ContainerStatuses[0].RestartCount)

	f.until(t0.Add(40 * time.Second))
	n, first, last := unhealthy()
	assert.Equal(t, int32(3), n)
	assert.True(t, first.Equal(t0.Add(30*time.Second)), "first %s", first)
	assert.True(t, last.Equal(t0.Add(40*time.Second)), "last %s", last)
	pod := f.pod("live")
	cs := pod.Status.ContainerStatuses[0]
	assert.Equal(t, int32(1), cs.RestartCount)
	require.NotNil(t, cs.State.Running, "the first restart is at once")
	assert.True(t, cs.State.Running.StartedAt.Time.Equal(t0.Add(40*time.Second)))
	require.NotNil(t, cs.LastTerminationState.Terminated)
	assert.Equal(t, int32(137), cs.LastTerminationState.Terminated.ExitCode)
	assert.Contains(t, f.events("live"), "Killing: Container liveness failed liveness probe, will be restarted")
	assert.Contains(t, f.events("live"), "Unhealthy: Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory")

	// The new container starts its script over: healthy again for 30s,
	// then killed after three more failures.
	f.until(t0.Add(70*time.Second - time.Millisecond))
	n, _, _ = unhealthy()
	assert.Equal(t, int32(3), n)
	f.until(t0.Add(80 * time.Second))
	assert.Equal(t, int32(2), f.pod("live").Status.ContainerStatuses[0].RestartCount)
}

// failureThreshold and periodSeconds set how soon liveness kills: an
// exec probe that always fails, every 2 seconds, with a threshold of 5.
func TestLivenessFailureThreshold(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("fails", func(p *corev1.Pod) {
		p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"false"}}},
			InitialDelaySeconds: 1, PeriodSeconds: 2, FailureThreshold: 5}
	})
	f.settle()
	t0 := f.clk.Now()
	f.until(t0.Add(9*time.Second - time.Millisecond))
	assert.Equal(t, int32(0), f.pod("fails").Status.ContainerStatuses[0].RestartCount, "failures at 1, 3, 5, 7s")
	f.until(t0.Add(9 * time.Second))
	assert.Equal(t, int32(1), f.pod("fails").Status.ContainerStatuses[0].RestartCount, "the fifth, at 9s, kills it")
}

func TestReadinessProbeFailureUnreadiesThePod(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("ready", func(p *corev1.Pod) {
		p.Annotations = map[string]string{BehaviourAnnotation: "readiness-fail-after=30s"}
		p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/"}}, PeriodSeconds: 5}
	})
	f.settle()
	t0 := f.clk.Now()
	assert.Equal(t, corev1.ConditionTrue, podCondition(f.pod("ready"), corev1.PodReady).Status)
	f.until(t0.Add(45 * time.Second))
	pod := f.pod("ready")
	assert.Equal(t, corev1.ConditionFalse, podCondition(pod, corev1.PodReady).Status)
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase, "not ready is not dead")
	assert.Equal(t, int32(0), pod.Status.ContainerStatuses[0].RestartCount)
	assert.Contains(t, f.events("ready"), "Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 500")
}

// A container that ran for longer than twice the back-off's cap has a
// stale entry: it is started again at once, each time.
func TestBackOffResetsAfterALongRun(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("long", func(p *corev1.Pod) {
		p.Spec.Containers[0] = corev1.Container{Name: "c", Image: "kubesim/fail", Args: []string{"11m"}}
	})
	f.settle()
	t0 := f.clk.Now()
	for i := range 3 {
		t0 = t0.Add(11 * time.Minute)
		f.until(t0)
		cs := f.pod("long").Status.ContainerStatuses[0]
		require.NotNil(t, cs.State.Running, "crash %d: a run of 11 minutes starts the back-off over", i+1)
		assert.True(t, cs.State.Running.StartedAt.Time.Equal(t0))
		assert.Equal(t, int32(i+1), cs.RestartCount)
	}
}

// BenchmarkBehaviours is what the richer kubelet adds to every sync of a
// pod: reading how its containers behave.
func BenchmarkBehaviours(b *testing.B) {
	// A client: a container's environment reads the Services (their
	// variables) when its program is first played.
	env := apiservertest.New(b)
	k := &Kubelet{cfg: Config{Behaviour: DefaultBehaviour, Clock: clock.NewFake(time.Unix(0, 0))}, c: env.Client}
	for _, tc := range []struct {
		name string
		c    corev1.Container
	}{
		{"nginx", corev1.Container{Name: "web", Image: "nginx:1.25"}},
		{"busybox-script", corev1.Container{Name: "sh", Image: "busybox", Args: []string{"sh", "-c", "echo start; while true; do echo tick; sleep 5; done"}}},
	} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{tc.c}}}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = k.behaviours(pod, nil)
			}
		})
	}
}

// A sidecar that exits is restarted whatever the pod's restartPolicy;
// once the pod's containers have ended, it is stopped and the pod ends.
func TestSidecarRestartsAndStopsWithThePod(t *testing.T) {
	f := newFixture(t, Config{})
	always := corev1.ContainerRestartPolicyAlways
	f.createPod("job", func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Spec.InitContainers = []corev1.Container{{Name: "log-shipper", Image: "kubesim/fail", Args: []string{"5s"}, RestartPolicy: &always}}
		p.Spec.Containers = []corev1.Container{{Name: "work", Image: "busybox", Command: []string{"sh", "-c", "echo working; sleep 8"}}}
	})
	f.settle()
	t0 := f.clk.Now()
	f.until(t0.Add(5 * time.Second))
	pod := f.pod("job")
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
	side := pod.Status.InitContainerStatuses[0]
	assert.Equal(t, int32(1), side.RestartCount, "restarted although the pod's policy is Never")
	assert.NotNil(t, side.State.Running, "at once, the first time")

	f.until(t0.Add(8 * time.Second))
	pod = f.pod("job")
	assert.Equal(t, corev1.PodSucceeded, pod.Status.Phase, "a failing sidecar does not fail the pod")
	assert.NotNil(t, pod.Status.InitContainerStatuses[0].State.Terminated, "stopped with the pod")
	assert.Equal(t, "Completed", pod.Status.ContainerStatuses[0].State.Terminated.Reason)
}

// A readiness gate holds Ready False (ContainersReady True) until a
// controller writes the gate's condition True through pods/status; then
// the kubelet, seeing the pod change, makes it Ready.
func TestReadinessGateHoldsReadyUntilItsConditionIsTrue(t *testing.T) {
	f := newFixture(t, Config{})
	const gate = "example.com/load-balancer"
	f.createPod("gated", func(p *corev1.Pod) {
		p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: gate}}
	})
	f.settle()
	pod := f.pod("gated")
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
	assert.Equal(t, corev1.ConditionTrue, podCondition(pod, corev1.ContainersReady).Status)
	ready := podCondition(pod, corev1.PodReady)
	assert.Equal(t, corev1.ConditionFalse, ready.Status)
	assert.Equal(t, "ReadinessGatesNotReady", ready.Reason)
	assert.Equal(t, `corresponding condition of pod readiness gate "example.com/load-balancer" does not exist.`, ready.Message)

	setGate := func(status corev1.ConditionStatus) {
		patch := `{"status":{"conditions":[{"type":"` + gate + `","status":"` + string(status) + `"}]}}`
		_, err := f.env.Client.Pods().Patch(f.ctx, "default", "gated", "application/strategic-merge-patch+json", []byte(patch), "status")
		require.NoError(t, err)
		f.settle()
	}
	setGate(corev1.ConditionFalse)
	ready = podCondition(f.pod("gated"), corev1.PodReady)
	assert.Equal(t, corev1.ConditionFalse, ready.Status)
	assert.Equal(t, `the status of pod readiness gate "example.com/load-balancer" is not "True", but False`, ready.Message)

	setGate(corev1.ConditionTrue)
	pod = f.pod("gated")
	ready = podCondition(pod, corev1.PodReady)
	assert.Equal(t, corev1.ConditionTrue, ready.Status)
	assert.Empty(t, ready.Reason)
	assert.Equal(t, corev1.ConditionTrue, podCondition(pod, gate).Status, "the controller's condition is kept")
}
