package kubelet

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	cryptorand "crypto/rand"
	"fmt"
	mathrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/store/boltstore"
)

// newLocalFixture is a kubelet in step mode (the fake clock times its
// stages, timers and token rotation) whose image "local/sh:dev" is the
// host's /bin/sh, against an API server that issues service account
// tokens.
func newLocalFixture(t *testing.T) *fixture { return newLocalFixtureWith(t, nil) }

// newLocalFixtureWith is newLocalFixture with images run in process too.
func newLocalFixtureWith(t *testing.T, inProcess map[string]InProcessMain) *fixture {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	key, err := ecdsa.GenerateKey(elliptic.P256(), cryptorand.Reader)
	require.NoError(t, err)
	clk := clock.NewFake(apiservertest.Start)
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clk, Rand: mathrand.NewChaCha8([32]byte{1}),
		Resources: kinds.Builtin(), ServiceAccountKey: key})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(context.Background()))
	env := &apiservertest.Env{Server: srv, Client: client.NewInProcess(srv.Handler(), "test"), Clock: clk}
	_, err = env.Client.ServiceAccounts().Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "default"}})
	require.NoError(t, err)
	k, err := New(Config{Client: env.Client, Clock: clk, Mode: runmode.Step, NodeName: "node-1", PodCIDR: "10.244.1.0/24",
		LocalImages: &LocalImages{Paths: map[string]string{"local/sh:dev": "/bin/sh"}, InProcess: inProcess, Server: "https://127.0.0.1:6443",
			CA: []byte("the cluster CA"), Dir: t.TempDir()}})
	require.NoError(t, err)
	t.Cleanup(k.StopAllLocal)
	f := &fixture{env: env, k: k, stepper: &stepper{t: t, ctx: context.Background(), clk: clk, loops: k.Controllers}}
	f.settle()
	return f
}

func (f *fixture) createScriptPod(name, script string, mutate func(*corev1.Pod)) {
	f.t.Helper()
	f.createPod(name, func(p *corev1.Pod) {
		p.Spec.Containers = []corev1.Container{{Name: "main", Image: "local/sh:dev", Command: []string{"sh", "-c", script}}}
		// What the ServiceAccount admission plugin would set.
		p.Spec.ServiceAccountName = "default"
		if mutate != nil {
			mutate(p)
		}
	})
	f.settle()
}

// run is the local run of the pod's container, as the kubelet holds it.
func (f *fixture) run(name string) *localProcess {
	f.t.Helper()
	f.k.stateMu.Lock()
	defer f.k.stateMu.Unlock()
	rt := f.k.runtimes["default/"+name]
	require.NotNil(f.t, rt)
	lp := f.k.local[rt.containers[rt.find("main")].id]
	require.NotNil(f.t, lp, "no process for the container")
	return lp
}

// waitEnded waits for a run's process to end and its pod to be queued,
// then lets the kubelet see it.
func (f *fixture) waitEnded(lp *localProcess) {
	f.t.Helper()
	select {
	case <-lp.exitQueued:
	case <-time.After(30 * time.Second):
		f.t.Fatal("the process did not end")
	}
	f.settle()
}

// waitLine waits for a run to print a line containing s.
func waitLine(t *testing.T, lp *localProcess, s string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		lines, _, changed := lp.proc.Lines()
		for _, l := range lines {
			if strings.Contains(l.Text, s) {
				return
			}
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the process never printed %q", s)
		}
	}
}

// A crashing local process: its exit code is the container's, it is
// restarted at once the first time and after the CrashLoopBackOff
// back-off the next (a new process each time), and its output is the log
// of the run it belongs to (--previous too).
func TestLocalImageCrashLoop(t *testing.T) {
	f := newLocalFixture(t)
	f.createScriptPod("crash", `echo "run as $0 in $HOSTNAME"; exit 2`, nil)
	// The processes end on their own time: settle until the kubelet has
	// seen two of them end (the first restart was at once, without a
	// back-off) and waits.
	var cs corev1.ContainerStatus
	require.Eventually(t, func() bool {
		f.settle()
		cs = f.pod("crash").Status.ContainerStatuses[0]
		return cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff"
	}, 30*time.Second, 10*time.Millisecond)
	assert.Equal(t, int32(2), cs.RestartCount, "restarted at once after the first exit")
	require.NotNil(t, cs.LastTerminationState.Terminated)
	assert.Equal(t, int32(2), cs.LastTerminationState.Terminated.ExitCode)
	assert.Equal(t, "Error", cs.LastTerminationState.Terminated.Reason)

	f.until(cs.LastTerminationState.Terminated.FinishedAt.Add(10 * time.Second)) // the back-off is over: a new process
	require.Eventually(t, func() bool {
		f.settle()
		cs = f.pod("crash").Status.ContainerStatuses[0]
		return cs.RestartCount == 3
	}, 30*time.Second, 10*time.Millisecond)
	var logs strings.Builder
	require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "crash", "main", LogOptions{Previous: true}, &logs))
	assert.Equal(t, "run as sh in crash\n", logs.String())
}

// Deleting the pod sends SIGTERM; a process that ignores it is killed
// when the grace period is over, on the kubelet's clock, and only then is
// the pod removed.
func TestLocalImageKilledAfterGrace(t *testing.T) {
	f := newLocalFixture(t)
	grace := int64(5)
	f.createScriptPod("stubborn", `trap "echo ignoring TERM" TERM; echo up; while :; do sleep 0.05; done`,
		func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = &grace })
	lp := f.run("stubborn")
	waitLine(t, lp, "up")
	require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", "stubborn", nil))
	f.settle()
	waitLine(t, lp, "ignoring TERM")
	_, _, ended := lp.proc.Exited()
	assert.False(t, ended, "SIGTERM is ignored: it runs until the grace period is over")
	assert.Equal(t, "stubborn", f.pod("stubborn").Name, "the pod waits for its container")

	f.clk.Step(time.Duration(grace) * time.Second)
	f.waitEnded(lp)
	code, _, _ := lp.proc.Exited()
	assert.Equal(t, 137, code, "SIGKILL")
	f.settle()
	_, err := f.env.Client.Pods().Get(f.ctx, "default", "stubborn")
	assert.True(t, api.IsNotFound(err), "the pod is removed once its process has ended: %v", err)
}

// The process's kubeconfig names the API server, its CA, the pod's
// namespace and a token file; the token is the pod's service account's,
// and it is renewed at 80% of its life.
func TestLocalImageKubeconfigAndTokenRotation(t *testing.T) {
	f := newLocalFixture(t)
	f.createScriptPod("client", `echo "$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT $KUBECONFIG"; while :; do sleep 0.05; done`, nil)
	lp := f.run("client")
	waitLine(t, lp, "127.0.0.1:6443 ")
	kubeconfig, err := os.ReadFile(filepath.Join(lp.dir, "kubeconfig"))
	require.NoError(t, err)
	for _, want := range []string{"server: https://127.0.0.1:6443", "tokenFile: " + filepath.Join(lp.dir, "token"),
		"namespace: default", "name: system:serviceaccount:default:default"} {
		assert.Contains(t, string(kubeconfig), want)
	}
	token := func() string {
		b, err := os.ReadFile(filepath.Join(lp.dir, "token"))
		require.NoError(t, err)
		return string(b)
	}
	first := token()
	user, ok, err := f.env.Server.Tokens().AuthenticateToken(f.ctx, first)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "system:serviceaccount:default:default", user.Name)

	f.clk.Step(localTokenRefresh)
	deadline := time.Now().Add(30 * time.Second)
	for token() == first {
		require.True(t, time.Now().Before(deadline), "the token was not renewed")
		time.Sleep(10 * time.Millisecond)
	}
	_, ok, err = f.env.Server.Tokens().AuthenticateToken(f.ctx, token())
	require.NoError(t, err)
	assert.True(t, ok, "the renewed token authenticates")
}

// argv is command[1:] + args with $(VAR) expanded from the container's
// environment, which the process gets (valueFrom too); exit 0 under
// restartPolicy Never completes the pod.
func TestLocalImageArgvAndEnv(t *testing.T) {
	f := newLocalFixture(t)
	// sh -c SCRIPT A B: the args are $0 and $1.
	f.createScriptPod("args", `echo "$0 $POD_NAME $1"`, func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		c.Args = []string{"$(GREETING) world", "$$(GREETING)"}
		c.Env = []corev1.EnvVar{{Name: "GREETING", Value: "hello"},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
	})
	f.waitEnded(f.run("args"))
	pod := f.pod("args")
	assert.Equal(t, corev1.PodSucceeded, pod.Status.Phase)
	require.NotNil(t, pod.Status.ContainerStatuses[0].State.Terminated)
	assert.Equal(t, "Completed", pod.Status.ContainerStatuses[0].State.Terminated.Reason)
	var logs strings.Builder
	require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "args", "main", LogOptions{}, &logs))
	assert.Equal(t, "hello world args $(GREETING)\n", logs.String())
}

// A local image is on the node, as `kind load docker-image` puts it: a
// container that names it with IfNotPresent starts without a pull.
func TestLocalImageIsOnTheNode(t *testing.T) {
	f := newLocalFixture(t)
	f.createScriptPod("loaded", "sleep 60", nil)
	assert.Contains(t, f.events("loaded"), `Pulled: Container image "local/sh:dev" already present on machine`)
	assert.NotNil(t, f.pod("loaded").Status.ContainerStatuses[0].State.Running)
}

// An image run in process gets the container's arguments, its in-cluster
// KUBECONFIG and the files of the ConfigMap mounted into it; what it
// prints is the log, its return the exit code (a crash loop when it
// fails), and a run that does not end by itself stops when the pod goes.
func TestInProcessImage(t *testing.T) {
	type seen struct {
		args       []string
		kubeconfig string
		config     string
	}
	runs := make(chan seen, 10)
	f := newLocalFixtureWith(t, map[string]InProcessMain{
		"example.com/scheduler:1.0": func(ctx context.Context, r InProcessRun) int {
			data, _ := r.Files.ReadFile("/etc/sched/config.yaml")
			runs <- seen{args: r.Args, kubeconfig: r.Getenv("KUBECONFIG"), config: string(data)}
			if strings.Contains(string(data), "bad") {
				fmt.Fprintln(r.Stdout, "config.yaml: cannot parse")
				return 1
			}
			fmt.Fprintln(r.Stdout, "serving")
			<-ctx.Done()
			return 0
		}})
	mk := func(name, config string) {
		_, err := f.env.Client.ConfigMaps().Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Data: map[string]string{"config.yaml": config}})
		require.NoError(t, err)
		f.createPod(name, func(p *corev1.Pod) {
			p.Spec.ServiceAccountName = "default"
			p.Spec.Containers = []corev1.Container{{Name: "main", Image: "example.com/scheduler:1.0",
				Command:      []string{"/usr/local/bin/sched", "--config=/etc/sched/config.yaml"},
				VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/sched"}}}}
			p.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}}
		})
		f.settle()
	}

	mk("good", "profiles: []")
	got := <-runs
	assert.Equal(t, []string{"--config=/etc/sched/config.yaml"}, got.args)
	assert.Equal(t, "profiles: []", got.config)
	assert.FileExists(t, got.kubeconfig, "the in-cluster kubeconfig")
	lp := f.run("good")
	waitLine(t, lp, "serving")
	require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", "good", nil))
	f.settle()
	f.waitEnded(lp)
	code, _, _ := lp.proc.Exited()
	assert.Equal(t, 0, code, "it stopped when asked")

	mk("bad", "bad")
	var cs corev1.ContainerStatus
	require.Eventually(t, func() bool {
		f.settle()
		cs = f.pod("bad").Status.ContainerStatuses[0]
		return cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff"
	}, 30*time.Second, 10*time.Millisecond)
	require.NotNil(t, cs.LastTerminationState.Terminated)
	assert.Equal(t, int32(1), cs.LastTerminationState.Terminated.ExitCode)
	f.until(cs.LastTerminationState.Terminated.FinishedAt.Add(10 * time.Second)) // the back-off is over: a new run
	require.Eventually(t, func() bool {
		f.settle()
		return f.pod("bad").Status.ContainerStatuses[0].RestartCount == 3
	}, 30*time.Second, 10*time.Millisecond)
	var logs strings.Builder
	require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "bad", "main", LogOptions{Previous: true}, &logs))
	assert.Equal(t, "config.yaml: cannot parse\n", logs.String())
}
