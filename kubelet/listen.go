package kubelet

import (
	"context"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/kubelet/programs"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// A simulated container's program may listen on a port (package
// programs: nginx on 80, redis-server on 6379…): its timeline says from
// when (timeline.listening). A connection to the pod's address and that
// port — a container's wget through the pod network, `kubectl
// port-forward` — is a pipe whose far end the program's Server answers,
// while the container runs; what the server logs (nginx's access log) is
// the container's log, at the cluster's time.

// dialSimulated connects to port of the pod of this node whose address
// is ip (a podnet.SimulatedDialer), or the local image's process that
// runs in its network namespace: ok false when no running container of
// it listens there, as a pod refuses a port nothing listens on. The
// client's address is podnet.Source(ctx).
func (k *Kubelet) dialSimulated(ctx context.Context, ip, port string) (net.Conn, bool) {
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, false
	}
	type run struct {
		name, id string
		started  time.Time
	}
	k.stateMu.Lock()
	var key string
	var running []run
	for kk, rt := range k.runtimes {
		if rt.ip == ip && rt.stage == stageStarted {
			key = kk
			for _, c := range rt.containers {
				if c.state == containerRunning {
					running = append(running, run{c.name, c.id, c.startedAt})
				}
			}
		}
	}
	host, local := k.localAddr(key)
	k.stateMu.Unlock()
	if key == "" {
		return nil, false
	}
	if local && host == ip {
		// A local image's process in the pod's own network namespace
		// (localimage.go) listens at the pod's address, on the host's
		// real network: what it does not listen on, the simulated
		// containers beside it may.
		var d net.Dialer
		if c, err := d.DialContext(ctx, "tcp4", net.JoinHostPort(ip, port)); err == nil {
			return c, true
		}
	}
	k.mu.Lock()
	inf := k.loops.pods
	k.mu.Unlock()
	ns, name, _ := strings.Cut(key, "/")
	pod, ok := inf.Get(ns, name)
	if !ok {
		return nil, false
	}
	now := k.cfg.Clock.Now()
	for _, r := range running {
		spec := specContainer(pod, r.name)
		tl, ok := k.playedTimeline(pod, spec)
		if !ok {
			continue
		}
		srv, ok := tl.listening(p, now.Sub(r.started))
		if !ok {
			continue
		}
		from := podnet.Source(ctx)
		if from == "" {
			from = "127.0.0.1"
		}
		client, server := podnet.Pipe(net.JoinHostPort(from, strconv.Itoa(k.ephemeralPort())), net.JoinHostPort(ip, port))
		c := &programs.Conn{Conn: server, Now: k.cfg.Clock.Now, Started: r.started, Memory: k.memory(key, r.id),
			Log:   func(line string) { k.appendLog(key, r.id, r.started, line) },
			Files: k.containerFiles(context.WithoutCancel(ctx), pod, spec)}
		go srv.Serve(c)
		return client, true
	}
	return nil, false
}

// containerFiles is the filesystem of container c of pod as its
// processes see it (programs.Files), made when a server first reads it.
func (k *Kubelet) containerFiles(ctx context.Context, pod *corev1.Pod, c *corev1.Container) programs.Files {
	return &lazyFiles{build: func() shell.Environment {
		// The sources of a container's own run: a server reads its
		// files, it asks for no token.
		env := containerEnv(ctx, pod, c, simSources{envSources: k.envSources(true), overlays: map[string]shell.Volume{}})
		k.addDeviceEnv(&env, pod, c) // devices.go
		env.Layer = k.writableLayer(pod, c.Name)
		return env
	}}
}

// lazyFiles reads the environment build makes, made once, at its first
// read.
type lazyFiles struct {
	once  sync.Once
	build func() shell.Environment
	env   shell.Environment
}

func (f *lazyFiles) get() shell.Environment {
	f.once.Do(func() { f.env = f.build() })
	return f.env
}

func (f *lazyFiles) ReadFile(name string) ([]byte, bool) { return shell.ReadFile(f.get(), name) }
func (f *lazyFiles) IsDir(name string) bool              { return shell.IsDir(f.get(), name) }
func (f *lazyFiles) OnMount(name string) bool            { return shell.OnMount(f.get(), name) }

// ephemeralPort is the client's port of a simulated connection: from
// the range Linux picks from (32768–60999), in turn.
func (k *Kubelet) ephemeralPort() int {
	return 32768 + int(k.portTurn.Add(1)%28232)
}

// playedTimeline is the timeline already played for container c of pod,
// if any (the pod loop plays it at every sync): a connection never plays
// a program itself, as the program dialing may be the one being played.
func (k *Kubelet) playedTimeline(pod *corev1.Pod, c *corev1.Container) (timeline, bool) {
	p := programFor(pod, c)
	k.simMu.Lock()
	defer k.simMu.Unlock()
	e := k.sims[simKey{pod: pod.Namespace + "/" + pod.Name, container: c.Name}]
	if e == nil || e.uid != string(pod.UID) || e.image != c.Image || !slices.Equal(e.argv, p.argv) {
		return timeline{}, false
	}
	return e.tl, true
}

// memory is what the server process of the container run id keeps.
func (k *Kubelet) memory(podKey, id string) *programs.Memory {
	k.simMu.Lock()
	defer k.simMu.Unlock()
	if k.memories == nil {
		k.memories = map[string]map[string]*programs.Memory{}
	}
	if k.memories[podKey] == nil {
		k.memories[podKey] = map[string]*programs.Memory{}
	}
	m := k.memories[podKey][id]
	if m == nil {
		m = &programs.Memory{}
		k.memories[podKey][id] = m
	}
	return m
}

// appendLog adds a line the container run id of the pod key printed
// outside its program's play (a server's access log, an attached
// session), at the cluster's time.
func (k *Kubelet) appendLog(podKey, id string, started time.Time, text string) {
	at := k.cfg.Clock.Now().Sub(started)
	k.simMu.Lock()
	if k.attached == nil {
		k.attached = map[string]map[string][]logLine{}
	}
	if k.attached[podKey] == nil {
		k.attached[podKey] = map[string][]logLine{}
	}
	lines := append(k.attached[podKey][id], logLine{at: at, text: text})
	k.attached[podKey][id] = lines[max(len(lines)-maxLogLines, 0):]
	k.simMu.Unlock()
}
