package cluster

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kubesim/kubesim/aggregator"
	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	availability "github.com/kubesim/kubesim/controllers/apiserviceavailability"
	"github.com/kubesim/kubesim/controllers/crdfinalizer"
	"github.com/kubesim/kubesim/controllers/deployment"
	"github.com/kubesim/kubesim/controllers/endpoints"
	"github.com/kubesim/kubesim/controllers/garbagecollector"
	"github.com/kubesim/kubesim/controllers/namespace"
	"github.com/kubesim/kubesim/controllers/nodelifecycle"
	"github.com/kubesim/kubesim/controllers/replicaset"
	"github.com/kubesim/kubesim/controllers/statefulset"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/scheduler"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

// ControllerNames are the controllers of the controller manager, as
// --controllers names them.
var ControllerNames = []string{"replicaset", "deployment", "garbagecollector", "namespace", "nodelifecycle", "statefulset",
	endpoints.ControllerName, availability.ControllerName}

// NodeConfig describes one fake node.
type NodeConfig struct {
	Name     string
	Capacity api.ResourceList
	Labels   map[string]string
	Taints   []api.Taint
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
	// ProxyClientToken is the front-proxy credential the aggregator sends
	// to extension API servers (kube-apiserver's --proxy-client-cert-file);
	// an extension server run as its own process must be given the same.
	// Empty means a random one, known only to this process.
	ProxyClientToken string
	// ControllerImages are controllers that pods can run: a container of
	// image ControllerImage(NAME) runs the controller NAME in process,
	// talking to the API server through the loopback client, until the pod
	// stops (aggregation.go). Step mode leaves them simulated: a live
	// controller inside a pod would not be stepped.
	ControllerImages map[string]ControllerFactory
	// StepMode runs on a fake clock driven by Step; otherwise Start runs
	// everything live on the real clock.
	StepMode bool
	// Start is the fake clock's start time (step mode).
	Start time.Time
	// Seed makes uids, generated names and scheduler tie-breaks the same
	// every run (step mode; live mode uses crypto/rand).
	Seed uint64
	// Controllers enables controllers as --controllers does ("*").
	Controllers string
	// Stages are the kubelets' pod lifecycle delays.
	Stages kubelet.Stages
	// NodeMonitorGracePeriod and PodEvictionTimeout tune node failure
	// handling (40s and 300s by default, as in Kubernetes).
	NodeMonitorGracePeriod, PodEvictionTimeout time.Duration
	// Authenticator protects the API server's handler (nil: none, for
	// the in-process clients).
	Authenticator authn.Authenticator
	// UnsafeNoFsync turns off fsync in the store (demos, benchmarks).
	UnsafeNoFsync bool
	Logger        *slog.Logger

	// Extra adds controllers built outside this package (operators, the
	// labs' own controllers): each gets its own in-process client, runs
	// after the built-in controllers in the stepper's order, and runs live
	// with the rest. Its Name turns it on and off like a built-in one.
	Extra []ExtraController
}

// ExtraController is a controller the cluster runs besides its own.
type ExtraController struct {
	// Name is its switch name and its client's user agent.
	Name string
	// New builds it with its client and the cluster's clock.
	New func(cl *client.Client, clk clock.Clock, logger *slog.Logger) (Component, error)
}

// DefaultStart is the fake clock's start time unless Config says otherwise.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Component is one part of the control plane: its loops, for the stepper,
// and Run, for live mode.
type Component interface {
	Controllers() []*controllers.Controller
	Run(ctx context.Context)
}

// actor is one loop the stepper drives.
type actor struct {
	ctrl *controllers.Controller
	// owner is the kubelet the loop belongs to (nil for others), so that
	// a stopped kubelet's loops are skipped.
	kubelet *kubelet.Kubelet
	rec     *recorder
	// switchName is the name that turns the loop on and off.
	switchName string
}

// Cluster is a running control plane.
type Cluster struct {
	cfg     Config
	store   store.Interface
	server  *aggregator.Server
	clock   clock.Clock
	fake    *clock.Fake
	tmpDir  string
	ownsSt  bool
	logger  *slog.Logger
	started time.Time

	components []Component
	// compNames are the switch names of components, in the same order.
	compNames []string
	kubelets  map[string]*kubelet.Kubelet
	nodeOrder []string

	// network is the pod network: where pods run for real listen
	// (aggregation.go); proxyToken the aggregator's front-proxy credential.
	network    *podnet.Network
	proxyToken string

	mu      sync.Mutex
	enabled map[string]bool
	actors  []*actor
	next    int
	trace   []Entry
	onEntry func(Entry)
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
	for _, x := range cfg.Extra {
		if x.Name == "" || x.New == nil {
			return nil, errors.New("cluster: an extra controller needs a Name and New")
		}
		if _, dup := enabled[x.Name]; dup {
			return nil, fmt.Errorf("cluster: extra controller %q has the name of another", x.Name)
		}
		enabled[x.Name] = true
	}
	c := &Cluster{cfg: cfg, logger: cfg.Logger, kubelets: map[string]*kubelet.Kubelet{}, enabled: enabled}
	var rnd io.Reader = rand.Reader
	if cfg.StepMode {
		if cfg.Start.IsZero() {
			cfg.Start = DefaultStart
		}
		c.fake = clock.NewFake(cfg.Start)
		c.clock = c.fake
		var seed [32]byte
		for i := range 8 {
			seed[i] = byte(cfg.Seed >> (8 * i))
		}
		rnd = mrand.NewChaCha8(seed)
	} else {
		c.clock = clock.Real{}
	}
	c.started = c.clock.Now()
	if err := c.openStore(); err != nil {
		return nil, err
	}
	c.network, c.proxyToken = podnet.New(), cfg.ProxyClientToken
	if c.proxyToken == "" {
		c.proxyToken = newProxyToken()
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
	if err := c.buildAPIServerLoops(); err != nil {
		c.Close()
		return nil, err
	}
	if cfg.APIServerOnly {
		return c, nil
	}
	if err := c.build(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// newServer composes the control plane's front: the API server, and the
// aggregator in front of it (kube-apiserver's server chain).
func (c *Cluster) newServer(rnd io.Reader) (*aggregator.Server, error) {
	srv, err := apiserver.New(apiserver.Config{Storage: c.store, Clock: c.clock, Rand: rnd,
		Resources: kinds.Builtin(), Authenticator: c.cfg.Authenticator, Logger: c.logger})
	if err != nil {
		return nil, err
	}
	return aggregator.NewServer(aggregator.ServerConfig{Delegate: srv, Dial: c.network.DialContext,
		ProxyClientToken: c.proxyToken, Clock: c.clock, Logger: c.logger})
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
	c.store, c.ownsSt = st, true
	return nil
}

// client returns an in-process client for one actor; in step mode its
// writes are recorded for the trace.
func (c *Cluster) client(name string) (*client.Client, *recorder) {
	rec := &recorder{next: &client.InProcessTransport{Handler: c.server.LoopbackHandler()}}
	cl, _ := client.New(client.Config{Server: "http://in-process", Transport: rec, UserAgent: name})
	return cl, rec
}

// servedResources lists what the API server serves, for the garbage
// collector and the namespace controller.
func (c *Cluster) servedResources() []client.ResourceInfo {
	var out []client.ResourceInfo
	for _, r := range c.server.Resources() {
		out = append(out, client.ResourceInfo{Group: r.Group, Version: r.Version, Resource: r.Name, Namespaced: r.Namespaced})
	}
	return out
}

// buildAPIServerLoops makes the loops that are part of the API server
// itself, which run even with APIServerOnly: the apiextensions-apiserver's
// CRD finalizer (deleting a CRD deletes its objects, then the CRD).
func (c *Cluster) buildAPIServerLoops() error {
	cl, rec := c.client(crdfinalizer.ControllerName)
	fc, err := crdfinalizer.New(crdfinalizer.Config{Client: cl, Clock: c.clock, Logger: c.logger})
	if err != nil {
		return fmt.Errorf("customresourcecleanup: %w", err)
	}
	c.addComponent("customresourcecleanup", fc, rec, nil)
	return nil
}

// addComponent adds a component and its loops to the stepper's list.
func (c *Cluster) addComponent(name string, comp Component, rec *recorder, kl *kubelet.Kubelet) {
	c.components = append(c.components, comp)
	c.compNames = append(c.compNames, name)
	for _, ctrl := range comp.Controllers() {
		c.actors = append(c.actors, &actor{ctrl: ctrl, kubelet: kl, rec: rec, switchName: name})
	}
}

// build makes every component and the stepper's actor list, in the fixed
// order the stepper visits them.
func (c *Cluster) build() error {
	type made struct {
		name string
		comp Component
		rec  *recorder
		kl   *kubelet.Kubelet
	}
	var all []made
	add := func(name string, comp Component, err error, rec *recorder, kl *kubelet.Kubelet) error {
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		all = append(all, made{name, comp, rec, kl})
		return nil
	}
	cl, rec := c.client("replicaset-controller")
	rs, err := replicaset.New(replicaset.Config{Client: cl, Clock: c.clock, Logger: c.logger, ParallelCreates: !c.cfg.StepMode})
	if err := add("replicaset", rs, err, rec, nil); err != nil {
		return err
	}
	cl, rec = c.client("deployment-controller")
	dp, err := deployment.New(deployment.Config{Client: cl, Clock: c.clock, Logger: c.logger})
	if err := add("deployment", dp, err, rec, nil); err != nil {
		return err
	}
	cl, rec = c.client("garbage-collector")
	gc, err := garbagecollector.New(garbagecollector.Config{Client: cl, Clock: c.clock, Resources: c.servedResources, Logger: c.logger})
	if err := add("garbagecollector", gc, err, rec, nil); err != nil {
		return err
	}
	cl, rec = c.client("namespace-controller")
	ns, err := namespace.New(namespace.Config{Client: cl, Clock: c.clock, Resources: c.servedResources, Logger: c.logger})
	if err := add("namespace", ns, err, rec, nil); err != nil {
		return err
	}
	cl, rec = c.client("node-lifecycle-controller")
	nl, err := nodelifecycle.New(nodelifecycle.Config{Client: cl, Clock: c.clock, Logger: c.logger,
		NodeMonitorGracePeriod: c.cfg.NodeMonitorGracePeriod, PodEvictionTimeout: c.cfg.PodEvictionTimeout})
	if err := add("nodelifecycle", nl, err, rec, nil); err != nil {
		return err
	}
	cl, rec = c.client("statefulset-controller")
	ss, err := statefulset.New(statefulset.Config{Client: cl, Clock: c.clock, Logger: c.logger})
	if err := add("statefulset", ss, err, rec, nil); err != nil {
		return err
	}
	if err := c.buildAggregationLoops(add); err != nil {
		return err
	}
	for _, x := range c.cfg.Extra {
		cl, rec := c.client(x.Name)
		comp, err := x.New(cl, c.clock, c.logger)
		if err := add(x.Name, comp, err, rec, nil); err != nil {
			return err
		}
	}
	cl, rec = c.client("default-scheduler")
	seed := c.cfg.Seed
	sched, err := scheduler.New(scheduler.Config{Client: cl, Clock: c.clock, Rand: mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), Logger: c.logger})
	if err := add("scheduler", sched, err, rec, nil); err != nil {
		return err
	}
	nodes := c.cfg.Nodes
	if len(nodes) == 0 {
		for i := 1; i <= c.cfg.NodeCount; i++ {
			nodes = append(nodes, NodeConfig{Name: fmt.Sprintf("node-%d", i)})
		}
	}
	for i, n := range nodes {
		if n.Name == "" {
			return fmt.Errorf("node %d has no name", i)
		}
		cl, rec := c.client("kubelet/" + n.Name)
		kl, err := kubelet.New(kubelet.Config{Client: cl, Clock: c.clock, NodeName: n.Name, Capacity: n.Capacity,
			Labels: n.Labels, Taints: n.Taints, PodCIDR: podCIDR(i), Stages: c.cfg.Stages, Logger: c.logger,
			Images: c.realImages(), Network: c.network})
		if err := add("kubelet/"+n.Name, kl, err, rec, kl); err != nil {
			return err
		}
		c.kubelets[n.Name] = kl
		c.nodeOrder = append(c.nodeOrder, n.Name)
	}
	for _, m := range all {
		c.addComponent(m.name, m.comp, m.rec, m.kl)
	}
	return nil
}

// podCIDR gives node i (from 0) its pod range.
func podCIDR(i int) string {
	return fmt.Sprintf("10.%d.%d.0/24", 244+i/256, i%256)
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

// SetEnabled turns a controller (or "scheduler") on or off.
func (c *Cluster) SetEnabled(name string, on bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.enabled[name]; !ok {
		return fmt.Errorf("unknown controller %q", name)
	}
	c.enabled[name] = on
	return nil
}

// Start runs every enabled component live until ctx ends (live mode).
func (c *Cluster) Start(ctx context.Context) error {
	if c.cfg.StepMode {
		return errors.New("cluster: Start is for live mode; use Step")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, comp := range c.components {
		name := c.compNames[i]
		if on, known := c.enabled[name]; known && !on {
			continue
		}
		go comp.Run(ctx)
	}
	return nil
}

// Close stops using the store (and removes a temporary data dir).
func (c *Cluster) Close() error {
	for _, name := range c.nodeOrder {
		c.kubelets[name].StopAllReal()
	}
	var err error
	if c.ownsSt && c.store != nil {
		err = c.store.Close()
	}
	if c.tmpDir != "" {
		_ = os.RemoveAll(c.tmpDir)
	}
	return err
}
