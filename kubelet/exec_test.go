package kubelet

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/kubelet/shell"
	"github.com/kubesim/kubesim/runmode"
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

// Exec sees the pod's environment; port-forward reaches what the pod's
// containers listen on: the simulated nginx on 80, a process registered
// on the pod network, and nothing else (containerd's refusal).
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
	assert.Regexp(t, "^[0-9a-f]{64}$", target.Name, "the pod sandbox's id")
	assert.Empty(t, target.UID)
	ip := f.pod("web").Status.PodIP
	nginx, err := target.Dial(context.Background(), 80)
	require.NoError(t, err)
	_, err = io.WriteString(nginx, "GET / HTTP/1.0\r\n\r\n")
	require.NoError(t, err)
	page, _ := io.ReadAll(nginx)
	nginx.Close()
	assert.Contains(t, string(page), "HTTP/1.1 200 OK\r\nServer: nginx/")
	assert.Contains(t, string(page), "<title>Welcome to nginx!</title>")
	// nginx wrote the request to its access log, which is the
	// container's log.
	var logs strings.Builder
	require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "web", "nginx", LogOptions{}, &logs))
	stamp := f.clk.Now().UTC().Format("02/Jan/2006:15:04:05 -0700")
	assert.True(t, strings.HasSuffix(logs.String(), "start worker process 32\n127.0.0.1 - - ["+stamp+`] "GET / HTTP/1.0" 200 615 "-" "-" "-"`+"\n"), logs.String())
	_, err = target.Dial(context.Background(), 8080)
	require.Error(t, err)
	assert.Regexp(t, `^failed to execute portforward in network namespace "/var/run/netns/cni-[0-9a-f-]{36}": `+
		`failed to connect to localhost:8080 inside namespace "`+target.Name+`", IPv4: dial tcp4 127.0.0.1:8080: connect: connection refused `+
		`IPv6 dial tcp6 \[::1\]:8080: connect: connection refused $`, err.Error())

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			io.WriteString(c, "hi")
			c.Close()
		}
	}()
	network.Register(net.JoinHostPort(ip, "8080"), l.Addr().String())
	c, err := target.Dial(context.Background(), 8080)
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

// A container's Service variables come from the kubelet's service
// informer, which the step syncs before the kubelet's own step: a Service
// made after the kubelet started is in the environment of a container
// that starts after it, and a Service of another namespace is not. Two
// kubelets given one shared factory hold one Service cache (live mode:
// the kubelets of one process share the controller manager's), and its
// ConfigMap cache too, which only a shared factory may list.
func TestServiceVariablesFromTheServiceInformer(t *testing.T) {
	f := newFixture(t, Config{})
	for _, svc := range []struct{ ns, name, ip string }{{"default", "web-db", "10.96.0.20"}, {"other", "cache", "10.96.0.30"}} {
		if svc.ns != "default" {
			_, err := f.env.Client.Namespaces().Create(f.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: svc.ns}})
			require.NoError(t, err)
		}
		_, err := f.env.Client.Services().Create(f.ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: svc.ns, Name: svc.name},
			Spec: corev1.ServiceSpec{ClusterIP: svc.ip, Ports: []corev1.ServicePort{{Port: 5432, Protocol: corev1.ProtocolTCP}}}})
		require.NoError(t, err)
	}
	f.createPod("app", nil)
	f.settle()
	for f.pod("app").Status.Phase != corev1.PodRunning {
		f.next()
	}
	env, err := f.k.ExecTarget(f.ctx, "default", "app", "nginx")
	require.NoError(t, err)
	var out strings.Builder
	require.Equal(t, 0, f.k.Exec(f.ctx, env, []string{"sh", "-c", "echo db=$WEB_DB_SERVICE_HOST:$WEB_DB_SERVICE_PORT cache=$CACHE_SERVICE_HOST"}, shell.Stdio{Stdout: &out}))
	assert.Equal(t, "db=10.96.0.20:5432 cache=\n", out.String())

	shared := cache.NewFactory(cache.FactoryConfig{Share: true})
	var kubelets []*Kubelet
	for i, name := range []string{"node-a", "node-b"} {
		k, err := New(Config{Client: f.env.Client, Clock: f.env.Clock, Mode: runmode.Live, NodeName: name,
			PodCIDR: fmt.Sprintf("10.244.%d.0/24", 20+i), SharedInformers: shared})
		require.NoError(t, err)
		kubelets = append(kubelets, k)
	}
	assert.Same(t, kubelets[0].loops.services, kubelets[1].loops.services)
	assert.Same(t, kubelets[0].loops.configMaps, kubelets[1].loops.configMaps)
	assert.Nil(t, f.k.loops.configMaps, "a kubelet without a shared factory GETs the ConfigMaps it needs")
	assert.NotSame(t, kubelets[0].loops.pods, kubelets[1].loops.pods, "each node watches its own pods")
}
