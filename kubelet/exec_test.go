package kubelet

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/kubelet/shell"
)

func TestRunningContainer(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init"}},
		Containers:     []corev1.Container{{Name: "app"}, {Name: "side"}},
	}}
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{
		{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}},
		{Name: "side", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}},
	}
	c, err := runningContainer(pod, "init")
	require.NoError(t, err)
	assert.Equal(t, "init", c.Name)
	for _, name := range []string{"app", "side", "ghost"} {
		_, err := runningContainer(pod, name)
		var se *StreamError
		require.ErrorAs(t, err, &se, name)
		assert.Equal(t, http.StatusInternalServerError, se.Code)
		assert.Equal(t, `container not found ("`+name+`")`, se.Message)
	}
}

// Exec sees the pod's environment; port-forward dials the pod's IP on
// the pod network, where only registered addresses answer.
func TestExecAndPortForwardTargets(t *testing.T) {
	network := podnet.New()
	f := newFixture(t, Config{Network: network})
	f.createPod("web", func(p *corev1.Pod) { p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "1"}} })
	f.settle()
	for f.pod("web").Status.Phase != corev1.PodRunning {
		f.next()
	}

	_, err := f.k.ExecTarget(f.ctx, "default", "ghost", "nginx")
	assert.EqualError(t, err, "pod does not exist")
	env, err := f.k.ExecTarget(f.ctx, "default", "web", "nginx")
	require.NoError(t, err)
	var out strings.Builder
	code := f.k.Exec(f.ctx, env, []string{"sh", "-c", "echo $HOSTNAME $A $TERM"}, shell.Stdio{Stdout: &out})
	assert.Equal(t, 0, code)
	assert.Equal(t, "web 1\n", out.String(), "TERM only with a terminal")

	target, err := f.k.PortForwardTarget("default", "web")
	require.NoError(t, err)
	ip := f.pod("web").Status.PodIP
	_, err = target.Dial(context.Background(), 80)
	assert.EqualError(t, err, "failed to connect to localhost:80 inside namespace of pod web: dial tcp "+ip+":80: connect: connection refused "+
		"(nothing listens there: kubesim runs only a few images for real, such as the extension API servers)")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			io.WriteString(c, "hi")
			c.Close()
		}
	}()
	network.Register(net.JoinHostPort(ip, "80"), l.Addr().String())
	c, err := target.Dial(context.Background(), 80)
	require.NoError(t, err)
	data, _ := io.ReadAll(c)
	c.Close()
	assert.Equal(t, "hi", string(data))
}

// A file the container's script touches exists for exec from then on,
// until the script removes it (the liveness lab).
func TestExecSeesTheProgramsFiles(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("live", func(p *corev1.Pod) {
		p.Spec.Containers[0].Image = "busybox"
		p.Spec.Containers[0].Command = []string{"sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"}
	})
	f.settle()
	for f.pod("live").Status.Phase != corev1.PodRunning {
		f.next()
	}
	cat := func() int {
		env, err := f.k.ExecTarget(f.ctx, "default", "live", "nginx")
		require.NoError(t, err)
		return f.k.Exec(f.ctx, env, []string{"cat", "/tmp/healthy"}, shell.Stdio{})
	}
	assert.Equal(t, 0, cat())
	f.clk.Step(31 * time.Second)
	assert.Equal(t, 1, cat(), "removed after 30 s")
}
