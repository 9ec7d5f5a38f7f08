package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	crand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/aggregator"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/nodeproxy"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/controllers/csrsigning"
	"github.com/kubesim/kubesim/controllers/kubernetesservice"
	"github.com/kubesim/kubesim/controllers/workqueuemetrics"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/kubelet/csi"
	"github.com/kubesim/kubesim/kubelet/podnet"
	kubeletserver "github.com/kubesim/kubesim/kubelet/server"
	"github.com/kubesim/kubesim/kubelet/volumedata"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/scheduler"
	schedconfig "github.com/kubesim/kubesim/scheduler/config"
	"github.com/kubesim/kubesim/stepper"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

// NodeConfig describes one fake node.
type NodeConfig struct {
	Name     string
	Capacity corev1.ResourceList
	Labels   map[string]string
	Taints   []corev1.Taint
}

// Config describes a cluster.
type Config struct {
	// DataDir holds the store; empty means a temporary directory removed
	// by Close.
	DataDir string
	// Storage, when set, is used instead of opening DataDir.
	Storage store.Interface
	// Nodes lists the nodes; when empty, NodeCount nodes named node-1...
	// with the kubelet's default capacity.
	Nodes     []NodeConfig
	NodeCount int
	// APIServerOnly runs the API server without any control loop.
	APIServerOnly bool
	// FrontProxy is the aggregator's identity toward extension API
	// servers: its client certificate (kube-apiserver's
	// --proxy-client-cert-file) and the CA extension servers trust
	// (--requestheader-client-ca-file); an extension server run as its own
	// process must be given that CA. nil means a new one in memory.
	FrontProxy *pki.FrontProxy
	// ControllerImages are controllers that pods can run: a container of
	// image ControllerImage(NAME) runs the controller NAME in process,
	// talking to the API server through the loopback client as the pod's
	// service account (what its projected token would prove), until the
	// pod stops (aggregation.go). Step mode leaves them simulated: a live
	// controller inside a pod would not be stepped.
	ControllerImages map[string]InitFunc
	// LocalImages are binaries on the host that pods run as child
	// processes of their kubelet (`kubesim serve --local-image`,
	// kubelet/localimage.go). Live mode only, as ControllerImages: a real
	// process is not stepped.
	LocalImages *kubelet.LocalImages
	// CNI, when set, has every kubelet give its pods their network
	// through CNI plugins (`kubesim serve --cni-conf-dir --cni-bin-dir`,
	// kubelet/cni) instead of the simulated allocator.
	CNI *CNIConfig
	// DevicePlugins, when set, has every kubelet serve the device
	// plugin Registration service on its node's socket (`kubesim serve
	// --device-plugins`, kubelet/deviceplugin).
	DevicePlugins *DevicePluginsConfig
	// CSI, when set, lets CSI drivers register with the kubelets and
	// runs their sidecars (csi.go); nil: volumes come from the built-in
	// provisioner only.
	CSI *CSIConfig
	// Mode is how the cluster runs: Live (Start runs every loop in its
	// goroutines on the real clock) or Step (the stepper drives them, one
	// unit of work at a time, on a fake clock). It flows to every queue,
	// event recorder and controller.
	Mode runmode.Mode
	// Start is the fake clock's start time (step mode;
	// stepper.DefaultStart).
	Start time.Time
	// Seed makes uids, generated names and scheduler tie-breaks the same
	// every run (step mode; live mode uses crypto/rand).
	Seed uint64
	// Controllers enables controllers as --controllers does ("*").
	Controllers string
	// Stages are the kubelets' pod lifecycle delays.
	Stages kubelet.Stages
	// NodeMonitorGracePeriod is how long a silent node stays Ready
	// (kube-controller-manager's --node-monitor-grace-period, 40s).
	NodeMonitorGracePeriod time.Duration
	// DefaultNotReadyTolerationSeconds and
	// DefaultUnreachableTolerationSeconds are how long a pod without a
	// toleration of its own stays on a node that is not ready, or
	// unreachable: the tolerationSeconds the DefaultTolerationSeconds
	// admission plugin gives it (kube-apiserver's
	// --default-not-ready-toleration-seconds and
	// --default-unreachable-toleration-seconds; nil: 300).
	DefaultNotReadyTolerationSeconds, DefaultUnreachableTolerationSeconds *int64
	// NodeLeaseDuration is the kubelets' nodeLeaseDurationSeconds; they
	// renew their Lease every quarter of it, as the kubelet does (0:
	// kubelet.DefaultLeaseDuration, 40s, renewed every 10s). A long one
	// keeps a trace over simulated hours readable; NodeMonitorGracePeriod
	// must then be longer than the renewal, or the nodes go Unknown.
	NodeLeaseDuration time.Duration
	// Authenticator protects the API server's handler (nil: none, for
	// the in-process clients).
	Authenticator authn.Authenticator
	// AuthorizationMode is the API server's (apiserver.Config; "" is
	// AlwaysAllow, as step mode runs without authentication; `kubesim
	// serve` uses "Node,RBAC"). Every component acts as its own user either
	// way (identities.go); only the authorizer changes.
	AuthorizationMode string
	// ServiceAccountKey signs ServiceAccount tokens (nil: a new key in
	// memory); RootCA is the CA the root-ca-cert-publisher puts in every
	// namespace (nil: none, the cluster has no TLS); AnonymousAuth is
	// --anonymous-auth.
	ServiceAccountKey *ecdsa.PrivateKey
	RootCA            []byte
	AnonymousAuth     bool
	// SigningCA signs the approved CertificateSigningRequests (the
	// csrsigning controller; kube-controller-manager's
	// --cluster-signing-cert-file): the cluster CA, so that what it issues
	// authenticates. nil: a CA in memory that nothing trusts.
	SigningCA csrsigning.CA
	// AdvertiseAddress is the API server's address on the cluster's
	// network (kube-apiserver's --advertise-address): the endpoint of the
	// kubernetes Service, where a pod's connection to
	// kubernetes.default.svc arrives. Not a loopback address (an Endpoints
	// may not name one). Empty: DefaultAdvertiseAddress.
	AdvertiseAddress string
	// SecurePort is the API server's port (--secure-port): the kubernetes
	// Service's targetPort (0: 6443, `kubesim serve` gives its own).
	SecurePort int32
	// Audit is the API server's audit log (apiserver.Config; nil: none).
	Audit *audit.Log
	// ListMemoryBudget bounds the memory LIST requests hold at once
	// (apiserver.Config.ListMemoryBudget: 0 the default, negative none).
	ListMemoryBudget int64
	// UnsafeNoFsync turns off fsync in the store (demos, benchmarks).
	UnsafeNoFsync bool
	Logger        *slog.Logger

	// OnWrite, in live mode, is told of every API write of a component's
	// client, by the client's user agent, with the reconcile that made it
	// (the web page lights up the loop that wrote and answers "why"; step
	// mode has the trace instead).
	OnWrite WriteObserver
	// DetectCacheMutations keeps a copy of every object the controllers'
	// informers hand out, so that CheckCacheMutations can tell whether a
	// component changed a shared object in place (client-go's
	// KUBE_CACHE_MUTATION_DETECTOR; tests, as it costs memory).
	DetectCacheMutations bool
	// LeaderElection, when set, runs the controller manager and the
	// scheduler only while this cluster holds their Leases (live mode;
	// leaderelection.go).
	LeaderElection *LeaderElection
	// SchedulerConfig is the scheduler's KubeSchedulerConfiguration
	// (kube-scheduler's --config; scheduler/config): its profiles, built
	// with the in-tree plugins, and its extenders, which every cycle
	// calls in order (scheduler/extender.go). nil: kube-scheduler's
	// default, one default-scheduler profile and no extender.
	SchedulerConfig *schedconfig.Config
	// ExtenderClient, when set, sends the scheduler's calls to the
	// extenders of SchedulerConfig instead of a client per extender built
	// from its TLS settings: a scenario answers them in process, so that a
	// step makes no network call and the trace repeats.
	ExtenderClient *http.Client
	// SchedulerPlugins are out-of-tree scheduler plugins, by name, that
	// SchedulerConfig's profiles may enable beside the in-tree ones (as
	// a scheduler binary built with scheduler/app's WithPlugin).
	SchedulerPlugins schedconfig.Registry

	// Extra adds controllers built outside this package (operators, the
	// labs' own controllers): each gets its own in-process client, runs
	// after the built-in controllers in the stepper's order, and runs live
	// with the rest. Its Name turns it on and off like a built-in one.
	Extra []ExtraController
}

// DefaultAdvertiseAddress is the API server's address when Config says
// none: the control-plane node's address in a kind cluster, where most
// tutorials find the endpoint of kubernetes.default.
const DefaultAdvertiseAddress = "172.18.0.2"

// ExtraController is a controller the cluster runs besides its own.
type ExtraController struct {
	// Name is its switch name and its client's user agent.
	Name string
	// New builds it.
	New InitFunc
}

// built is a component the cluster made, by its switch name.
type built struct {
	name, userAgent string
	comp            Component
	// lease is the Lease the component runs under with leader election
	// (ControllerManagerLease, SchedulerLease; "" runs everywhere).
	lease string
	// row builds it again (a live switch turned back on; liveswitch.go).
	row wiring
}

// ErrNotStepMode is returned by the stepper's methods in live mode.
var ErrNotStepMode = errors.New("cluster: not in step mode")

// Cluster is a running control plane.
type Cluster struct {
	cfg   Config
	store store.Interface
	// changes is c.store in step mode when the store is the cluster's own:
	// it tells informers which resources were written since they listed
	// (listChanges).
	changes *store.ChangeLog
	server  *aggregator.Server
	clock   clock.Clock
	// stepper drives the loops in step mode (nil in live mode).
	stepper *stepper.Stepper
	tmpDir  string
	// dataDir is where the store lives (DataDir or the temporary one).
	dataDir string
	ownsSt  bool
	logger  *slog.Logger

	// informers is the controller manager's informer factory (shared in
	// live mode), detector its cache mutation detector (or nil).
	informers *cache.Factory
	detector  *cache.MutationDetector

	// components are in the order of the table, the stepper's order.
	components []built
	kubelets   map[string]*kubelet.Kubelet
	nodeOrder  []string

	// kubernetesServiceIP is the kubernetes Service's cluster IP, the
	// first address of the service range.
	kubernetesServiceIP string

	// network is the pod network: where pods run for real listen
	// (aggregation.go); frontProxy the aggregator's front-proxy identity.
	network    *podnet.Network
	frontProxy *pki.FrontProxy
	// signingCA is Config.SigningCA or the cluster's own in memory.
	signingCA csrsigning.CA
	// kubeletAPI serves the kubelet API of every node (kubeletapi.go).
	kubeletAPI *kubeletserver.Server
	// volumeData is where the PersistentVolumes keep their data
	// (storage.go).
	volumeData *volumedata.Store
	// csiDrivers are the CSI drivers registered with the kubelets, for
	// the sidecars (csi.go; nil without Config.CSI).
	csiDrivers *csi.Drivers

	mu      sync.Mutex
	enabled map[string]bool
	// electors are the leader election candidates (leaderelection.go).
	electors electors
	// live switches components while they run (liveswitch.go).
	live liveState

	// metrics is the cluster's Prometheus registry, queueMetrics and
	// schedulerMetrics the collectors made once on it
	// (instrumentation.go).
	metrics          *prometheus.Registry
	queueMetrics     *workqueuemetrics.Provider
	schedulerMetrics *scheduler.Metrics
	// schedulerProfiles are Config.SchedulerConfig's profiles (nil: the
	// default one).
	schedulerProfiles []scheduler.Profile
}

// New builds the cluster; in live mode call Start, in step mode Step.
func New(cfg Config) (*Cluster, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Controllers == "" {
		cfg.Controllers = "*"
	}
	enabled, err := controllers.ParseEnabled(cfg.Controllers, ControllerNames)
	if err != nil {
		return nil, err
	}
	enabled["scheduler"] = true
	if err := cfg.LeaderElection.validate(cfg.Mode); err != nil {
		return nil, err
	}
	for _, x := range cfg.Extra {
		if x.Name == "" || x.New == nil {
			return nil, errors.New("cluster: an extra controller needs a Name and New")
		}
		if _, dup := enabled[x.Name]; dup {
			return nil, fmt.Errorf("cluster: extra controller %q has the name of another", x.Name)
		}
		enabled[x.Name] = true
	}
	if cfg.AdvertiseAddress == "" {
		cfg.AdvertiseAddress = DefaultAdvertiseAddress
	}
	if cfg.SecurePort == 0 {
		cfg.SecurePort = kubernetesservice.DefaultSecurePort
	}
	var profiles []scheduler.Profile
	if cfg.SchedulerConfig != nil {
		// Built before anything starts: a profile naming a plugin kubesim
		// does not have stops the cluster here, as it stops kube-scheduler.
		reg := schedconfig.NewInTreeRegistry()
		if err := reg.Merge(cfg.SchedulerPlugins); err != nil {
			return nil, err
		}
		if profiles, err = cfg.SchedulerConfig.Profiles(reg); err != nil {
			return nil, err
		}
	}
	c := &Cluster{cfg: cfg, logger: cfg.Logger, kubelets: map[string]*kubelet.Kubelet{}, enabled: enabled, schedulerProfiles: profiles}
	if c.kubernetesServiceIP, err = kubernetesservice.ServiceIPOf(kinds.ServiceClusterIPRange); err != nil {
		return nil, err
	}
	var rnd io.Reader = rand.Reader
	switch cfg.Mode {
	case runmode.Step:
		c.stepper = stepper.New(stepper.Config{Start: cfg.Start, Enabled: c.isEnabled, Changes: c.allChanges})
		c.clock = c.stepper.Clock()
		var seed [32]byte
		for i := range 8 {
			seed[i] = byte(cfg.Seed >> (8 * i))
		}
		rnd = mrand.NewChaCha8(seed)
	case runmode.Live:
		c.clock = clock.Real{}
	default:
		return nil, fmt.Errorf("cluster: unknown mode %d", cfg.Mode)
	}
	if err := c.openStore(); err != nil {
		return nil, err
	}
	c.csiDrivers = newCSIDrivers(cfg.CSI)
	if c.volumeData, err = volumedata.New(c.volumesDir()); err != nil {
		c.Close()
		return nil, err
	}
	c.network, c.frontProxy = podnet.New(), cfg.FrontProxy
	if c.frontProxy == nil {
		// Certificates live in real time, whatever the cluster's clock.
		if c.frontProxy, err = pki.NewFrontProxy(time.Now(), crand.Reader); err != nil {
			c.Close()
			return nil, err
		}
	}
	if c.signingCA = cfg.SigningCA; c.signingCA == nil {
		// Like the front proxy's: certificates live in real time.
		if c.signingCA, err = pki.NewCA(time.Now(), crand.Reader); err != nil {
			c.Close()
			return nil, err
		}
	}
	if c.cfg.ServiceAccountKey == nil {
		// Tokens are never in traces, so a fresh key keeps step mode
		// repeatable.
		if c.cfg.ServiceAccountKey, err = ecdsa.GenerateKey(elliptic.P256(), crand.Reader); err != nil {
			c.Close()
			return nil, err
		}
	}
	if err := c.newMetrics(); err != nil {
		c.Close()
		return nil, err
	}
	srv, err := c.newServer(rnd)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.server = srv
	if err := srv.Bootstrap(context.Background()); err != nil {
		c.Close()
		return nil, err
	}
	c.informers = c.newInformerFactory()
	// The rows in the stepper's order: the API server's loops, the
	// controller manager's (once per candidate with step-mode leader
	// election), the scheduler; the kubelets follow.
	var cm, sched []wiring
	if !cfg.APIServerOnly {
		if err := c.installDefaultStorageClass(context.Background()); err != nil {
			c.Close()
			return nil, err
		}
		if err := c.installNetworkAddOns(context.Background()); err != nil {
			c.Close()
			return nil, err
		}
		cm, sched = c.controllerManager(), []wiring{c.scheduler()}
	}
	if err := c.addRows(c.apiServerLoops(), ""); err != nil {
		c.Close()
		return nil, err
	}
	if c.stepCandidates() {
		err = c.addCandidates(cm)
	} else {
		err = c.addRows(cm, ControllerManagerLease)
	}
	if err == nil {
		err = c.addRows(sched, SchedulerLease)
	}
	if err == nil && !cfg.APIServerOnly {
		err = c.addRows(c.csiSidecars(), "")
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	if !cfg.APIServerOnly {
		if err := c.addKubelets(); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// newServer composes the API server and the aggregator in front of it,
// as kube-apiserver's CreateServerChain does.
func (c *Cluster) newServer(rnd io.Reader) (*aggregator.Server, error) {
	srv, err := apiserver.New(apiserver.Config{Storage: c.store, Clock: c.clock, Rand: rnd,
		Resources: nodeproxy.Install(kinds.Builtin(), c.kubeletConnections()), Authenticator: c.cfg.Authenticator, Logger: c.logger,
		AuthorizationMode: c.cfg.AuthorizationMode, Audit: c.cfg.Audit, ListMemoryBudget: c.cfg.ListMemoryBudget,
		ServiceAccountKey: c.cfg.ServiceAccountKey, AnonymousAuth: c.cfg.AnonymousAuth, Metrics: c.metrics,
		DefaultNotReadyTolerationSeconds: c.cfg.DefaultNotReadyTolerationSeconds, DefaultUnreachableTolerationSeconds: c.cfg.DefaultUnreachableTolerationSeconds,
		// The plugin needs the controller that makes the default accounts.
		ServiceAccountAdmission: !c.cfg.APIServerOnly && c.isEnabled("serviceaccount"),
		WebhookDial:             c.network.DialContext}) // admission webhooks in pods are reached as APIServices are
	if err != nil {
		return nil, err
	}
	return aggregator.NewServer(aggregator.ServerConfig{Delegate: srv, Dial: c.network.DialContext,
		ProxyClientCert: &c.frontProxy.ClientCert, Clock: c.clock, Logger: c.logger})
}

func (c *Cluster) openStore() error {
	if c.cfg.Storage != nil {
		c.store = c.cfg.Storage
		return nil
	}
	dir := c.cfg.DataDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "kubesim-cluster-")
		if err != nil {
			return err
		}
		dir, c.tmpDir = tmp, tmp
	}
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(dir, boltstore.FileName),
		UnsafeNoFsync: c.cfg.UnsafeNoFsync, Logger: c.logger})
	if err != nil {
		return err
	}
	// The store is ours (the lock is held): the pods' scratch directories
	// a crash left behind can go.
	c.dataDir = dir
	if err := os.RemoveAll(c.podsDir()); err != nil {
		_ = st.Close()
		return fmt.Errorf("removing the pods' scratch directories: %w", err)
	}
	c.store, c.ownsSt = st, true
	if c.cfg.Mode == runmode.Step {
		c.changes = store.WithChangeLog(st)
		c.store = c.changes
	}
	return nil
}

// allChanges counts every change that could alter what any list returns
// (stepper.Config.Changes): every write reaches the store or goes through
// the API server (the aggregator's proxied ones to extension API servers
// too), so one of the two counts grows.
func (c *Cluster) allChanges() uint64 {
	return uint64(c.store.Revision()) + c.server.Delegate().Writes()
}

// listChanges counts the writes that could alter what a list of gvr
// returns (cache.FactoryConfig.Changes): those under its own storage
// prefix, and those to the definitions that decide how it is served
// (CustomResourceDefinitions and APIServices). A resource not served from
// this server's storage (an extension API server's, metrics computed on
// request) cannot be told: its informers list every time.
func (c *Cluster) listChanges(gvr schema.GroupVersionResource) (uint64, bool) {
	if c.changes == nil {
		return 0, false
	}
	srv := c.server.Delegate()
	st, ok := srv.Store(gvr.Group, gvr.Version, gvr.Resource)
	if !ok {
		return 0, false
	}
	n := c.changes.Last(st.StoragePrefix())
	for _, def := range [][3]string{{"apiextensions.k8s.io", "v1", "customresourcedefinitions"}, {"apiregistration.k8s.io", "v1", "apiservices"}} {
		if d, ok := srv.Store(def[0], def[1], def[2]); ok {
			n += c.changes.Last(d.StoragePrefix())
		}
	}
	return uint64(n), true
}

// servedResources lists what the API server serves, for the garbage
// collector and the namespace controller.
func (c *Cluster) servedResources() []client.ResourceInfo {
	var out []client.ResourceInfo
	for _, r := range c.server.Resources() {
		if r.CreateOnly != nil {
			continue // reviews (SubjectAccessReview...) cannot be listed, like the real controllers' verb filter
		}
		out = append(out, client.ResourceInfo{Group: r.Group, Version: r.Version, Resource: r.Name, Namespaced: r.Namespaced})
	}
	return out
}

// podCIDR gives node i (from 0) its pod range: 10.244.0.0/24 onwards;
// past 3,072 nodes the second octet wraps round to 10.0 (a cluster of
// 5,000 fake nodes, the largest the benchmarks run), which would reach
// the services' 10.96/12 only past 27,648 nodes.
func podCIDR(i int) string {
	return fmt.Sprintf("10.%d.%d.0/24", (244+i/256)%256, i%256)
}

// Server is the API server with the aggregator in front.
func (c *Cluster) Server() *aggregator.Server { return c.server }

// Client returns a client of the API server for a user (kubectl-like
// callers: tests, the demo, scenario steps); its writes are not traced.
func (c *Cluster) Client(userAgent string) *client.Client {
	return client.NewInProcess(c.server.LoopbackHandler(), userAgent)
}

// Clock is the cluster's clock.
func (c *Cluster) Clock() clock.Clock { return c.clock }

// Kubelet returns the kubelet of a node.
func (c *Cluster) Kubelet(node string) (*kubelet.Kubelet, bool) {
	k, ok := c.kubelets[node]
	return k, ok
}

// SetEnabled turns a controller (or "scheduler") on or off: the stepper
// honours it at the next step; live mode stops it at once, or starts a
// new one (liveswitch.go).
func (c *Cluster) SetEnabled(name string, on bool) error {
	c.mu.Lock()
	if _, ok := c.enabled[name]; !ok {
		c.mu.Unlock()
		return fmt.Errorf("unknown controller %q", name)
	}
	c.enabled[name] = on
	c.mu.Unlock()
	if c.stepper != nil {
		return nil
	}
	return c.switchLive(name, on)
}

// Enabled reports whether the component of a switch name may run (the
// web page's controller switches show it).
func (c *Cluster) Enabled(name string) bool { return c.isEnabled(name) }

// isEnabled reports whether the component of a switch name may run; the
// components that have no switch (the kubelets, the API server's own
// loops) always may.
func (c *Cluster) isEnabled(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	on, known := c.enabled[name]
	return on || !known
}

// Start runs every enabled component live until ctx ends (live mode).
func (c *Cluster) Start(ctx context.Context) error {
	if c.stepper != nil {
		return errors.New("cluster: Start is for live mode; use Step")
	}
	c.startLive(ctx)
	elected := map[string][]Component{}
	for i, b := range c.components {
		if !c.isEnabled(b.name) {
			continue
		}
		if c.cfg.LeaderElection != nil && b.lease != "" {
			elected[b.lease] = append(elected[b.lease], b.comp)
			continue
		}
		c.runLive(ctx, i)
	}
	for _, lease := range []string{ControllerManagerLease, SchedulerLease} {
		if comps := elected[lease]; len(comps) > 0 {
			go c.runElected(ctx, lease, comps)
		}
	}
	if kinds.IsShared(c.store) { // the API server's repair of leaked address claims (claimrepair.go)
		go kinds.NewClaimRepair(c.store, c.logger).Run(ctx, c.clock, kinds.DefaultClaimRepairInterval)
	}
	return nil
}

// Stepper is the step-mode driver (nil in live mode).
func (c *Cluster) Stepper() *stepper.Stepper { return c.stepper }

// Step runs one unit of work (stepper.Stepper.Step).
func (c *Cluster) Step(ctx context.Context) (stepper.Entry, bool, error) {
	if c.stepper == nil {
		return stepper.Entry{}, false, ErrNotStepMode
	}
	return c.stepper.Step(ctx)
}

// RunUntilStable steps until nothing is due within the horizon
// (stepper.Stepper.RunUntilStable).
func (c *Cluster) RunUntilStable(ctx context.Context, lim stepper.Limits) (int, error) {
	if c.stepper == nil {
		return 0, ErrNotStepMode
	}
	return c.stepper.RunUntilStable(ctx, lim)
}

// Advance lets d of fake time pass (stepper.Stepper.Advance).
func (c *Cluster) Advance(ctx context.Context, d time.Duration, lim stepper.Limits) (int, error) {
	if c.stepper == nil {
		return 0, ErrNotStepMode
	}
	return c.stepper.Advance(ctx, d, lim)
}

// OnEntry registers f to receive every trace entry as it happens (step
// mode; nothing happens in live mode).
func (c *Cluster) OnEntry(f func(stepper.Entry)) {
	if c.stepper != nil {
		c.stepper.OnEntry(f)
	}
}

// Trace returns the trace so far (empty in live mode).
func (c *Cluster) Trace() []stepper.Entry {
	if c.stepper == nil {
		return nil
	}
	return c.stepper.Trace()
}

// LastSchedulingDecision is the scheduler's most recent decision, per
// node filter results and scores (false without a scheduler); the web
// page shows it beside the pod it placed.
func (c *Cluster) LastSchedulingDecision() (scheduler.Decision, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.components {
		if s, ok := b.comp.(*scheduler.Scheduler); ok {
			return s.LastDecision(), true
		}
	}
	return scheduler.Decision{}, false
}

// Close stops using the store (and removes a temporary data dir).
func (c *Cluster) Close() error {
	var local sync.WaitGroup
	for _, name := range c.nodeOrder {
		c.kubelets[name].StopAllReal()
		// Local processes get their grace periods side by side.
		local.Go(c.kubelets[name].StopAllLocal)
		c.kubelets[name].CloseDevicePlugins()
	}
	local.Wait()
	var err error
	if c.ownsSt && c.store != nil {
		err = c.store.Close()
	}
	if c.tmpDir != "" {
		_ = os.RemoveAll(c.tmpDir)
	}
	return err
}
