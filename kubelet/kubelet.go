package kubelet

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet/cni"
	"github.com/kubesim/kubesim/kubelet/csi"
	"github.com/kubesim/kubesim/kubelet/deviceplugin"
	"github.com/kubesim/kubesim/kubelet/images"
	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/kubelet/programs"
	"github.com/kubesim/kubesim/kubelet/volumedata"
	"github.com/kubesim/kubesim/runmode"
)

// The defaults of a node, as a small real machine.
const (
	// DefaultPodCIDR is used when Config.PodCIDR is empty; give every node
	// its own range (10.244.N.0/24) or their pod IPs collide.
	DefaultPodCIDR = "10.244.0.0/24"
	// KubeletVersion is the version the node reports.
	KubeletVersion = "v1.32.0"
	// DefaultLeaseDuration is the lease's leaseDurationSeconds (the
	// kubelet's nodeLeaseDurationSeconds).
	DefaultLeaseDuration = 40 * time.Second
	// DefaultRenewInterval is how often the lease is renewed: a quarter of
	// the lease duration, as the kubelet does.
	DefaultRenewInterval = 10 * time.Second
	// DefaultNodeStatusReportFrequency is how often an unchanged node
	// status is posted anyway (the kubelet's nodeStatusReportFrequency).
	DefaultNodeStatusReportFrequency = 5 * time.Minute
)

// DefaultCapacity is a node's capacity when Config.Capacity is nil.
func DefaultCapacity() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("8Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
}

// Stages are the delays between the states a pod goes through on this
// node. Zero is allowed everywhere: the transition happens at once (still
// one status write each).
type Stages struct {
	// ContainerCreating is from the kubelet first seeing the bound pod to
	// its containers waiting in ContainerCreating.
	ContainerCreating time.Duration
	// Running is from ContainerCreating to the containers running.
	Running time.Duration
	// Ready is from a container starting to it being ready.
	Ready time.Duration
	// Stop is how long containers take to stop after the kubelet kills
	// them for a deletion; the pod's remaining grace period caps it.
	Stop time.Duration
}

// Config builds a Kubelet.
type Config struct {
	// Client talks to the API server (required).
	Client *client.Client
	// Informers builds the kubelet's pod informer (nil: a private one; the
	// cluster passes one with its cache mutation detector).
	Informers *cache.Factory
	// SharedInformers builds the informers of what every node reads
	// alike (Services): the cluster passes its controller manager's
	// factory, so that in live mode the kubelets of one process hold one
	// Service cache rather than a thousand copies of it, each listed and
	// watched (nil: Informers).
	SharedInformers *cache.Factory
	// Clock times every stage (required).
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// NodeName is the node's name (required).
	NodeName string
	// Capacity is the node's capacity and allocatable (DefaultCapacity).
	Capacity corev1.ResourceList
	// Labels are added to the well-known node labels.
	Labels map[string]string
	// Taints are registered with the node.
	Taints []corev1.Taint
	// PodCIDR is the node's pod range; pod IPs are given from it in order
	// (DefaultPodCIDR).
	PodCIDR string
	// InternalIP is the node's address (the .1 address of PodCIDR); a
	// kubelet in its own process (`kubesim kubelet`) gives the address its
	// kubelet API listens on, for the API server to dial.
	InternalIP string
	// KubeletPort is the port of its kubelet API, the Node's
	// status.daemonEndpoints.kubeletEndpoint.port (10250, the kubelet's
	// --port).
	KubeletPort int32
	// Stages are the pod lifecycle delays.
	Stages Stages
	// Behaviour says how a pod's containers behave (DefaultBehaviour: the
	// kubesim.io/behaviour annotation).
	Behaviour func(pod *corev1.Pod) PodBehaviour
	// LeaseDuration, RenewInterval and NodeStatusReportFrequency tune the
	// heartbeat (DefaultLeaseDuration, DefaultRenewInterval,
	// DefaultNodeStatusReportFrequency).
	LeaseDuration, RenewInterval, NodeStatusReportFrequency time.Duration
	// Recorder records the kubelet's events (one signed "kubelet" on
	// NodeName is made when nil).
	Recorder *record.Recorder
	// Logger logs (discarded when nil).
	Logger *slog.Logger
	// Metrics is the kubelet's own registry, which its API serves at
	// /metrics (metrics.go): one per kubelet, as each node's kubelet
	// serves its own. nil: not measured.
	Metrics *prometheus.Registry

	// Images are the images run for real (images.go); every other image
	// is simulated. Network is the pod network their addresses go into.
	Images  map[string]ImageRunner
	Network *podnet.Network
	// LocalImages, when set, are binaries on the host that pods run as
	// child processes (localimage.go).
	LocalImages *LocalImages
	// Registry is where images are pulled from (nil: images.Default(),
	// the simulated registries docs/containers.md lists).
	Registry *images.Registry

	// NetworkPolicyClient is the client of the pod network's policy
	// agent, which reads NetworkPolicies, pods and namespaces
	// (netpolicy.go): kind's kindnetd, with its own service account. nil:
	// the kubelet's own client.
	NetworkPolicyClient *client.Client
	// IngressClient is the client of the ingress controller's proxy,
	// which reads Ingresses, IngressClasses, Services and Endpoints
	// (ingressnet.go): ingress-nginx's service account. nil: the
	// kubelet's own client.
	IngressClient *client.Client
	// VolumeData is where PersistentVolumes keep what is written to them
	// (the cluster's store, shared by its kubelets, so that a claim's
	// data follows its pod to any node); nil: a store in memory of this
	// kubelet's own.
	VolumeData *volumedata.Store
	// CNI, when set, gives pods their network through CNI plugins
	// (kubelet/cni, network.go): their ConfDir, BinDirs and the node's
	// StateDir; the kubelet's clock is used when Clock is nil. nil: the
	// node's simulated allocator (ipam.go).
	CNI *cni.Config
	// DevicePlugins, when set, is the node's device manager
	// (kubelet/deviceplugin, devices.go): its Dir (the node's
	// device-plugins directory, where kubelet.sock is served); the
	// kubelet's clock, and its own OnChange, are used. nil: no device
	// plugins.
	DevicePlugins *deviceplugin.Config
	// CSI, when set, runs the plugin manager for CSI drivers and the CSI
	// volume plugin (csiplugins.go); nil: no driver can register.
	CSI *CSIConfig
	// APIServer, when set, is the API server as the cluster's network
	// reaches it: a container's connection to its address (the kubernetes
	// Service's endpoint, through kubernetes.default.svc) is served by its
	// handler (clusternet.go).
	APIServer *APIServerEndpoint
}

// APIServerEndpoint is the API server on the cluster's network.
type APIServerEndpoint struct {
	// Address is "IP:port": its advertised address and secure port.
	Address string
	// Handler is the server's whole handler chain: a request from a
	// container is authenticated as it came (busybox's wget sends no
	// credentials: anonymous) and authorized as any client's.
	Handler http.Handler
}

// Kubelet simulates the kubelet of one node.
type Kubelet struct {
	cfg    Config
	c      *client.Client
	rec    *record.Recorder
	logger *slog.Logger

	mu      sync.Mutex
	stopped bool
	loops   *loops
	// liveCtx is Run's context (live mode); cancel stops the running loops
	// and running is closed once they have returned.
	liveCtx context.Context
	cancel  context.CancelFunc
	running chan struct{}
	wg      sync.WaitGroup

	// The state of the simulated node, which survives Stop and Start as
	// a node's containers survive its kubelet. Guarded by stateMu.
	stateMu  sync.Mutex
	runtimes map[string]*podRuntime
	ipam     *ipam
	// cni sets up and tears down the sandboxes' networks (nil: the
	// simulated allocator, ipam); orphans are the sandboxes a previous
	// kubelet recorded that no pod has claimed yet, by pod uid
	// (network.go).
	cni     *cni.Manager
	orphans map[string]*cni.Sandbox
	// devices is the device manager (nil without Config.DevicePlugins;
	// devices.go).
	devices *deviceplugin.Manager
	lease   *coordinationv1.Lease
	// node is the Node as this kubelet last read or wrote it: the
	// heartbeat reads its node from here rather than from the API every
	// 10 s (the real kubelet serves that read from its node lister), and
	// reads the API again when a write finds it stale (node.go).
	node *corev1.Node
	// real are the containers run for real, by pod key.
	real map[string][]realContainer
	// local are the runs of local images, by container id.
	local map[string]*localProcess
	// runDirs guards the local runs' directories: a pod's is removed
	// once its last run's is, and must not go while a new run's is made
	// in it (localimage.go).
	runDirs sync.Mutex
	// imgs is the node's image manager: its images and its puller
	// (pulls.go).
	imgs images.Manager
	// proxyTurn picks the backend of the next connection to a Service
	// (clusternet.go): kube-proxy picks at random, kubesim in turn.
	proxyTurn atomic.Uint64
	// portTurn picks the client port of the next simulated connection
	// (listen.go).
	portTurn atomic.Uint64
	// started is when the kubelet was made (the node's start time).
	started time.Time
	// changed is closed (and forgotten) when a pod's runtime changes:
	// log followers wait on it. Made by the first follower that waits.
	changed chan struct{}
	// announce is set at start: the next heartbeat posts the node status
	// and the Starting event whatever the report frequency says.
	announce bool

	// sims are the timelines played for the containers' own commands,
	// by pod key and container name (simulation.go): one map for the
	// node, not one more per pod. Guarded by simMu.
	simMu sync.Mutex
	sims  map[simKey]*simEntry
	// attached are the lines printed outside a program's play — by
	// attached sessions (interactive.go), by servers to their access logs
	// (listen.go) — by pod key and container instance id. Guarded by
	// simMu.
	attached map[string]map[string][]logLine
	// memories are what the servers of container runs keep (listen.go),
	// by pod key and container instance id. Guarded by simMu.
	memories map[string]map[string]*programs.Memory

	// emptyDirs are the pods' emptyDir volumes, by pod key (volumes.go).
	// Guarded by volMu.
	volMu     sync.Mutex
	emptyDirs map[string]*podEmptyDirs
	// csiMounts are the pods' CSI volumes, by pod key, and csiUnmounts
	// those whose unmount is to be tried again (csivolumes.go). Guarded
	// by volMu.
	csiMounts   map[string]*podCSIMounts
	csiUnmounts []*csiMount

	// metrics are the kubelet's (nil: not measured; metrics.go).
	metrics *metrics

	// csiWatcher registers the CSI drivers of plugins_registry (nil
	// without Config.CSI; csiplugins.go). Guarded by stateMu.
	csiWatcher *csi.Watcher
}

// loops are the informer and controllers of one run; live mode makes new
// ones after a Stop, because a controller's queue does not outlive Run.
type loops struct {
	pods *cache.Informer[*corev1.Pod]
	// services is the kubelet's service lister: containers get the
	// variables of the Services they see (containerenv), read from this
	// cache as the real kubelet reads its informer, not listed from the
	// API server at every container start.
	services *cache.Informer[*corev1.Service]
	// configMaps, only when the kubelets of a process share the
	// controller manager's informers (live mode): the ConfigMaps that
	// volumes and variables name (kube-root-ca.crt in every pod's
	// service-account volume), read from the shared cache where the real
	// kubelet's ConfigMap manager watches each one it needs. nil: GET.
	configMaps *cache.Informer[*corev1.ConfigMap]
	podLoop    *controllers.Controller
	heartbeat  *controllers.Controller
	// plugins is the plugin manager's loop (nil without Config.CSI).
	plugins *controllers.Controller
	used    bool
}

// all are the loops, heartbeat first: the node registers before pods and
// plugins are looked at.
func (l *loops) all() []*controllers.Controller {
	out := []*controllers.Controller{l.heartbeat, l.podLoop}
	if l.plugins != nil {
		out = append(out, l.plugins)
	}
	return out
}

// DefaultKubeletPort is the kubelet API's port (the kubelet's --port).
const DefaultKubeletPort = 10250

// New checks cfg, applies defaults and returns the kubelet, started.
func New(cfg Config) (*Kubelet, error) {
	if cfg.Client == nil || cfg.Clock == nil || cfg.NodeName == "" {
		return nil, fmt.Errorf("kubelet: Client, Clock and NodeName are required")
	}
	if cfg.Capacity == nil {
		cfg.Capacity = DefaultCapacity()
	}
	if cfg.PodCIDR == "" {
		cfg.PodCIDR = DefaultPodCIDR
	}
	pool, err := newIPAM(cfg.PodCIDR)
	if err != nil {
		return nil, fmt.Errorf("kubelet %s: %w", cfg.NodeName, err)
	}
	if cfg.InternalIP == "" {
		cfg.InternalIP = pool.gateway()
	}
	if cfg.KubeletPort == 0 {
		cfg.KubeletPort = DefaultKubeletPort
	}
	if cfg.Behaviour == nil {
		cfg.Behaviour = DefaultBehaviour
	}
	if cfg.LeaseDuration <= 0 {
		cfg.LeaseDuration = DefaultLeaseDuration
	}
	if cfg.RenewInterval <= 0 {
		cfg.RenewInterval = DefaultRenewInterval
	}
	if cfg.NodeStatusReportFrequency <= 0 {
		cfg.NodeStatusReportFrequency = DefaultNodeStatusReportFrequency
	}
	for _, d := range []time.Duration{cfg.Stages.ContainerCreating, cfg.Stages.Running, cfg.Stages.Ready, cfg.Stages.Stop} {
		if d < 0 {
			return nil, fmt.Errorf("kubelet %s: stage delays must not be negative", cfg.NodeName)
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.VolumeData == nil {
		if cfg.VolumeData, err = volumedata.New(""); err != nil {
			return nil, err
		}
	}
	if cfg.Registry == nil {
		cfg.Registry = images.Default()
	}
	cfg.Labels = maps.Clone(cfg.Labels)
	cfg.Taints = append([]corev1.Taint(nil), cfg.Taints...)
	c := cfg.Client.WithUserAgent("kubelet/" + cfg.NodeName)
	rec := cfg.Recorder
	if rec == nil {
		rec = record.New(record.Config{Client: c, Component: "kubelet", Host: cfg.NodeName, Clock: cfg.Clock, Mode: cfg.Mode})
	}
	k := &Kubelet{cfg: cfg, c: c, rec: rec, logger: cfg.Logger.With("node", cfg.NodeName),
		runtimes: map[string]*podRuntime{}, ipam: pool, announce: true, started: cfg.Clock.Now(), real: map[string][]realContainer{},
		local: map[string]*localProcess{}, imgs: images.Manager{Registry: cfg.Registry, Store: images.NewStore()}}
	if cfg.Metrics != nil {
		if k.metrics, err = k.newMetrics(cfg.Metrics); err != nil {
			return nil, fmt.Errorf("kubelet %s: %w", cfg.NodeName, err)
		}
	}
	if cfg.CNI != nil {
		cc := *cfg.CNI
		if cc.Clock == nil {
			cc.Clock = cfg.Clock
		}
		if k.cni, err = cni.New(cc); err != nil {
			return nil, fmt.Errorf("kubelet %s: %w", cfg.NodeName, err)
		}
	}
	if cfg.DevicePlugins != nil {
		dc := *cfg.DevicePlugins
		if dc.Clock == nil {
			dc.Clock = cfg.Clock
		}
		if dc.Logger == nil {
			dc.Logger = k.logger
		}
		dc.OnChange = k.devicesChanged
		if k.devices, err = deviceplugin.New(dc); err != nil {
			return nil, fmt.Errorf("kubelet %s: %w", cfg.NodeName, err)
		}
	}
	if cfg.CSI != nil {
		if cfg.CSI.RootDir == "" || cfg.CSI.Drivers == nil {
			return nil, fmt.Errorf("kubelet %s: CSI needs RootDir and Drivers", cfg.NodeName)
		}
		cc := *cfg.CSI
		if cc.ScanInterval <= 0 {
			cc.ScanInterval = DefaultPluginScanInterval
		}
		k.cfg.CSI = &cc
		k.csiWatcher = &csi.Watcher{Dir: filepath.Join(cc.RootDir, csi.RegistryDir), Caller: k.csiCaller()}
	}
	if err := k.loadSandboxes(); err != nil {
		return nil, fmt.Errorf("kubelet %s: %w", cfg.NodeName, err)
	}
	k.loadLocalImages(k.started)
	if k.loops, err = k.newLoops(); err != nil {
		return nil, err
	}
	if cfg.Network != nil {
		cfg.Network.ServeNode(pool.prefix, k.dialSimulated) // listen.go
	}
	return k, nil
}

// newLoops builds the pod informer and the two controllers; the heartbeat
// is queued at once so that the node registers on the first step.
func (k *Kubelet) newLoops() (*loops, error) {
	shared := k.cfg.SharedInformers
	if shared == nil {
		shared = k.cfg.Informers
	}
	l := &loops{pods: cache.For(k.cfg.Informers, k.c.Pods(), "", client.ListOptions{FieldSelector: "spec.nodeName=" + k.cfg.NodeName}, k.logger),
		services: cache.For(shared, k.c.Services(), "", client.ListOptions{}, k.logger)}
	sources := []controllers.Source{l.pods, l.services}
	if shared.Shares() {
		// A kubelet on its own may not list every ConfigMap (the Node
		// authorizer allows only those of its pods); the shared factory
		// lists with the controller manager's client.
		l.configMaps = cache.For(shared, k.c.ConfigMaps(), "", client.ListOptions{}, k.logger)
		sources = append(sources, l.configMaps)
	}
	var err error
	l.podLoop, err = controllers.New(controllers.Config{Name: "kubelet/" + k.cfg.NodeName,
		Reconciler: controllers.ReconcileFunc(k.syncPod), Sources: sources,
		Clock: k.cfg.Clock, Mode: k.cfg.Mode, Logger: k.logger})
	if err != nil {
		return nil, err
	}
	l.pods.AddHandler(controllers.EnqueueObject[*corev1.Pod](l.podLoop, "Pod"))
	l.heartbeat, err = controllers.New(controllers.Config{Name: "kubelet/" + k.cfg.NodeName + "/heartbeat",
		Reconciler: controllers.ReconcileFunc(k.syncNode), Clock: k.cfg.Clock, Mode: k.cfg.Mode, Logger: k.logger, Periodic: true})
	if err != nil {
		return nil, err
	}
	l.heartbeat.Enqueue(k.cfg.NodeName, controllers.Cause{Event: "kubelet started"})
	if l.plugins, err = k.newPluginLoop(); err != nil {
		return nil, err
	}
	return l, nil
}

// NodeName is the node this kubelet runs.
func (k *Kubelet) NodeName() string { return k.cfg.NodeName }

// InternalIP is the node's address, where its kubelet API listens.
func (k *Kubelet) InternalIP() string { return k.cfg.InternalIP }

// Controllers are the kubelet's loops, heartbeat first: the node
// registers before pods are looked at. A stepper must leave them alone
// (no Sync, Step or NextDeadline) while Stopped.
func (k *Kubelet) Controllers() []*controllers.Controller {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.loops.all()
}

// Stopped reports whether the kubelet is stopped (its node has failed).
func (k *Kubelet) Stopped() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.stopped
}

// Stop simulates a node failure: no more heartbeats, no pod work. In live
// mode the running loops end, and Stop returns once they have: a worker
// of the old loops still busy after a quick Start would otherwise work
// beside the new ones. In step mode the stepper stops stepping them (and
// a step that happens anyway does nothing).
func (k *Kubelet) Stop() {
	k.mu.Lock()
	if k.stopped {
		k.mu.Unlock()
		return
	}
	k.stopped = true
	running := k.running
	if k.cancel != nil {
		k.cancel()
		k.cancel, k.running = nil, nil
	}
	k.mu.Unlock()
	if running != nil {
		// Outside k.mu: the loops' reconciles take it.
		<-running
	}
}

// Start brings a stopped kubelet back: it posts its node status and
// renews its lease at once and looks at every pod bound to it again.
func (k *Kubelet) Start() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.stopped {
		return
	}
	k.stopped = false
	k.stateMu.Lock()
	k.announce = true
	// Others may have changed the node while it was down (the node
	// controller marks it Unknown): read it again.
	k.node = nil
	if k.csiWatcher != nil {
		// The plugins register again, as with a new kubelet process.
		k.csiWatcher.Forget()
	}
	k.stateMu.Unlock()
	if k.liveCtx != nil && k.liveCtx.Err() == nil {
		k.startLocked()
		return
	}
	k.loops.heartbeat.Enqueue(k.cfg.NodeName, controllers.Cause{Event: "kubelet started"})
	if k.loops.plugins != nil {
		k.loops.plugins.Enqueue(csi.RegistryDir, controllers.Cause{Event: "kubelet started"})
	}
	for _, pod := range k.loops.pods.List() {
		k.loops.podLoop.Enqueue(cache.Key(&pod.ObjectMeta), controllers.Cause{Event: "kubelet started", Kind: "Pod",
			Namespace: pod.Namespace, Name: pod.Name, ResourceVersion: pod.ResourceVersion})
	}
}

// Run runs the kubelet until ctx ends (live mode). Stop and Start may be
// called meanwhile.
func (k *Kubelet) Run(ctx context.Context) {
	k.mu.Lock()
	k.liveCtx = ctx
	if !k.stopped {
		k.startLocked()
	}
	k.mu.Unlock()
	<-ctx.Done()
	k.mu.Lock()
	if k.cancel != nil {
		k.cancel()
		k.cancel, k.running = nil, nil
	}
	k.mu.Unlock()
	k.wg.Wait()
	k.CloseDevicePlugins()
}

// CloseDevicePlugins stops serving the device plugins' registration
// socket and closes their streams (Run does it when it ends).
func (k *Kubelet) CloseDevicePlugins() {
	if k.devices != nil {
		k.devices.Close()
	}
}

// startLocked runs the loops in goroutines; loops that already ran (their
// queues are shut down) are replaced by fresh ones.
func (k *Kubelet) startLocked() {
	if k.loops.used {
		l, err := k.newLoops()
		if err != nil {
			k.logger.Error("cannot restart the kubelet", "err", err)
			return
		}
		k.loops = l
	}
	k.loops.used = true
	ctx, cancel := context.WithCancel(k.liveCtx)
	running := make(chan struct{})
	k.cancel, k.running = cancel, running
	var gen sync.WaitGroup
	for _, c := range k.loops.all() {
		k.wg.Add(1)
		gen.Add(1)
		go func() {
			defer k.wg.Done()
			defer gen.Done()
			c.Run(ctx)
		}()
	}
	go func() {
		gen.Wait()
		close(running)
	}()
}
