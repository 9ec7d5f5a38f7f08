package cluster

import (
	"context"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/controllers/apfconfig"
	availability "github.com/kubesim/kubesim/controllers/apiserviceavailability"
	"github.com/kubesim/kubesim/controllers/clusterroleaggregation"
	"github.com/kubesim/kubesim/controllers/crdfinalizer"
	"github.com/kubesim/kubesim/controllers/cronjob"
	"github.com/kubesim/kubesim/controllers/csrsigning"
	"github.com/kubesim/kubesim/controllers/daemonset"
	"github.com/kubesim/kubesim/controllers/deployment"
	"github.com/kubesim/kubesim/controllers/disruption"
	"github.com/kubesim/kubesim/controllers/endpoints"
	"github.com/kubesim/kubesim/controllers/endpointslice"
	"github.com/kubesim/kubesim/controllers/endpointslicemirroring"
	"github.com/kubesim/kubesim/controllers/garbagecollector"
	"github.com/kubesim/kubesim/controllers/ingressnginx"
	"github.com/kubesim/kubesim/controllers/job"
	"github.com/kubesim/kubesim/controllers/kubernetesservice"
	"github.com/kubesim/kubesim/controllers/namespace"
	"github.com/kubesim/kubesim/controllers/nodelifecycle"
	"github.com/kubesim/kubesim/controllers/podautoscaler"
	"github.com/kubesim/kubesim/controllers/podgc"
	"github.com/kubesim/kubesim/controllers/replicaset"
	"github.com/kubesim/kubesim/controllers/resourcequota"
	"github.com/kubesim/kubesim/controllers/rootcacertpublisher"
	"github.com/kubesim/kubesim/controllers/serviceaccount"
	"github.com/kubesim/kubesim/controllers/statefulset"
	"github.com/kubesim/kubesim/controllers/ttlafterfinished"
	vapstatus "github.com/kubesim/kubesim/controllers/validatingadmissionpolicystatus"
	"github.com/kubesim/kubesim/controllers/volume/persistentvolume"
	"github.com/kubesim/kubesim/controllers/volume/protection"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/scheduler"
	"github.com/kubesim/kubesim/stepper"
)

// The wiring table: every component of the cluster, one row each, in the
// stepper's order — the API server's own loops, the controller manager's
// controllers (then the aggregation loops and Config.Extra), the scheduler,
// the kubelets. A row is a switch name, the user agent of the component's
// own client, and an InitFunc; cmd/kube-controller-manager's
// NewControllerDescriptors is the real table.

// ControllerNames are the controllers of the controller manager, as
// --controllers names them: the controllerManager rows (a test checks that
// they agree).
var ControllerNames = []string{"replicaset", replicaset.ReplicationControllerName, "deployment", "garbagecollector", "namespace", "nodelifecycle", podgc.ControllerName, "statefulset",
	daemonset.ControllerName, "serviceaccount", "root-ca-cert-publisher",
	job.ControllerName, cronjob.ControllerName, ttlafterfinished.ControllerName,
	persistentvolume.ControllerName, protection.PVCControllerName, protection.PVControllerName, // storage
	disruption.ControllerName, endpointslice.ControllerName, endpointslicemirroring.ControllerName, resourcequota.ControllerName, // budgets, slices, quotas
	podautoscaler.ControllerName,                                    // HorizontalPodAutoscaler
	clusterroleaggregation.ControllerName, vapstatus.ControllerName, // RBAC, admission policies
	ingressnginx.ControllerName, // the ingress-nginx add-on (ingressnginx.go)
	csrsigning.ControllerName,   // certificates
	endpoints.ControllerName, availability.ControllerName}

// ControllerContext is what a controller is built from: its own API
// client, the cluster's clock and run mode, and a logger — what
// kube-controller-manager hands each controller's InitFunc.
type ControllerContext struct {
	Client *client.Client
	Clock  clock.Clock
	Mode   runmode.Mode
	// Namespace limits the controller to one namespace ("" for all;
	// `kubesim run-controller --namespace`).
	Namespace string
	Logger    *slog.Logger
	// Informers is the controller manager's informer factory: shared
	// informers in live mode, private ones in step mode.
	Informers *cache.Factory
	// RecordCall, in step mode, puts a call the component makes outside
	// the API (a kubelet's CNI plugin calls) into its step's trace, as a
	// line such as "cni ADD mock default/web"; nil in live mode.
	RecordCall func(call string)
}

// InitFunc builds a controller from its context (kube-controller-manager's
// InitFunc).
type InitFunc func(ControllerContext) (Component, error)

// Component is one part of the control plane: its loops, for the stepper,
// and Run, for live mode.
type Component interface {
	Controllers() []*controllers.Controller
	Run(ctx context.Context)
}

// wiring is one row of the cluster's table: a component's switch name,
// the user agent of its client, and how to build it.
type wiring struct {
	name      string
	userAgent string
	build     InitFunc
}

// client returns an in-process client for one component, acting as the
// identity it is given (identities.go); in step mode its writes are
// recorded for the trace.
func (c *Cluster) client(userAgent string, identity apiserver.LoopbackIdentity) (*client.Client, *stepper.Recorder) {
	handler := apiserver.LoopbackAs(c.server.LoopbackHandler(), identity)
	var transport http.RoundTripper = &client.InProcessTransport{Handler: handler}
	var rec *stepper.Recorder
	if c.stepper != nil {
		rec = stepper.NewRecorder(transport)
		// Who the trace says made the writes.
		if u := identity(&request.Info{IsResourceRequest: true, Verb: "create"}); u != nil {
			rec.User = u.Name
		}
		transport = rec
	} else if c.cfg.OnWrite != nil {
		transport = &activityTransport{next: transport, component: userAgent, observer: c.cfg.OnWrite}
	}
	cl, _ := client.New(client.Config{Server: "http://in-process", Transport: transport, UserAgent: userAgent})
	return cl, rec
}

// add builds the component of a row with its own client and adds it to
// the components (and, in step mode, to the stepper's order). A component
// that can be stopped (a kubelet) is paused in the stepper while stopped.
func (c *Cluster) add(w wiring) (Component, error) {
	return c.addIn(w, "", nil, "")
}

// addRows adds the rows of a table, each running under lease with leader
// election (live mode; "" runs everywhere).
func (c *Cluster) addRows(rows []wiring, lease string) error {
	for _, w := range rows {
		if _, err := c.addIn(w, lease, nil, ""); err != nil {
			return err
		}
	}
	return nil
}

// addIn is add for a component of one process among several (step-mode
// leader election): gate, when set, pauses its loops in the stepper, and
// process prefixes their names in the trace.
func (c *Cluster) addIn(w wiring, lease string, gate stepper.Pausable, process string) (Component, error) {
	cl, rec := c.client(w.userAgent, c.identity(w.name, w.userAgent))
	x := ControllerContext{Client: cl, Clock: c.clock, Mode: c.cfg.Mode, Logger: c.logger, Informers: c.informers}
	if rec != nil {
		x.RecordCall = rec.RecordCall
	}
	comp, err := w.build(x)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.name, err)
	}
	c.instrument(comp)
	c.components = append(c.components, built{name: w.name, userAgent: w.userAgent, comp: comp, lease: lease, row: w})
	if c.stepper != nil {
		a := stepper.Actor{Switch: w.name, Loops: comp.Controllers(), Writes: rec, Pausable: gate, Process: process}
		if p, ok := comp.(stepper.Pausable); ok && gate == nil {
			a.Pausable = p
		}
		c.stepper.Add(a)
	}
	return comp, nil
}

// newInformerFactory is the controller manager's SharedInformerFactory. In
// live mode one informer per resource serves every controller, listing and
// watching as kube-controller-manager itself (its "shared-informers"
// client); in step mode each controller keeps private informers, listed
// before its own step, so that its handlers fire when they always have and
// the trace does not move.
func (c *Cluster) newInformerFactory() *cache.Factory {
	if c.cfg.DetectCacheMutations {
		c.detector = cache.NewMutationDetector()
	}
	cfg := cache.FactoryConfig{Share: c.cfg.Mode == runmode.Live, Detector: c.detector}
	if c.changes != nil {
		cfg.Changes = c.listChanges
	}
	if cfg.Share {
		cfg.Client, _ = c.client("kube-controller-manager/shared-informers", apiserver.FixedIdentity(&controllerManagerUser))
	}
	return cache.NewFactory(cfg)
}

// privateInformers is the informer factory of a component outside the
// controller manager (the scheduler, a kubelet): its own informers, watched
// by the cluster's cache mutation detector and, in step mode, told which
// resources were written since they listed (nil when neither applies).
func (c *Cluster) privateInformers() *cache.Factory {
	if c.detector == nil && c.changes == nil {
		return nil
	}
	cfg := cache.FactoryConfig{Detector: c.detector}
	if c.changes != nil {
		cfg.Changes = c.listChanges
	}
	return cache.NewFactory(cfg)
}

// CheckCacheMutations reports a shared object some component changed in
// place (Config.DetectCacheMutations; nil when it is off).
func (c *Cluster) CheckCacheMutations() error { return c.detector.Check() }

// apiServerLoops are the loops that are part of the API server itself,
// which run even with APIServerOnly: the bootstrap controller's kubernetes
// Service and its endpoints, and the apiextensions-apiserver's CRD
// finalizer (deleting a CRD deletes its objects, then the CRD).
func (c *Cluster) apiServerLoops() []wiring {
	return []wiring{
		{kubernetesservice.ControllerName, "kube-apiserver", func(x ControllerContext) (Component, error) {
			return kubernetesservice.New(kubernetesservice.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger,
				ServiceIP: c.kubernetesServiceIP, PublicIP: c.cfg.AdvertiseAddress, SecurePort: c.cfg.SecurePort})
		}},
		{"customresourcecleanup", crdfinalizer.ControllerName, func(x ControllerContext) (Component, error) {
			return crdfinalizer.New(crdfinalizer.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{apfconfig.ControllerName, apfconfig.ControllerName, func(x ControllerContext) (Component, error) {
			return apfconfig.New(apfconfig.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
	}
}

// controllerManager is kube-controller-manager's table: its controllers,
// then the aggregation loops, then Config.Extra, in the stepper's order.
func (c *Cluster) controllerManager() []wiring {
	table := []wiring{
		{"replicaset", "replicaset-controller", func(x ControllerContext) (Component, error) {
			return replicaset.New(replicaset.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{replicaset.ReplicationControllerName, replicaset.ReplicationComponent, func(x ControllerContext) (Component, error) {
			return replicaset.NewReplicationManager(replicaset.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{"deployment", "deployment-controller", func(x ControllerContext) (Component, error) {
			return deployment.New(deployment.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{"garbagecollector", "garbage-collector", func(x ControllerContext) (Component, error) {
			return garbagecollector.New(garbagecollector.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode,
				Resources: c.servedResources, Logger: x.Logger, Informers: c.privateInformers()})
		}},
		{"namespace", "namespace-controller", func(x ControllerContext) (Component, error) {
			return namespace.New(namespace.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode,
				Resources: c.servedResources, Logger: x.Logger})
		}},
		{"nodelifecycle", "node-lifecycle-controller", func(x ControllerContext) (Component, error) {
			return nodelifecycle.New(nodelifecycle.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger,
				NodeMonitorGracePeriod: c.cfg.NodeMonitorGracePeriod})
		}},
		{podgc.ControllerName, podgc.Component, func(x ControllerContext) (Component, error) {
			return podgc.New(podgc.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{"statefulset", "statefulset-controller", func(x ControllerContext) (Component, error) {
			return statefulset.New(statefulset.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{daemonset.ControllerName, daemonset.Component, func(x ControllerContext) (Component, error) {
			return daemonset.New(daemonset.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{"serviceaccount", serviceaccount.ControllerName, func(x ControllerContext) (Component, error) {
			return serviceaccount.New(serviceaccount.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{"root-ca-cert-publisher", rootcacertpublisher.ControllerName, func(x ControllerContext) (Component, error) {
			return rootcacertpublisher.New(rootcacertpublisher.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger, RootCA: c.cfg.RootCA})
		}},
		// batch/v1.
		{job.ControllerName, job.Component, func(x ControllerContext) (Component, error) {
			return job.New(job.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{cronjob.ControllerName, cronjob.Component, func(x ControllerContext) (Component, error) {
			return cronjob.New(cronjob.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{ttlafterfinished.ControllerName, ttlafterfinished.Component, func(x ControllerContext) (Component, error) {
			return ttlafterfinished.New(ttlafterfinished.Config{BaseConfig: controllers.BaseConfig{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger}})
		}},
		// storage
		{persistentvolume.ControllerName, persistentvolume.Component, func(x ControllerContext) (Component, error) {
			return persistentvolume.New(persistentvolume.Config{VolumeData: c.volumeData,
				BaseConfig: controllers.BaseConfig{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger}})
		}},
		{protection.PVCControllerName, "pvc-protection-controller", func(x ControllerContext) (Component, error) {
			return protection.NewPVCProtection(protection.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{protection.PVControllerName, "pv-protection-controller", func(x ControllerContext) (Component, error) {
			return protection.NewPVProtection(protection.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{disruption.ControllerName, "disruption-controller", func(x ControllerContext) (Component, error) {
			return disruption.New(disruption.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{endpointslice.ControllerName, "endpointslice-controller", func(x ControllerContext) (Component, error) {
			return endpointslice.New(endpointslice.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{endpointslicemirroring.ControllerName, "endpointslicemirroring-controller", func(x ControllerContext) (Component, error) {
			return endpointslicemirroring.New(endpointslicemirroring.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{resourcequota.ControllerName, "resourcequota-controller", func(x ControllerContext) (Component, error) {
			return resourcequota.New(resourcequota.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{podautoscaler.ControllerName, podautoscaler.Component, func(x ControllerContext) (Component, error) {
			return podautoscaler.New(podautoscaler.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{clusterroleaggregation.ControllerName, "clusterrole-aggregation-controller", func(x ControllerContext) (Component, error) {
			return clusterroleaggregation.New(clusterroleaggregation.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		}},
		{vapstatus.ControllerName, "validatingadmissionpolicy-status-controller", func(x ControllerContext) (Component, error) {
			return vapstatus.New(vapstatus.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger, Check: c.server.Delegate().TypeCheckPolicy})
		}},
		// The ingress-nginx add-on's controller: not kube-controller-manager's,
		// so its own informers, listed as its own service account.
		{ingressnginx.ControllerName, ingressnginx.Component, func(x ControllerContext) (Component, error) {
			return ingressnginx.New(ingressnginx.Config{BaseConfig: controllers.BaseConfig{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger, Informers: c.privateInformers()}})
		}},
	}
	table = append(table, wiring{csrsigning.ControllerName, csrsigning.ServiceAccountName, func(x ControllerContext) (Component, error) {
		return csrsigning.New(csrsigning.Config{Client: x.Client, Informers: x.Informers, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger, CA: c.signingCA})
	}})
	table = append(table, c.aggregationLoops()...)
	for _, x := range c.cfg.Extra {
		table = append(table, wiring{x.Name, x.Name, x.New})
	}
	return table
}

// scheduler is kube-scheduler, seeded so that its tie-breaks repeat.
func (c *Cluster) scheduler() wiring {
	return wiring{"scheduler", "default-scheduler", func(x ControllerContext) (Component, error) {
		seed := c.cfg.Seed
		var extenders []configv1.Extender
		if c.cfg.SchedulerConfig != nil {
			extenders = c.cfg.SchedulerConfig.Extenders
		}
		exts, err := scheduler.NewExtenders(extenders, scheduler.ExtenderOptions{Clock: x.Clock, Client: c.cfg.ExtenderClient})
		if err != nil {
			return nil, err
		}
		return scheduler.New(scheduler.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Informers: c.privateInformers(),
			Rand: mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), Logger: x.Logger, Metrics: c.schedulerMetrics,
			Profiles: c.schedulerProfiles, Extenders: exts})
	}}
}

// apiServerAddress is where the cluster's network reaches the API server:
// the kubernetes Service's endpoint.
func (c *Cluster) apiServerAddress() string {
	return net.JoinHostPort(c.cfg.AdvertiseAddress, strconv.Itoa(int(c.cfg.SecurePort)))
}

// addKubelets adds one kubelet per node, after everything else: the
// stepper's order ends with the nodes.
func (c *Cluster) addKubelets() error {
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
		comp, err := c.add(wiring{"kubelet/" + n.Name, "kubelet/" + n.Name, func(x ControllerContext) (Component, error) {
			cniCfg, err := c.kubeletCNI(n.Name, x)
			if err != nil {
				return nil, err
			}
			devCfg, err := c.kubeletDevicePlugins(n.Name, x) // deviceplugins.go
			if err != nil {
				return nil, err
			}
			csiCfg, err := c.kubeletCSI(n.Name, x) // csi.go
			if err != nil {
				return nil, err
			}
			return kubelet.New(kubelet.Config{CNI: cniCfg, DevicePlugins: devCfg, CSI: csiCfg, Client: x.Client, Informers: c.privateInformers(), SharedInformers: x.Informers, Clock: x.Clock, Mode: x.Mode, NodeName: n.Name,
				Capacity: n.Capacity, Labels: n.Labels, Taints: n.Taints, PodCIDR: podCIDR(i), Stages: c.cfg.Stages,
				LeaseDuration: c.cfg.NodeLeaseDuration, RenewInterval: c.cfg.NodeLeaseDuration / 4, VolumeData: c.volumeData,
				Logger: x.Logger, Images: c.realImages(), Network: c.network, LocalImages: c.localImages(),
				NetworkPolicyClient: c.kindnetClient(), IngressClient: c.ingressNginxClient(),
				APIServer: &kubelet.APIServerEndpoint{Address: c.apiServerAddress(), Handler: c.server.Handler()},
				Metrics:   prometheus.NewRegistry()}) // each kubelet's own, as its /metrics (instrumentation.go)
		}})
		if err != nil {
			return err
		}
		c.kubelets[n.Name] = comp.(*kubelet.Kubelet)
		c.nodeOrder = append(c.nodeOrder, n.Name)
	}
	return nil
}
