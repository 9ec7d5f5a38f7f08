package kubelet

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet/containerenv"
	"github.com/kubesim/kubesim/kubelet/hostprocess"
	"github.com/kubesim/kubesim/kubelet/programs"
	"github.com/kubesim/kubesim/pki"
)

// LocalImages are binaries on the host that pods may run, by image name:
// what `kind load docker-image` does for a locally built image, `kubesim
// serve --local-image NAME=PATH` does for a locally built binary. A
// container whose image is one of the names runs the binary as a child
// process of the kubelet (package hostprocess); its exit, output and
// deletion go through the same lifecycle as a simulated container's
// (docs/containers.md, section 11).
type LocalImages struct {
	// Paths maps an image name to its binary. Only these run: a pod
	// cannot name a host path itself.
	Paths map[string]string
	// InProcess maps an image name to a program compiled into kubesim
	// that stands for the image's binary (kube-scheduler's, for the
	// images of kubernetes.io's "Configure Multiple Schedulers"). It runs
	// in the kubelet's own process, otherwise as a binary of Paths does:
	// the same in-cluster configuration, log, exit code and stop; it
	// reads the files the container sees (its mounted volumes).
	InProcess map[string]InProcessMain
	// Server is the API server's address (https://HOST:PORT) and CA the
	// PEM of the CA that signed its certificate: the process's in-cluster
	// configuration.
	Server string
	CA     []byte
	// Dir holds one directory per container run (its working directory
	// and kubeconfig); empty: a temporary directory.
	Dir string
}

// InProcessMain is the program of an InProcess image: it returns its
// exit code, and returns soon once ctx is cancelled (the container is
// stopped).
type InProcessMain func(ctx context.Context, r InProcessRun) int

// InProcessRun is one run of an InProcess image's program.
type InProcessRun struct {
	// Args are its arguments after the binary (command[1:] and args, or
	// args), and Env its environment, KEY=VALUE: the in-cluster
	// configuration (KUBECONFIG, KUBERNETES_SERVICE_HOST) among them.
	Args, Env []string
	// Stdout is its output, stdout and stderr as one: the container's
	// log.
	Stdout io.Writer
	// Files are the container's files as its process sees them: the
	// ConfigMaps and Secrets mounted into it, by their paths there.
	Files programs.Files
}

// Getenv is the value of the variable name in r's environment ("" when
// it is not set), the last one set winning, as in exec's environment.
func (r InProcessRun) Getenv(name string) string {
	v := ""
	for _, kv := range r.Env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// localTokenSeconds is how long the token of a local container lasts:
// the kubelet's default for a projected service account token (an hour
// and 7 s). It is rotated at 80% of that, as the kubelet's token manager
// does, in a file the kubeconfig names (tokenFile), which client-go reads
// again every minute.
const localTokenSeconds = 3607

// localTokenRefresh is when a local container's token is renewed: at 80%
// of its life.
const localTokenRefresh = localTokenSeconds * time.Second * 8 / 10

// localProcess is one run of a local image.
type localProcess struct {
	proc *hostprocess.Process
	// podKey is the pod it belongs to; grace its
	// terminationGracePeriodSeconds, for a stop the pod's deletion does
	// not time (the kubelet itself stopping).
	podKey string
	grace  time.Duration
	dir    string
	// podIP is the pod's address when the process runs in the pod
	// sandbox's network namespace (sandboxNetNS); empty when it shares
	// the host's network.
	podIP string
	// exitQueued is closed once the process has ended and its pod is
	// queued for the kubelet's next look: after it, a sync sees the end
	// (Done alone is too early: the queueing runs just after it).
	exitQueued chan struct{}
}

// isLocal reports whether image names a local image.
func (k *Kubelet) isLocal(image string) bool {
	if k.cfg.LocalImages == nil {
		return false
	}
	_, ok := k.cfg.LocalImages.Paths[image]
	_, inProcess := k.cfg.LocalImages.InProcess[image]
	return ok || inProcess
}

// localBehaviours makes the containers of rt that run a local image
// behave as their process does (under stateMu): they exit when it has
// exited, with its code; they print nothing simulated.
func (k *Kubelet) localBehaviours(rt *podRuntime, bs map[string]containerBehaviour) {
	for i := range rt.containers {
		c := &rt.containers[i]
		if !k.isLocal(c.image) {
			continue
		}
		b := bs[c.name]
		b.tl, b.exits, b.exitAfter, b.exitCode = timeline{}, false, 0, 0
		if lp := k.local[c.id]; lp != nil && c.state == containerRunning {
			if code, at, ok := lp.proc.Exited(); ok {
				b.exits, b.exitAfter, b.exitCode = true, max(at.Sub(c.startedAt), 0), int32(code)
			}
		}
		bs[c.name] = b
	}
}

// syncLocal starts a process for every running container of a local
// image that has none (a start or restart the status now reports), asks
// the processes of containers no longer running to stop (a liveness kill,
// a changed image), and forgets the runs whose logs cannot be asked for
// any more (under stateMu).
func (k *Kubelet) syncLocal(ctx context.Context, key string, pod *corev1.Pod, rt *podRuntime) {
	if k.cfg.LocalImages == nil {
		return
	}
	keep := map[string]bool{}
	for i := range rt.containers {
		c := &rt.containers[i]
		if c.id != "" {
			keep[c.id] = c.state == containerRunning
		}
		if c.last != nil && c.last.ContainerID != "" {
			if _, ok := keep[c.last.ContainerID]; !ok {
				keep[c.last.ContainerID] = false
			}
		}
		if c.state == containerRunning && k.isLocal(c.image) && k.local[c.id] == nil {
			k.startLocal(ctx, key, pod, rt, c)
		}
	}
	for id, lp := range k.local {
		if lp.podKey != key {
			continue
		}
		running, kept := keep[id]
		if !running {
			k.stopLocal(lp)
		}
		if !kept {
			k.forgetLocal(id, lp)
		}
	}
}

// startLocal starts the process of container c of the pod whose runtime
// is rt (under stateMu).
func (k *Kubelet) startLocal(ctx context.Context, key string, pod *corev1.Pod, rt *podRuntime, c *containerRuntime) {
	li := k.cfg.LocalImages
	spec := specContainer(pod, c.name)
	grace := 30 * time.Second
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = time.Duration(*g) * time.Second
	}
	lp := &localProcess{podKey: key, grace: grace}
	argv, env, dir, err := k.localArgv(ctx, pod, spec, c.id)
	lp.dir = dir
	if err != nil {
		// The runtime could not create the container: it ends at once,
		// with the reason in its log.
		k.logger.Error("starting a local image", "pod", key, "image", c.image, "err", err)
		lp.proc = hostprocess.Failed(err.Error(), k.cfg.Clock)
	} else {
		argv0 := "" // the binary's path, as for an image's entrypoint
		if len(spec.Command) > 0 {
			argv0 = spec.Command[0] // not expanded: it names the binary, which is fixed
		}
		netns := k.sandboxNetNS(pod, rt)
		if netns != "" {
			lp.podIP = rt.ip
		}
		if main, ok := li.InProcess[c.image]; ok {
			// A goroutine of ours shares the host's network, as a
			// hostNetwork pod's process does.
			lp.podIP = ""
			run := InProcessRun{Args: argv, Env: env, Files: k.containerFiles(context.WithoutCancel(ctx), pod, spec)}
			lp.proc = hostprocess.StartFunc(func(ctx context.Context, out io.Writer) int {
				run.Stdout = out
				return main(ctx, run)
			}, hostprocess.Spec{Clock: k.cfg.Clock})
		} else {
			lp.proc = hostprocess.Start(hostprocess.Spec{Path: li.Paths[c.image], Argv0: argv0, Args: argv, Env: env, Dir: dir,
				NetNS: netns, Clock: k.cfg.Clock})
		}
	}
	lp.exitQueued = make(chan struct{})
	k.local[c.id] = lp
	if err == nil && li.Server != "" && !setsEnv(spec, "KUBECONFIG") {
		// The first renewal is timed from now, when localArgv wrote the
		// token, as the token manager times it from the token's issue:
		// a timer made later by the goroutine, once it is scheduled,
		// would miss a clock that moved on meanwhile.
		first := k.cfg.Clock.NewTimer(localTokenRefresh)
		go k.rotateToken(lp, pod, filepath.Join(lp.dir, "token"), first)
	}
	go func() {
		// Its exit is the next transition of the pod: look at it now.
		<-lp.proc.Done()
		k.mu.Lock()
		loop := k.loops.podLoop
		k.mu.Unlock()
		loop.Enqueue(key, controllers.Cause{Event: "container process exited", Kind: "Pod",
			Namespace: pod.Namespace, Name: pod.Name})
		close(lp.exitQueued)
	}()
}

// sandboxNetNS is the network namespace the local processes of pod are
// started in: the sandbox's, when the CNI manager made a real one (as
// root on Linux), so that they have the pod's address as a container
// has; else none, and they share the host's network — as a hostNetwork
// pod's containers do in Kubernetes (an operator run so reaches an API
// server that listens on the host's loopback).
func (k *Kubelet) sandboxNetNS(pod *corev1.Pod, rt *podRuntime) string {
	if k.cni == nil || !k.cni.RealNetNS() || pod.Spec.HostNetwork || rt.sandbox == nil || rt.ip == "" {
		return ""
	}
	return rt.sandbox.NetNS
}

// localAddr is the host where the running local processes of the pod
// key listen: the pod's address when they run in its network namespace,
// else the host's loopback; ok false when none runs (under stateMu).
func (k *Kubelet) localAddr(key string) (host string, ok bool) {
	for _, lp := range k.local {
		if lp.podKey != key {
			continue
		}
		if _, _, done := lp.proc.Exited(); done {
			continue
		}
		if lp.podIP != "" {
			return lp.podIP, true
		}
		host, ok = "127.0.0.1", true
	}
	return host, ok
}

// localArgv is what the process of container c runs with: argv after the
// binary (command[1:] and args, or args alone: the binary is the image's
// entrypoint), the container's environment with the in-cluster variables,
// and its directory, where its kubeconfig is written.
func (k *Kubelet) localArgv(ctx context.Context, pod *corev1.Pod, c *corev1.Container, id string) (argv, env []string, dir string, err error) {
	li := k.cfg.LocalImages
	if len(c.Command) > 0 {
		argv = append(argv, c.Command[1:]...)
	}
	argv = append(argv, c.Args...)
	base := li.Dir
	if base == "" {
		base = os.TempDir()
	}
	dir = filepath.Join(base, "kubesim-local", string(pod.UID), c.Name+"-"+shortID(id))
	k.runDirs.Lock()
	err = os.MkdirAll(dir, 0o700)
	k.runDirs.Unlock()
	if err != nil {
		return nil, nil, "", err
	}
	built := containerenv.Build(ctx, pod, c, k.envSources(false))
	k.addDeviceEnv(&built, pod, c) // devices.go
	for _, v := range built.Env {
		env = append(env, v.Name+"="+v.Value)
	}
	// $(VAR) in command and args is the container's variable, as the
	// kubelet expands it.
	argv = containerenv.ExpandCommand(argv, c, built.Env)
	// Later entries win in exec's environment. The host's PATH, unless
	// the pod sets one: the binary runs on the host, where the image's
	// PATH means nothing; HOME is the run's directory.
	if !setsEnv(c, "PATH") {
		env = append(env, "PATH="+os.Getenv("PATH"))
	}
	if !setsEnv(c, "HOME") {
		env = append(env, "HOME="+dir)
	}
	if li.Server != "" && !setsEnv(c, "KUBECONFIG") {
		u, perr := url.Parse(li.Server)
		if perr != nil {
			return nil, nil, "", fmt.Errorf("API server address %q: %w", li.Server, perr)
		}
		host, port, _ := net.SplitHostPort(u.Host)
		if err := k.writeToken(ctx, pod, filepath.Join(dir, "token")); err != nil {
			return nil, nil, "", err
		}
		kubeconfig := filepath.Join(dir, "kubeconfig")
		sa := pod.Spec.ServiceAccountName
		if sa == "" {
			sa = "default"
		}
		if err := pki.WriteTokenFileKubeconfig(kubeconfig, li.Server, li.CA, filepath.Join(dir, "token"),
			"system:serviceaccount:"+pod.Namespace+":"+sa, "in-cluster", pod.Namespace); err != nil {
			return nil, nil, "", err
		}
		env = append(env, "KUBERNETES_SERVICE_HOST="+host, "KUBERNETES_SERVICE_PORT="+port, "KUBECONFIG="+kubeconfig)
	}
	return argv, env, dir, nil
}

// writeToken asks for a token of the pod's service account, bound to the
// pod (a TokenRequest, as the kubelet's token manager), and writes it to
// path: to a new file renamed over the old, so that a reader never sees
// half a token.
func (k *Kubelet) writeToken(ctx context.Context, pod *corev1.Pod, path string) error {
	exp := int64(localTokenSeconds)
	token, err := k.envSources(false).ServiceAccountToken(ctx, pod, "", &exp)
	if err != nil {
		return fmt.Errorf("a token for the pod's service account: %w", err)
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(token), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// rotateToken renews the token of a run when timer t fires, then at 80%
// of each new token's life, until the run ends; a failed renewal is tried
// again 10 s later.
func (k *Kubelet) rotateToken(lp *localProcess, pod *corev1.Pod, path string, t clock.Timer) {
	for {
		select {
		case <-lp.proc.Done():
			t.Stop()
			return
		case <-t.C():
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := k.writeToken(ctx, pod, path)
		cancel()
		wait := localTokenRefresh
		if err != nil {
			k.logger.Error("rotating a local container's token", "pod", lp.podKey, "err", err)
			wait = 10 * time.Second
		}
		t = k.cfg.Clock.NewTimer(wait)
	}
}

// setsEnv reports whether the container's spec sets the variable.
func setsEnv(c *corev1.Container, name string) bool {
	for _, e := range c.Env {
		if e.Name == name {
			return true
		}
	}
	return false
}

// shortID is the first 12 hex digits of a container id, as crictl shows.
func shortID(id string) string {
	if _, rest, ok := strings.Cut(id, "://"); ok {
		id = rest
	}
	if len(id) > 12 {
		id = id[:12]
	}
	return id
}

// stopLocal asks a process to stop (SIGTERM) and kills it (SIGKILL) if
// it has not after its grace period, on the kubelet's clock.
func (k *Kubelet) stopLocal(lp *localProcess) {
	k.stopLocalBy(lp, k.cfg.Clock.Now().Add(lp.grace))
}

// stopLocalBy asks a process to stop and kills it at deadline.
func (k *Kubelet) stopLocalBy(lp *localProcess, deadline time.Time) {
	select {
	case <-lp.proc.Done():
		return
	default:
	}
	lp.proc.Terminate()
	t := k.cfg.Clock.NewTimer(max(deadline.Sub(k.cfg.Clock.Now()), 0))
	go func() {
		defer t.Stop()
		select {
		case <-lp.proc.Done():
		case <-t.C():
			lp.proc.Kill()
		}
	}()
}

// forgetLocal drops a run whose log is gone, killing it if it still
// runs, and removes its directory (under stateMu).
func (k *Kubelet) forgetLocal(id string, lp *localProcess) {
	lp.proc.Kill()
	delete(k.local, id)
	if lp.dir != "" {
		go func() {
			<-lp.proc.Done()
			k.removeRunDir(lp.dir)
		}()
	}
}

// removeRunDir removes a run's directory, and its pod's once empty.
func (k *Kubelet) removeRunDir(dir string) {
	k.runDirs.Lock()
	defer k.runDirs.Unlock()
	_ = os.RemoveAll(dir)
	_ = os.Remove(filepath.Dir(dir)) // fails while another run's is there
}

// forgetPodLocal kills and forgets every run of a pod that is gone from
// the API server (under stateMu): its grace, if any, was spent before.
func (k *Kubelet) forgetPodLocal(key string) {
	for id, lp := range k.local {
		if lp.podKey == key {
			k.forgetLocal(id, lp)
		}
	}
}

// localAlive reports whether a process of the pod still runs (under
// stateMu).
func (k *Kubelet) localAlive(key string) bool {
	_, ok := k.localAddr(key)
	return ok
}

// localExit is how the process of container id ended, if it is a local
// run that has.
func (k *Kubelet) localExit(id string) (code int32, at time.Time, ok bool) {
	lp := k.local[id]
	if lp == nil {
		return 0, time.Time{}, false
	}
	c, at, ok := lp.proc.Exited()
	return int32(c), at, ok
}

// StopAllLocal stops every local process of the node (the cluster is
// closing): SIGTERM, then SIGKILL after each pod's grace period, and
// returns once they have ended.
func (k *Kubelet) StopAllLocal() {
	k.stateMu.Lock()
	var procs []*localProcess
	for id, lp := range k.local {
		procs = append(procs, lp)
		delete(k.local, id)
	}
	k.stateMu.Unlock()
	for _, lp := range procs {
		k.stopLocal(lp)
	}
	for _, lp := range procs {
		<-lp.proc.Done()
		if lp.dir != "" {
			k.removeRunDir(lp.dir)
		}
	}
}

// localLogLines are the lines a local run printed, as offsets from its
// start; how many earlier lines were rotated away; a channel closed when
// more come; whether the run has ended (then the lines are all there).
func (k *Kubelet) localLogLines(id string, start time.Time) (tl timeline, dropped int, changed <-chan struct{}, ended, ok bool) {
	k.stateMu.Lock()
	lp := k.local[id]
	k.stateMu.Unlock()
	if lp == nil {
		return timeline{}, 0, nil, true, false
	}
	// Ended first: a run that had ended before the lines were read has
	// printed them all.
	_, _, ended = lp.proc.Exited()
	lines, dropped, changed := lp.proc.Lines()
	tl.lines = make([]logLine, len(lines))
	for i, l := range lines {
		tl.lines[i] = logLine{at: max(l.At.Sub(start), 0), text: l.Text}
	}
	return tl, dropped, changed, ended, true
}
