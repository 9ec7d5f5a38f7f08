package kubelet

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet/images"
	"github.com/kubesim/kubesim/runmode"
)

// stepper drives controllers in step mode as the cluster stepper does:
// sync every informer, then one reconcile each, until nothing is ready.
type stepper struct {
	t     *testing.T
	ctx   context.Context
	clk   *clock.Fake
	loops func() []*controllers.Controller
}

func (s *stepper) settle() {
	s.t.Helper()
	for range 10000 {
		progressed := false
		for _, c := range s.loops() {
			require.NoError(s.t, c.Sync(s.ctx))
		}
		for _, c := range s.loops() {
			if info, ok := c.Step(s.ctx); ok {
				progressed = true
				if info.Err != nil {
					s.t.Errorf("%s %s: %v", c.Name(), info.Key, info.Err)
				}
			}
		}
		if !progressed {
			return
		}
	}
	s.t.Fatal("the loops did not settle")
}

// next moves the clock to the earliest delayed key and settles there.
func (s *stepper) next() time.Time {
	s.t.Helper()
	var at time.Time
	found := false
	for _, c := range s.loops() {
		if d, ok := c.NextDeadline(); ok && (!found || d.Before(at)) {
			at, found = d, true
		}
	}
	require.True(s.t, found, "nothing is waiting")
	s.clk.SetTime(at)
	s.settle()
	return at
}

// until steps timers up to and including t.
func (s *stepper) until(t time.Time) {
	s.t.Helper()
	for {
		var at time.Time
		found := false
		for _, c := range s.loops() {
			if d, ok := c.NextDeadline(); ok && (!found || d.Before(at)) {
				at, found = d, true
			}
		}
		if !found || at.After(t) {
			s.clk.SetTime(t)
			s.settle()
			return
		}
		s.next()
	}
}

type fixture struct {
	*stepper
	env *apiservertest.Env
	k   *Kubelet
}

func newFixture(t *testing.T, cfg Config) *fixture {
	env := apiservertest.New(t)
	cfg.Client, cfg.Clock, cfg.Mode = env.Client, env.Clock, runmode.Step
	if cfg.NodeName == "" {
		cfg.NodeName = "node-1"
	}
	if cfg.PodCIDR == "" {
		cfg.PodCIDR = "10.244.1.0/24"
	}
	if cfg.Registry == nil {
		// Pulls take no time, so that a test of another stage sees
		// the pod's stages at their own delays (pulls_test.go times
		// pulls).
		cfg.Registry = images.Default().WithPace(0, 0)
	}
	k, err := New(cfg)
	require.NoError(t, err)
	f := &fixture{env: env, k: k, stepper: &stepper{t: t, ctx: context.Background(), clk: env.Clock, loops: k.Controllers}}
	f.settle()
	return f
}

func (f *fixture) createPod(name string, mutate func(*corev1.Pod)) *corev1.Pod {
	f.t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
	}
	if mutate != nil {
		mutate(pod)
	}
	created, err := f.env.Client.Pods().Create(f.ctx, pod)
	require.NoError(f.t, err)
	require.NoError(f.t, f.env.Client.Pods().CreateSubresource(f.ctx, "default", name, "binding",
		&corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Target: corev1.ObjectReference{Kind: "Node", Name: f.k.NodeName()}}))
	return created
}

func (f *fixture) pod(name string) *corev1.Pod {
	f.t.Helper()
	pod, err := f.env.Client.Pods().Get(f.ctx, "default", name)
	require.NoError(f.t, err)
	return pod
}

func podCondition(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == t {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

func (f *fixture) events(name string) []string {
	f.t.Helper()
	l, err := f.env.Client.Events().List(f.ctx, "", client.ListOptions{FieldSelector: "involvedObject.name=" + name})
	require.NoError(f.t, err)
	var out []string
	for _, ev := range l.Items {
		out = append(out, ev.Reason+": "+ev.Message)
	}
	return out
}

func TestRegistersNodeAndLease(t *testing.T) {
	f := newFixture(t, Config{Labels: map[string]string{"zone": "a"}, Taints: []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}}})
	node, err := f.env.Client.Nodes().Get(f.ctx, "", "node-1")
	require.NoError(t, err)
	assert.Equal(t, "node-1", node.Labels[corev1.LabelHostname])
	assert.Equal(t, "linux", node.Labels[corev1.LabelOSStable])
	assert.Equal(t, "a", node.Labels["zone"])
	assert.Equal(t, "10.244.1.0/24", node.Spec.PodCIDR)
	require.Len(t, node.Spec.Taints, 1)
	assert.Equal(t, "4", node.Status.Capacity.Cpu().String())
	assert.Equal(t, "8Gi", node.Status.Capacity.Memory().String())
	assert.Equal(t, "110", node.Status.Allocatable.Pods().String())
	assert.Equal(t, []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.244.1.1"}, {Type: corev1.NodeHostName, Address: "node-1"}}, node.Status.Addresses)
	assert.Equal(t, "v1.32.0", node.Status.NodeInfo.KubeletVersion)
	ready := findNodeCondition(node.Status.Conditions, corev1.NodeReady)
	require.NotNil(t, ready)
	assert.Equal(t, corev1.ConditionTrue, ready.Status)
	assert.Equal(t, "KubeletReady", ready.Reason)
	assert.Equal(t, "kubelet is posting ready status", ready.Message)
	for _, typ := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		assert.Equal(t, corev1.ConditionFalse, findNodeCondition(node.Status.Conditions, typ).Status, typ)
	}
	assert.Contains(t, f.events("node-1"), "NodeReady: Node node-1 status is now: NodeReady")
	assert.Contains(t, f.events("node-1"), "Starting: Starting kubelet.")

	lease, err := f.env.Client.Leases().Get(f.ctx, corev1.NamespaceNodeLease, "node-1")
	require.NoError(t, err)
	assert.Equal(t, "node-1", *lease.Spec.HolderIdentity)
	assert.Equal(t, int32(40), *lease.Spec.LeaseDurationSeconds)
	assert.True(t, lease.Spec.RenewTime.Time.Equal(apiservertest.Start))
	require.Len(t, lease.OwnerReferences, 1)
	assert.Equal(t, node.UID, lease.OwnerReferences[0].UID)

	at := f.next()
	assert.Equal(t, apiservertest.Start.Add(10*time.Second), at)
	lease, err = f.env.Client.Leases().Get(f.ctx, corev1.NamespaceNodeLease, "node-1")
	require.NoError(t, err)
	assert.True(t, lease.Spec.RenewTime.Time.Equal(at), "renewed at %v", lease.Spec.RenewTime)
}

func TestPodStagesAtTheirTimes(t *testing.T) {
	f := newFixture(t, Config{Stages: Stages{ContainerCreating: time.Second, Running: 2 * time.Second, Ready: 3 * time.Second}})
	t0 := f.clk.Now()
	f.createPod("web", nil)
	f.settle()
	pod := f.pod("web")
	assert.Empty(t, pod.Status.ContainerStatuses, "nothing before the first delay")
	assert.Equal(t, corev1.ConditionTrue, podCondition(pod, corev1.PodScheduled).Status)

	assert.Equal(t, t0.Add(time.Second), f.next())
	pod = f.pod("web")
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	require.Len(t, pod.Status.ContainerStatuses, 1)
	assert.Equal(t, "ContainerCreating", pod.Status.ContainerStatuses[0].State.Waiting.Reason)
	assert.Equal(t, corev1.ConditionTrue, podCondition(pod, corev1.PodInitialized).Status)
	assert.Equal(t, corev1.ConditionFalse, podCondition(pod, corev1.PodReady).Status)
	assert.Equal(t, "containers with unready status: [nginx]", podCondition(pod, corev1.PodReady).Message)
	assert.Equal(t, corev1.ConditionFalse, podCondition(pod, corev1.ContainersReady).Status)
	assert.Equal(t, "10.244.1.1", pod.Status.HostIP)
	assert.Empty(t, pod.Status.PodIP)

	assert.Equal(t, t0.Add(3*time.Second), f.next())
	pod = f.pod("web")
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
	cs := pod.Status.ContainerStatuses[0]
	require.NotNil(t, cs.State.Running)
	assert.True(t, cs.State.Running.StartedAt.Time.Equal(t0.Add(3*time.Second)))
	assert.False(t, cs.Ready)
	assert.Equal(t, int32(0), cs.RestartCount)
	assert.Equal(t, "docker.io/library/nginx:latest", cs.Image)
	assert.Contains(t, cs.ContainerID, "containerd://")
	assert.Equal(t, "10.244.1.2", pod.Status.PodIP)
	require.NotNil(t, pod.Status.StartTime)
	assert.Equal(t, corev1.ConditionFalse, podCondition(pod, corev1.PodReady).Status)
	assert.Equal(t, []string{
		`Pulling: Pulling image "nginx"`,
		`Pulled: Successfully pulled image "nginx" in 0s (0s including waiting). Image size: 72318011 bytes.`,
		"Created: Created container nginx",
		"Started: Started container nginx",
	}, f.events("web"))

	assert.Equal(t, t0.Add(6*time.Second), f.next())
	pod = f.pod("web")
	assert.True(t, pod.Status.ContainerStatuses[0].Ready)
	assert.Equal(t, corev1.ConditionTrue, podCondition(pod, corev1.PodReady).Status)
	assert.True(t, podCondition(pod, corev1.PodReady).LastTransitionTime.Time.Equal(t0.Add(6*time.Second)))
	assert.Equal(t, corev1.ConditionTrue, podCondition(pod, corev1.ContainersReady).Status)
	assert.Equal(t, []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled},
		func() (out []corev1.PodConditionType) {
			for _, c := range pod.Status.Conditions {
				out = append(out, c.Type)
			}
			return out
		}())
	// Nothing is left for the pod: the next timer is the heartbeat.
	assert.Equal(t, t0.Add(10*time.Second), f.next())
}

func TestPodIPsAreUnique(t *testing.T) {
	f := newFixture(t, Config{})
	for _, n := range []string{"a", "b", "c"} {
		f.createPod(n, nil)
	}
	f.settle()
	var ips []string
	for _, n := range []string{"a", "b", "c"} {
		pod := f.pod(n)
		assert.Equal(t, corev1.ConditionTrue, podCondition(pod, corev1.PodReady).Status, "zero delays: ready at once")
		ips = append(ips, pod.Status.PodIP)
	}
	assert.Equal(t, []string{"10.244.1.2", "10.244.1.3", "10.244.1.4"}, ips)
}

func TestCrashLoopBackOff(t *testing.T) {
	f := newFixture(t, Config{})
	t0 := f.clk.Now()
	f.createPod("crashy", func(p *corev1.Pod) { p.Annotations = map[string]string{BehaviourAnnotation: "crash-after=5s"} })
	f.settle()
	require.True(t, f.pod("crashy").Status.ContainerStatuses[0].Ready)

	// The first crash, at +5s, restarts it at once: no back-off yet.
	crashAt := t0.Add(5 * time.Second)
	f.until(crashAt)
	pod := f.pod("crashy")
	cs := pod.Status.ContainerStatuses[0]
	require.NotNil(t, cs.State.Running, "the first restart is at once")
	assert.True(t, cs.State.Running.StartedAt.Time.Equal(crashAt))
	assert.Equal(t, int32(1), cs.RestartCount)
	require.NotNil(t, cs.LastTerminationState.Terminated)
	assert.Equal(t, "Error", cs.LastTerminationState.Terminated.Reason)
	assert.NotContains(t, strings.Join(f.events("crashy"), "\n"), "BackOff")

	// Then crash at +10s, back-off 10s, run again at +20s, crash at +25s,
	// back-off 20s...
	starts := crashAt
	for restarts, backoff := range []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second} {
		crashAt := starts.Add(5 * time.Second)
		f.until(crashAt)
		pod := f.pod("crashy")
		cs := pod.Status.ContainerStatuses[0]
		require.NotNil(t, cs.State.Waiting, "after crash %d", restarts+2)
		assert.Equal(t, "CrashLoopBackOff", cs.State.Waiting.Reason)
		assert.Equal(t, "back-off "+backoff.String()+" restarting failed container=nginx pod=crashy_default("+string(pod.UID)+")", cs.State.Waiting.Message)
		assert.Equal(t, int32(restarts+2), cs.RestartCount)
		require.NotNil(t, cs.LastTerminationState.Terminated)
		assert.Equal(t, int32(1), cs.LastTerminationState.Terminated.ExitCode)
		assert.Equal(t, "Error", cs.LastTerminationState.Terminated.Reason)
		assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
		assert.Equal(t, corev1.ConditionFalse, podCondition(pod, corev1.PodReady).Status)

		starts = crashAt.Add(backoff)
		f.until(starts)
		cs = f.pod("crashy").Status.ContainerStatuses[0]
		require.NotNil(t, cs.State.Running, "restarted after %s", backoff)
		assert.True(t, cs.State.Running.StartedAt.Time.Equal(starts))
	}
	assert.Contains(t, f.events("crashy"), "BackOff: Back-off restarting failed container nginx in pod crashy_default("+string(f.pod("crashy").UID)+")")
}

func TestExitUnderRestartPolicies(t *testing.T) {
	tests := []struct {
		name, behaviour string
		policy          corev1.RestartPolicy
		phase           corev1.PodPhase
		reason          string
		code            int32
	}{
		{"exit 0 under Never", "exit-after=3s", corev1.RestartPolicyNever, corev1.PodSucceeded, "Completed", 0},
		{"exit 0 under OnFailure", "exit-after=3s", corev1.RestartPolicyOnFailure, corev1.PodSucceeded, "Completed", 0},
		{"exit 1 under Never", "exit-code=1,exit-after=3s", corev1.RestartPolicyNever, corev1.PodFailed, "Error", 1},
		{"exit 1 under OnFailure restarts", "exit-code=1,exit-after=3s", corev1.RestartPolicyOnFailure, corev1.PodRunning, "Error", 1},
		{"exit 0 under Always restarts", "exit-after=3s", corev1.RestartPolicyAlways, corev1.PodRunning, "Completed", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			t0 := f.clk.Now()
			f.createPod("job", func(p *corev1.Pod) {
				p.Annotations = map[string]string{BehaviourAnnotation: tt.behaviour}
				p.Spec.RestartPolicy = tt.policy
			})
			f.settle()
			f.until(t0.Add(3 * time.Second))
			pod := f.pod("job")
			assert.Equal(t, tt.phase, pod.Status.Phase)
			cs := pod.Status.ContainerStatuses[0]
			term := cs.State.Terminated
			if tt.phase == corev1.PodRunning {
				term = cs.LastTerminationState.Terminated
				assert.Equal(t, int32(1), cs.RestartCount)
			} else {
				assert.Equal(t, "PodCompleted", podCondition(pod, corev1.PodReady).Reason)
				assert.Equal(t, corev1.ConditionFalse, podCondition(pod, corev1.PodReadyToStartContainers).Status)
			}
			require.NotNil(t, term)
			assert.Equal(t, tt.code, term.ExitCode)
			assert.Equal(t, tt.reason, term.Reason)
		})
	}
}

func TestGracefulDeletion(t *testing.T) {
	tests := []struct {
		name string
		stop time.Duration
		// behaviour is the pod's kubesim.io/behaviour annotation.
		behaviour string
		grace     int64
		gone      time.Duration // after the delete
		code      int32
		reason    string
	}{
		{"stops at once", 0, "", 30, 0, 0, "Completed"},
		{"stops after the stop delay", 5 * time.Second, "", 30, 5 * time.Second, 0, "Completed"},
		{"killed at the end of the grace period", time.Minute, "", 20, 20 * time.Second, 137, "Error"},
		{"the pod's stop-after within its grace", 0, "stop-after=10s", 30, 10 * time.Second, 0, "Completed"},
		{"the pod's stop-after past its terminationGracePeriodSeconds", 0, "stop-after=45s", 30, 30 * time.Second, 137, "Error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Config{Stages: Stages{Stop: tt.stop}})
			// A finalizer keeps the pod after the kubelet's final delete, so
			// that its last status can be read.
			f.createPod("web", func(p *corev1.Pod) {
				p.Spec.TerminationGracePeriodSeconds = &tt.grace
				p.Finalizers = []string{"kubesim.io/test"}
				if tt.behaviour != "" {
					p.Annotations = map[string]string{BehaviourAnnotation: tt.behaviour}
				}
			})
			f.settle()
			require.Equal(t, corev1.PodRunning, f.pod("web").Status.Phase)
			t0 := f.clk.Now()
			require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", "web", nil))
			require.NotNil(t, f.pod("web").DeletionTimestamp, "a bound pod waits for its kubelet")
			f.settle()
			finished := func() bool {
				g := f.pod("web").DeletionGracePeriodSeconds
				return g != nil && *g == 0
			}
			for !finished() {
				require.True(t, f.clk.Now().Before(t0.Add(tt.gone)), "not finished at %v", f.clk.Now().Sub(t0))
				f.next()
			}
			assert.Equal(t, t0.Add(tt.gone), f.clk.Now(), "finished at the right time")
			pod := f.pod("web")
			term := pod.Status.ContainerStatuses[0].State.Terminated
			require.NotNil(t, term)
			assert.Equal(t, tt.code, term.ExitCode)
			assert.Equal(t, tt.reason, term.Reason)
			assert.Contains(t, f.events("web"), "Killing: Stopping container nginx")

			// Without the finalizer, the kubelet's delete removes the pod.
			pod.Finalizers = nil
			_, err := f.env.Client.Pods().Update(f.ctx, pod)
			require.NoError(t, err)
			f.settle()
			_, err = f.env.Client.Pods().Get(f.ctx, "default", "web")
			assert.True(t, api.IsNotFound(err), "%v", err)
		})
	}
}

func TestDeletedPodIsRemoved(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("web", nil)
	f.settle()
	require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", "web", nil))
	f.settle()
	_, err := f.env.Client.Pods().Get(f.ctx, "default", "web")
	assert.True(t, api.IsNotFound(err), "%v", err)
	// Its address is free again, but handed out round-robin.
	f.createPod("next", nil)
	f.settle()
	assert.Equal(t, "10.244.1.3", f.pod("next").Status.PodIP)
}

func TestStoppedKubeletDoesNothing(t *testing.T) {
	f := newFixture(t, Config{})
	f.k.Stop()
	assert.True(t, f.k.Stopped())
	f.createPod("web", nil)
	f.settle() // a stepper that steps it anyway sees no work done
	f.clk.Step(time.Minute)
	f.settle()
	assert.Empty(t, f.pod("web").Status.ContainerStatuses)
	lease, err := f.env.Client.Leases().Get(f.ctx, corev1.NamespaceNodeLease, "node-1")
	require.NoError(t, err)
	assert.True(t, lease.Spec.RenewTime.Time.Equal(apiservertest.Start))

	f.k.Start()
	assert.False(t, f.k.Stopped())
	f.settle()
	assert.Equal(t, corev1.ConditionTrue, podCondition(f.pod("web"), corev1.PodReady).Status)
	lease, err = f.env.Client.Leases().Get(f.ctx, corev1.NamespaceNodeLease, "node-1")
	require.NoError(t, err)
	assert.True(t, lease.Spec.RenewTime.Time.Equal(f.clk.Now()))
}

func TestLiveMode(t *testing.T) {
	env := apiservertest.New(t)
	k, err := New(Config{Client: env.Client, Clock: clock.Real{}, NodeName: "live-1", PodCIDR: "10.244.7.0/24"})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { k.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	f := &fixture{env: env, k: k, stepper: &stepper{t: t, ctx: context.Background()}}
	ready := func(name string) func() bool {
		return func() bool {
			pod, err := env.Client.Pods().Get(context.Background(), "default", name)
			return err == nil && podCondition(pod, corev1.PodReady) != nil && podCondition(pod, corev1.PodReady).Status == corev1.ConditionTrue
		}
	}
	require.Eventually(t, func() bool {
		_, err := env.Client.Nodes().Get(context.Background(), "", "live-1")
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)
	f.createPod("web", nil)
	require.Eventually(t, ready("web"), 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, "10.244.7.2", f.pod("web").Status.PodIP)

	// A stopped kubelet leaves a new pod alone; started again, it runs it.
	// Stop returns once the loops have ended, so nothing of the kubelet
	// runs until Start.
	k.mu.Lock()
	running := k.running
	k.mu.Unlock()
	require.NotNil(t, running)
	k.Stop()
	select {
	case <-running:
	default:
		t.Fatal("Stop returned while the loops still ran")
	}
	f.createPod("late", nil)
	assert.Empty(t, f.pod("late").Status.ContainerStatuses)
	k.Start()
	require.Eventually(t, ready("late"), 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, "10.244.7.3", f.pod("late").Status.PodIP)
}

func TestChangedImageRestartsTheContainer(t *testing.T) {
	f := newFixture(t, Config{Stages: Stages{ContainerCreating: time.Second, Running: time.Second, Ready: time.Second}})
	f.createPod("web", nil)
	f.settle()
	for range 3 {
		f.next()
	}
	pod := f.pod("web")
	require.True(t, pod.Status.ContainerStatuses[0].Ready)
	firstID := pod.Status.ContainerStatuses[0].ContainerID

	// kubectl set image pod/web nginx=nginx:1.27
	_, err := f.env.Client.Pods().Patch(f.ctx, "default", "web", client.StrategicPatch,
		[]byte(`{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}`))
	require.NoError(t, err)
	f.settle()
	pod = f.pod("web")
	cs := pod.Status.ContainerStatuses[0]
	assert.Equal(t, "docker.io/library/nginx:1.27", cs.Image)
	assert.Equal(t, int32(1), cs.RestartCount)
	require.NotNil(t, cs.State.Running)
	assert.False(t, cs.Ready, "the new container is not ready yet")
	assert.NotEqual(t, firstID, cs.ContainerID)
	require.NotNil(t, cs.LastTerminationState.Terminated)
	assert.Equal(t, firstID, cs.LastTerminationState.Terminated.ContainerID)
	assert.Contains(t, f.events("web"), "Killing: Container nginx definition changed, will be restarted")
	assert.Contains(t, f.events("web"), `Pulling: Pulling image "nginx:1.27"`)

	f.next()
	assert.True(t, f.pod("web").Status.ContainerStatuses[0].Ready, "ready again after the Ready delay")
	f.settle()
	assert.Equal(t, int32(1), f.pod("web").Status.ContainerStatuses[0].RestartCount, "restarted once")
}

// A status write that fails (here a Conflict: the kubelet's cache is older
// than the pod) does not tear the pod's sandbox down: the retry reports the
// address the sandbox already has. Giving the retry a new address instead
// moved the round-robin allocator on, so that the next pod got .4 where .3
// was due whenever a busy machine delayed a watch event.
func TestFailedStatusWriteKeepsTheSandboxAddress(t *testing.T) {
	f := newFixture(t, Config{Stages: Stages{ContainerCreating: time.Second, Running: 2 * time.Second, Ready: 3 * time.Second}})
	t0 := f.clk.Now()
	f.createPod("web", nil)
	f.settle()
	assert.Equal(t, t0.Add(time.Second), f.next(), "ContainerCreating")

	// The kubelet's view of the pod is now stale: someone else writes it
	// before the kubelet's next status write.
	podLoop := f.k.Controllers()[1]
	require.NoError(t, podLoop.Sync(f.ctx))
	pod := f.pod("web")
	pod.Labels = map[string]string{"touched": "yes"}
	_, err := f.env.Client.Pods().Update(f.ctx, pod)
	require.NoError(t, err)
	next, ok := podLoop.NextDeadline()
	require.True(t, ok)
	require.Equal(t, t0.Add(3*time.Second), next)
	f.clk.SetTime(next)
	info, ok := podLoop.Step(f.ctx)
	require.True(t, ok)
	require.Error(t, info.Err)
	require.True(t, api.IsConflict(errors.Unwrap(info.Err)), "%v", info.Err)

	f.settle()
	assert.Equal(t, corev1.PodRunning, f.pod("web").Status.Phase)
	assert.Equal(t, "10.244.1.2", f.pod("web").Status.PodIP, "the retry reports the sandbox's address")
	f.createPod("next", nil)
	f.settle()
	f.until(f.clk.Now().Add(3 * time.Second))
	assert.Equal(t, "10.244.1.3", f.pod("next").Status.PodIP, "no address was used up by the failed write")
}

// A program the image does not have never starts: containerd's
// StartError (128, no start time) is the last state; the first restart is
// at once and fails too, then the container waits with
// RunContainerError and, once the next sync finds it in back-off,
// CrashLoopBackOff; it is Created and Failed, never Started. Under
// restartPolicy Never the pod fails with it.
func TestProgramTheImageLacksFailsToStart(t *testing.T) {
	const msg = `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: ` +
		`unable to start container process: error during container init: exec: "perl": executable file not found in $PATH: unknown`
	f := newFixture(t, Config{})
	t0 := f.clk.Now()
	f.createPod("pi", func(p *corev1.Pod) {
		p.Spec.Containers[0].Image = "busybox"
		p.Spec.Containers[0].Command = []string{"perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"}
	})
	f.settle()
	pod := f.pod("pi")
	cs := pod.Status.ContainerStatuses[0]
	require.NotNil(t, cs.State.Waiting)
	assert.Equal(t, "RunContainerError", cs.State.Waiting.Reason)
	assert.Equal(t, msg, cs.State.Waiting.Message)
	require.NotNil(t, cs.LastTerminationState.Terminated)
	term := cs.LastTerminationState.Terminated
	assert.Equal(t, int32(128), term.ExitCode)
	assert.Equal(t, "StartError", term.Reason)
	assert.Equal(t, msg, term.Message)
	assert.True(t, term.StartedAt.Time.Equal(time.Unix(0, 0)), "never started: %v", term.StartedAt)
	assert.True(t, term.FinishedAt.Time.Equal(t0))
	assert.False(t, cs.Ready)
	assert.Equal(t, int32(2), cs.RestartCount, "restarted at once after the first failure, which failed again")
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
	events := f.events("pi")
	assert.Contains(t, events, "Created: Created container nginx")
	assert.Contains(t, events, "Failed: Error: "+msg)
	assert.NotContains(t, events, "Started: Started container nginx")

	f.until(t0.Add(plegRelist))
	cs = f.pod("pi").Status.ContainerStatuses[0]
	require.NotNil(t, cs.State.Waiting)
	assert.Equal(t, "CrashLoopBackOff", cs.State.Waiting.Reason)
	assert.Equal(t, "back-off 10s restarting failed container=nginx pod=pi_default("+string(pod.UID)+")", cs.State.Waiting.Message)
	assert.Contains(t, f.events("pi"), "BackOff: Back-off restarting failed container nginx in pod pi_default("+string(pod.UID)+")")

	f.until(t0.Add(10 * time.Second))
	cs = f.pod("pi").Status.ContainerStatuses[0]
	require.NotNil(t, cs.State.Waiting, "tried again, and failed again")
	assert.Equal(t, "RunContainerError", cs.State.Waiting.Reason)
	assert.Equal(t, int32(3), cs.RestartCount)

	f.createPod("once", func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Spec.Containers[0].Image = "busybox"
		p.Spec.Containers[0].Command = []string{"perl"}
	})
	f.settle()
	pod = f.pod("once")
	assert.Equal(t, corev1.PodFailed, pod.Status.Phase)
	term = pod.Status.ContainerStatuses[0].State.Terminated
	require.NotNil(t, term)
	assert.Equal(t, int32(128), term.ExitCode)
	assert.Equal(t, "StartError", term.Reason)
	assert.Equal(t, msg, term.Message)
}
