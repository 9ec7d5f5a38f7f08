package kubelet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/kubelet/portforward"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// StreamError is a refusal of exec, attach or port-forward before any
// stream opened, with the HTTP code the kubelet answers; its words reach
// kubectl as "unable to upgrade connection: <message>".
type StreamError struct {
	Code    int
	Message string
}

func (e *StreamError) Error() string { return e.Message }

// runningPod finds a pod of this node by name (the kubelet's
// GetPodByName); the real kubelet answers "pod does not exist" with 404.
func (k *Kubelet) runningPod(namespace, podName string) (*corev1.Pod, error) {
	k.mu.Lock()
	inf := k.loops.pods
	k.mu.Unlock()
	pod, ok := inf.Get(namespace, podName)
	if !ok || pod.Spec.NodeName != k.cfg.NodeName {
		return nil, &StreamError{Code: http.StatusNotFound, Message: "pod does not exist"}
	}
	return pod, nil
}

// runningContainer is the spec of a container of pod that is running
// now, as the runtime's findContainer would find it; anything else (not
// started, exited, not in the pod) is "container not found".
func runningContainer(pod *corev1.Pod, name string) (*corev1.Container, error) {
	notFound := &StreamError{Code: http.StatusInternalServerError, Message: fmt.Sprintf("container not found (%q)", name)}
	var spec *corev1.Container
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers, ephemeralSpecs(pod)} {
		for i := range cs {
			if cs[i].Name == name {
				spec = &cs[i]
			}
		}
	}
	if spec == nil {
		return nil, notFound
	}
	for _, statuses := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for _, st := range statuses {
			if st.Name == name && st.State.Running != nil {
				return spec, nil
			}
		}
	}
	return nil, notFound
}

// ExecTarget checks that container of pod is running here and returns
// the environment an exec into it sees. Call it before upgrading the
// connection: its error is the answer.
func (k *Kubelet) ExecTarget(ctx context.Context, namespace, podName, container string) (shell.Environment, error) {
	pod, err := k.runningPod(namespace, podName)
	if err != nil {
		return shell.Environment{}, err
	}
	c, err := runningContainer(pod, container)
	if err != nil {
		return shell.Environment{}, err
	}
	env := containerEnv(ctx, pod, c, k.envSources(true))
	k.addDeviceEnv(&env, pod, c) // devices.go
	env.Network = clusterNetwork{k: k, pod: pod}
	k.addProgramFiles(&env, pod, c)
	env.Layer = k.writableLayer(pod, c.Name)
	return env, nil
}

// writableLayer is the running container's writable layer, made at the
// first exec that needs it; nil when the container does not run.
func (k *Kubelet) writableLayer(pod *corev1.Pod, container string) *shell.Layer {
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	rt := k.runtimes[pod.Namespace+"/"+pod.Name]
	if rt == nil || rt.uid != pod.UID {
		return nil
	}
	i := rt.find(container)
	if i < 0 || rt.containers[i].state != containerRunning {
		return nil
	}
	if rt.containers[i].layer == nil {
		rt.containers[i].layer = shell.NewLayer()
	}
	return rt.containers[i].layer
}

// addProgramFiles puts the files the container's program has touched
// and not removed by now into env (empty, as touch makes them): the
// liveness lab's `kubectl exec liveness -- cat /tmp/healthy` finds the
// file, then, after the rm, does not.
func (k *Kubelet) addProgramFiles(env *shell.Environment, pod *corev1.Pod, c *corev1.Container) {
	k.stateMu.Lock()
	var started time.Time
	if rt := k.runtimes[pod.Namespace+"/"+pod.Name]; rt != nil && rt.uid == pod.UID {
		if i := rt.find(c.Name); i >= 0 && rt.containers[i].state == containerRunning {
			started = rt.containers[i].startedAt
		}
	}
	k.stateMu.Unlock()
	if started.IsZero() {
		return
	}
	elapsed := k.cfg.Clock.Now().Sub(started)
	tl := k.timeline(pod, c, elapsed)
	for name := range tl.files {
		if !tl.fileExists(name, elapsed) {
			continue
		}
		if !path.IsAbs(name) {
			name = path.Join("/", c.WorkingDir, name)
		}
		if _, ok := env.Files[name]; !ok {
			env.Files[name] = []byte{}
		}
	}
}

// Exec runs cmd in env (from ExecTarget) with the built-in command set
// and returns its exit code (the runtime's ExecSync/Exec).
func (k *Kubelet) Exec(ctx context.Context, env shell.Environment, cmd []string, stdio shell.Stdio) int {
	if stdio.TTY {
		// The runtime sets TERM for a process given a terminal.
		env.Env = append(env.Env, shell.Var{Name: "TERM", Value: "xterm"})
	}
	return shell.Command{Args: cmd, Env: env, Stdio: stdio, Clock: k.cfg.Clock}.Run(ctx)
}

// AttachTarget checks that container of pod is running here, for attach.
func (k *Kubelet) AttachTarget(namespace, podName, container string) error {
	pod, err := k.runningPod(namespace, podName)
	if err != nil {
		return err
	}
	_, err = runningContainer(pod, container)
	return err
}

// Attach connects stdio to the container's process (the runtime's
// Attach). A container started with stdin (spec.stdin, as `kubectl run
// -i` makes it) whose program is a shell runs that shell over the
// stream: typed lines run, and when it ends (exit, ^D, or the client
// going away from a stdinOnce container) the container exits with its
// status (interactive.go). Any other process reads no input: stdin is
// drained and dropped, and what it prints from now on is streamed until
// it exits or ctx ends.
func (k *Kubelet) Attach(ctx context.Context, namespace, podName, container string, stdio shell.Stdio) error {
	if pod, err := k.runningPod(namespace, podName); err == nil {
		if c, err := runningContainer(pod, container); err == nil && interactive(pod, c) && stdio.Stdin != nil {
			return k.attachShell(ctx, pod, c, stdio)
		}
	}
	if stdio.Stdin != nil {
		go io.Copy(io.Discard, stdio.Stdin)
	}
	stdout := stdio.Stdout
	if stdout == nil {
		stdout = io.Discard
	}
	zero := int64(0)
	err := k.ContainerLogs(ctx, namespace, podName, container, LogOptions{Follow: true, TailLines: &zero}, stdout)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// envSources reads what a pod refers to from the API server, and gives
// its writable volumes' storage when volumes is set. Services come from
// the kubelet's service informer when it has synced (the real kubelet's
// service lister), from the API server before.
type envSources struct {
	c *client.Client
	// allocatable is the node's (the kubelet's capacity: nothing is
	// reserved for the system).
	allocatable corev1.ResourceList
	volumes     *Kubelet
	services    *cache.Informer[*corev1.Service]
	configMaps  *cache.Informer[*corev1.ConfigMap]
}

// envSources are the sources of this kubelet's containers: with the
// kubelet's volumes when volumes is true.
func (k *Kubelet) envSources(volumes bool) envSources {
	k.mu.Lock()
	s := envSources{c: k.c, allocatable: k.cfg.Capacity, services: k.loops.services, configMaps: k.loops.configMaps}
	k.mu.Unlock()
	if volumes {
		s.volumes = k
	}
	return s
}

// Volume implements containerenv.VolumeSource.
func (s envSources) Volume(ctx context.Context, pod *corev1.Pod, vol *corev1.Volume) (shell.Volume, bool) {
	if s.volumes == nil {
		return nil, false
	}
	return s.volumes.podVolume(ctx, pod, vol)
}

func (s envSources) ConfigMap(ctx context.Context, ns, name string) (*corev1.ConfigMap, error) {
	// A ConfigMap the cache does not have yet may have been made a
	// moment ago, with the pod that names it: the API server answers.
	if s.configMaps != nil && s.configMaps.HasSynced() {
		if cm, ok := s.configMaps.Get(ns, name); ok {
			return cm, nil
		}
	}
	return s.c.ConfigMaps().Get(ctx, ns, name)
}

func (s envSources) Secret(ctx context.Context, ns, name string) (*corev1.Secret, error) {
	return s.c.Secrets().Get(ctx, ns, name)
}

// cached is the service informer when its cache can answer.
func (s envSources) cached() (*cache.Informer[*corev1.Service], bool) {
	return s.services, s.services != nil && s.services.HasSynced()
}

func (s envSources) Service(ctx context.Context, ns, name string) (*corev1.Service, error) {
	if inf, ok := s.cached(); ok {
		if svc, found := inf.Get(ns, name); found {
			return svc, nil
		}
		return nil, api.NewNotFound(corev1.Resource("services"), name)
	}
	return s.c.Services().Get(ctx, ns, name)
}

func (s envSources) Services(ctx context.Context, ns string) ([]*corev1.Service, error) {
	if inf, ok := s.cached(); ok {
		return inf.ByIndex(cache.NamespaceIndex, ns), nil
	}
	list, err := s.c.Services().List(ctx, ns, client.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// NodeAllocatable implements containerenv.Sources.
func (s envSources) NodeAllocatable() corev1.ResourceList { return s.allocatable }

// ServiceAccountToken asks for a token bound to the pod (a TokenRequest
// to serviceaccounts/NAME/token, as the kubelet's token manager does).
func (s envSources) ServiceAccountToken(ctx context.Context, pod *corev1.Pod, audience string, expirationSeconds *int64) (string, error) {
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	spec := map[string]any{"boundObjectRef": map[string]any{"apiVersion": "v1", "kind": "Pod", "name": pod.Name, "uid": pod.UID}}
	if audience != "" {
		spec["audiences"] = []string{audience}
	}
	if expirationSeconds != nil {
		spec["expirationSeconds"] = *expirationSeconds
	}
	req := map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}
	var out struct {
		Status struct {
			Token string `json:"token"`
		} `json:"status"`
	}
	sas := client.Dynamic(s.c, client.ResourceInfo{Version: "v1", Resource: "serviceaccounts", Namespaced: true})
	if err := sas.PostSubresource(ctx, pod.Namespace, sa, "token", req, &out); err != nil {
		return "", err
	}
	if out.Status.Token == "" {
		return "", errors.New("the TokenRequest answer has no token")
	}
	return out.Status.Token, nil
}

// PortForwardTarget is the pod of this node a port-forward reaches (the
// kubelet's GetPortForward, which names the pod by its sandbox): the
// runtime connects to localhost:PORT inside the pod's network namespace,
// which reaches what the pod's containers listen on — a process run for
// real (the pod network's table; a local image's process, at the pod's
// address when it runs in the sandbox's real network namespace, else on
// the host's localhost, whose network it shares), or a simulated
// container's server (listen.go). A port nothing listens on is refused,
// in containerd's words.
func (k *Kubelet) PortForwardTarget(namespace, podName string) (portforward.Target, error) {
	pod, err := k.runningPod(namespace, podName)
	if err != nil {
		return portforward.Target{}, err
	}
	ip, network := pod.Status.PodIP, k.cfg.Network
	sandbox := sandboxID(pod)
	key := namespace + "/" + podName
	dial := func(ctx context.Context, port uint16) (net.Conn, error) {
		p := strconv.Itoa(int(port))
		k.stateMu.Lock()
		host, local := k.localAddr(key)
		k.stateMu.Unlock()
		if local {
			var d net.Dialer
			if c, err := d.DialContext(ctx, "tcp4", net.JoinHostPort(host, p)); err == nil {
				return c, nil
			}
		}
		if ip != "" {
			if network != nil {
				if _, ok := network.Lookup(net.JoinHostPort(ip, p)); ok {
					return network.DialContext(ctx, "tcp", net.JoinHostPort(ip, p))
				}
			}
			if c, ok := k.dialSimulated(podnet.WithSource(ctx, "127.0.0.1"), ip, p); ok {
				return c, nil
			}
		}
		return nil, fmt.Errorf("failed to execute portforward in network namespace %q: failed to connect to localhost:%d inside namespace %q, "+
			"IPv4: dial tcp4 127.0.0.1:%d: connect: connection refused IPv6 dial tcp6 [::1]:%d: connect: connection refused ",
			netnsPath(pod), port, sandbox, port, port)
	}
	return portforward.Target{Name: sandbox, Dial: dial}, nil
}

// sandboxID is the id the runtime gives the pod's sandbox (64 hex
// digits, stable for the pod).
func sandboxID(pod *corev1.Pod) string {
	sum := sha256.Sum256([]byte("sandbox/" + string(pod.UID)))
	return hex.EncodeToString(sum[:])
}

// netnsPath is the pod's network namespace as the CNI plugin names it.
func netnsPath(pod *corev1.Pod) string {
	sum := sha256.Sum256([]byte("netns/" + string(pod.UID)))
	h := hex.EncodeToString(sum[:16])
	return fmt.Sprintf("/var/run/netns/cni-%s-%s-%s-%s-%s", h[:8], h[8:12], h[12:16], h[16:20], h[20:32])
}
