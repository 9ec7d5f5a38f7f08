package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// The defaults of Config.
const (
	// DefaultUnschedulableRetry is kube-scheduler's
	// podMaxInUnschedulablePodsDuration: an unschedulable pod no event has
	// woken is tried again after this long anyway.
	DefaultUnschedulableRetry = 5 * time.Minute
	// DefaultWorkers is how many reconciles run at once in live mode.
	DefaultWorkers = 4
	// ControllerName is the name of the scheduler's one controller.
	ControllerName = "scheduler"
)

var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

// Config builds a Scheduler.
type Config struct {
	// Client talks to the API server (required).
	Client *client.Client
	// Informers builds the scheduler's informers (nil: private ones; the
	// cluster passes one with its cache mutation detector).
	Informers *cache.Factory
	// Clock is the only time source (required).
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// Rand breaks ties between equally good nodes (required): a fixed
	// seed gives the same placement every run.
	Rand *rand.Rand
	// Logger, or none.
	Logger *slog.Logger
	// SchedulerName is the spec.schedulerName served (default-scheduler)
	// when Profiles is empty; pods that name no scheduler are served as
	// default-scheduler's.
	SchedulerName string
	// Framework is that one profile's (DefaultFramework).
	Framework *Framework
	// Profiles are the profiles of a KubeSchedulerConfiguration
	// (scheduler/config builds them), each serving the pods whose
	// spec.schedulerName is its SchedulerName; one queue for them all, as
	// kube-scheduler runs one. When set, SchedulerName and Framework are
	// ignored.
	Profiles []Profile
	// Extenders are the scheduler extenders (NewExtenders), called in
	// this order in every cycle. In kube-scheduler they belong to the
	// whole KubeSchedulerConfiguration, not to a profile: every profile
	// calls the same ones.
	Extenders []Extender
	// UnschedulableRetry is the safety-net delay before an unschedulable
	// pod is tried again when no event woke it
	// (DefaultUnschedulableRetry).
	UnschedulableRetry time.Duration
	// BindTimeout is how long a pod's binding waits for its claims
	// (DefaultBindTimeout).
	BindTimeout time.Duration
	// Metrics counts the scheduling attempts and the pending pods (nil:
	// not measured; metrics.go).
	Metrics *Metrics
	// Workers is the number of reconciles at once in live mode
	// (DefaultWorkers). Decisions still happen one at a time, under the
	// cache lock; the API writes of a failure (status, events) overlap.
	// A binding does not hold a worker at all in live mode: it runs in
	// its own goroutine, as kube-scheduler runs each binding cycle.
	Workers int
}

// Profile is one scheduling profile (KubeSchedulerProfile): the name pods
// choose it by and the framework that places them.
type Profile struct {
	// SchedulerName is the spec.schedulerName the profile serves; it
	// signs the profile's events and labels its metrics.
	SchedulerName string
	// Framework holds the profile's plugins. With a plugin named
	// VolumeBinding the pod's claims are looked at (its PreFilter and
	// Filter), and its PreBind makes the binding wait for them
	// (volumes.go). A profile has a Framework of its own: it is its
	// plugins' Handle and holds its waiting pods.
	Framework *Framework
	// BindTimeout bounds that wait (VolumeBindingArgs'
	// bindTimeoutSeconds; 0: Config.BindTimeout).
	BindTimeout time.Duration
}

// profile is a Profile with what the scheduler keeps for it.
type profile struct {
	Profile
	recorder *record.Recorder
	// volumeBinding: the framework has VolumeBinding.
	volumeBinding bool
}

// Scheduler assigns pods to nodes. Its one controller, named "scheduler",
// reconciles pod keys: each reconcile is one scheduling cycle.
type Scheduler struct {
	client *client.Client
	clock  clock.Clock
	rand   *rand.Rand
	logger *slog.Logger
	// profiles are the profiles by schedulerName.
	profiles map[string]*profile
	retry    time.Duration
	// extenders are called in each cycle (extendercycle.go); cycleMu
	// runs the cycles one at a time when there are any, since a cycle
	// lets mu go while they answer.
	extenders []Extender
	cycleMu   sync.Mutex
	// async runs each binding in its own goroutine (live mode); step
	// mode binds within the reconcile, so that the trace keeps one order.
	async bool
	// binding counts the bindings in flight, for Run to wait for.
	binding sync.WaitGroup

	pods  *cache.Informer[*corev1.Pod]
	nodes *cache.Informer[*corev1.Node]
	ctrl  *controllers.Controller
	// The storage caches of VolumeBinding.
	claims  *cache.Informer[*corev1.PersistentVolumeClaim]
	volumes *cache.Informer[*corev1.PersistentVolume]
	classes *cache.Informer[*storagev1.StorageClass]
	// namespaces, for the namespaceSelector of inter-pod affinity terms.
	namespaces *cache.Informer[*corev1.Namespace]
	// Preemption, the PostFilter (preemption.go).
	preemption *preemption

	// mu guards what follows; take it with lock and let it go with
	// unlock, which apply the pod events waiting for it (podEvent).
	mu sync.Mutex
	// podEvents are the pod informer's events that found mu taken, in
	// order, waiting for whoever holds it (guarded by evMu).
	evMu      sync.Mutex
	podEvents []func()
	// nodeInfos holds every node and every node pods are counted on.
	nodeInfos map[string]*NodeInfo
	// sorted lists the nodeInfos with a node, by name; nil when a node
	// came or went and it must be rebuilt.
	sorted []*NodeInfo
	// withAffinity and withRequiredAntiAffinity list the nodes of sorted
	// that have pods with inter-pod affinity terms, and with required
	// anti-affinity terms (PodInfo.SetNodesWithAffinity); rebuilt when
	// affinityDirty, which a pod with terms coming or going sets.
	withAffinity, withRequiredAntiAffinity []*NodeInfo
	affinityDirty                          bool
	// podStates are the pods counted on nodes, by namespace/name.
	podStates map[string]*podState
	// nextStartNodeIndex is where in sorted the next cycle starts
	// filtering (kube-scheduler's Scheduler.nextStartNodeIndex).
	nextStartNodeIndex int
	// unschedulable are the pods nothing fitted, waiting for an event
	// (the scheduling queue's unschedulablePods); waitingForPods those of
	// them that a filter looking at other pods (InterPodAffinity,
	// PodTopologySpread) rejected somewhere, which a pod landing on a node
	// or changing its labels may let in (the plugins' registered events).
	// Kept apart so that a binding does not walk every pod waiting for
	// room.
	unschedulable  map[string]struct{}
	waitingForPods map[string]struct{}
	// gatedPods are the pods of this scheduler that a scheduling gate
	// holds: never queued (the SchedulingGates plugin's PreEnqueue), only
	// remembered, to be counted, until their last gate goes.
	gatedPods map[string]struct{}
	// prebind are the pods waiting in PreBind for their claims, by key
	// (volumes.go): assumed on their node, not bound yet.
	prebind map[string]prebindWait
	// permitWaits are the pods a Permit plugin holds, by key (permit.go):
	// assumed on their node, not bound yet.
	permitWaits map[string]*waitingPod
	last        Decision
	// work is the decision of a cycle that asks extenders, under way
	// while mu is let go (guarded by cycleMu), swapped into last at its
	// end.
	work Decision
	// observe, when set, is told of every decision (ObserveDecisions).
	observe func(Decision)
	// metrics counts the attempts (nil: none).
	metrics *Metrics
}

// podState is a pod counted on a node.
type podState struct {
	node string
	info *PodInfo
	// assumed marks a pod this scheduler bound whose binding the informer
	// has not reported yet.
	assumed bool
}

// New checks cfg and returns the scheduler with its informers on all pods
// and all nodes.
func New(cfg Config) (*Scheduler, error) {
	if cfg.Client == nil || cfg.Clock == nil || cfg.Rand == nil {
		return nil, errors.New("scheduler: Client, Clock and Rand are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.BindTimeout <= 0 {
		cfg.BindTimeout = DefaultBindTimeout
	}
	if len(cfg.Profiles) == 0 {
		p := Profile{SchedulerName: cfg.SchedulerName, Framework: cfg.Framework}
		if p.SchedulerName == "" {
			p.SchedulerName = corev1.DefaultSchedulerName
		}
		if p.Framework == nil {
			p.Framework = DefaultFramework()
		}
		cfg.Profiles = []Profile{p}
	}
	profiles := make(map[string]*profile, len(cfg.Profiles))
	runtimes := map[*frameworkRuntime]string{}
	for _, p := range cfg.Profiles {
		switch {
		case p.SchedulerName == "":
			return nil, errors.New("scheduler: a profile has no schedulerName")
		case profiles[p.SchedulerName] != nil:
			return nil, fmt.Errorf("scheduler: duplicate profile with scheduler name %q", p.SchedulerName)
		case p.Framework == nil:
			return nil, fmt.Errorf("scheduler: profile %q has no Framework", p.SchedulerName)
		}
		if err := ValidatePercentageOfNodesToScore(p.Framework.PercentageOfNodesToScore); err != nil {
			return nil, fmt.Errorf("scheduler: %w", err)
		}
		if p.Framework.rt == nil {
			p.Framework.rt = NewFramework().rt
		}
		if len(p.Framework.Bind) == 0 {
			// A framework built in Go without a binder binds as the
			// default profile does.
			p.Framework.Bind = []BindPlugin{NewDefaultBinder(p.Framework)}
		}
		if other, taken := runtimes[p.Framework.rt]; taken {
			return nil, fmt.Errorf("scheduler: profiles %q and %q share a Framework", other, p.SchedulerName)
		}
		runtimes[p.Framework.rt] = p.SchedulerName
		if p.BindTimeout <= 0 {
			p.BindTimeout = cfg.BindTimeout
		}
		// NodeResourcesFit leaves alone the resources an extender manages
		// with ignoredByScheduler.
		p.Framework = p.Framework.ignoringResources(ignoredResources(cfg.Extenders))
		// One recorder per profile: its events carry the profile's name
		// as their source, as kube-scheduler's recorder factory gives each
		// framework one named after its profile.
		profiles[p.SchedulerName] = &profile{Profile: p, volumeBinding: p.Framework.Has("VolumeBinding"),
			recorder: record.New(record.Config{Client: cfg.Client, Component: p.SchedulerName, Clock: cfg.Clock, Mode: cfg.Mode})}
	}
	if cfg.UnschedulableRetry <= 0 {
		cfg.UnschedulableRetry = DefaultUnschedulableRetry
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	logger := cfg.Logger.With("component", cfg.Profiles[0].SchedulerName)
	s := &Scheduler{
		client: cfg.Client, clock: cfg.Clock, rand: cfg.Rand, logger: logger,
		profiles: profiles, extenders: cfg.Extenders, retry: cfg.UnschedulableRetry,
		async:          cfg.Mode == runmode.Live,
		pods:           cache.For(cfg.Informers, cfg.Client.Pods(), metav1.NamespaceAll, client.ListOptions{}, logger),
		nodes:          cache.For(cfg.Informers, cfg.Client.Nodes(), metav1.NamespaceAll, client.ListOptions{}, logger),
		claims:         cache.For(cfg.Informers, cfg.Client.PersistentVolumeClaims(), metav1.NamespaceAll, client.ListOptions{}, logger),
		volumes:        cache.For(cfg.Informers, cfg.Client.PersistentVolumes(), metav1.NamespaceAll, client.ListOptions{}, logger),
		classes:        cache.For(cfg.Informers, cfg.Client.StorageClasses(), metav1.NamespaceAll, client.ListOptions{}, logger),
		namespaces:     cache.For(cfg.Informers, cfg.Client.Namespaces(), metav1.NamespaceAll, client.ListOptions{}, logger),
		nodeInfos:      map[string]*NodeInfo{},
		podStates:      map[string]*podState{},
		unschedulable:  map[string]struct{}{},
		waitingForPods: map[string]struct{}{},
		gatedPods:      map[string]struct{}{},
		prebind:        map[string]prebindWait{},
		permitWaits:    map[string]*waitingPod{},
		preemption:     newPreemption(cfg.Informers, cfg.Client, logger),
		metrics:        cfg.Metrics,
	}
	ctrl, err := controllers.New(controllers.Config{
		Name: ControllerName, Reconciler: s, Sources: []controllers.Source{s.nodes, s.pods, s.claims, s.volumes, s.classes, s.namespaces, s.preemption.pdbs},
		Clock: cfg.Clock, Mode: cfg.Mode, Workers: cfg.Workers, Logger: logger,
	})
	if err != nil {
		return nil, err
	}
	s.ctrl = ctrl
	for _, p := range profiles {
		// The framework's Handle: the scheduler's client, cache and queue.
		rt := p.Framework.rt
		rt.client, rt.sched, rt.prof, rt.snapshot = cfg.Client, s, p, s.sortedLocked
	}
	cfg.Metrics.readPending(s.pending)
	s.nodes.AddHandler(cache.Handler[*corev1.Node]{
		OnAdd:    func(n *corev1.Node) { s.nodeChanged(nil, n) },
		OnUpdate: func(old, n *corev1.Node) { s.nodeChanged(old, n) },
		OnDelete: s.nodeDeleted,
	})
	s.watchStorage()
	s.pods.AddHandler(cache.Handler[*corev1.Pod]{
		OnAdd:    func(p *corev1.Pod) { s.podEvent(func() { s.podChangedLocked(nil, p) }) },
		OnUpdate: func(old, p *corev1.Pod) { s.podEvent(func() { s.podChangedLocked(old, p) }) },
		OnDelete: func(p *corev1.Pod) { s.podEvent(func() { s.podDeletedLocked(p) }) },
	})
	return s, nil
}

// Controllers returns the scheduler's one controller, for the stepper or
// the controller manager.
func (s *Scheduler) Controllers() []*controllers.Controller {
	return []*controllers.Controller{s.ctrl}
}

// Run schedules until ctx ends (live mode), then waits for the bindings
// still in flight.
func (s *Scheduler) Run(ctx context.Context) {
	s.ctrl.Run(ctx)
	s.binding.Wait()
}

// LastDecision is the most recent scheduling cycle's per-node results.
func (s *Scheduler) LastDecision() Decision {
	s.lock()
	defer s.unlock()
	return s.last.Copy()
}

// ObserveDecisions has f told of every scheduling cycle's decision, a copy
// of its own, after the cycle (nil: no longer). LastDecision keeps only
// the last one; the web page keeps one per pod with it. Until it is
// called, a cycle makes no copy.
func (s *Scheduler) ObserveDecisions(f func(Decision)) {
	s.lock()
	defer s.unlock()
	s.observe = f
}

// responsible reports whether pod is this scheduler's to place: unbound,
// not being deleted, and naming one of its profiles (kube-scheduler's
// responsibleForPod). A pod naming a scheduler no profile has is left
// alone, for that scheduler to bind.
func (s *Scheduler) responsible(pod *corev1.Pod) bool {
	return pod.Spec.NodeName == "" && pod.DeletionTimestamp == nil && s.profileFor(pod) != nil
}

// profileFor returns the profile the pod names in spec.schedulerName (an
// empty name is default-scheduler, which the API server fills in), nil
// when none has that name.
func (s *Scheduler) profileFor(pod *corev1.Pod) *profile {
	name := pod.Spec.SchedulerName
	if name == "" {
		name = corev1.DefaultSchedulerName
	}
	return s.profiles[name]
}

// gated reports whether the pod has scheduling gates: kube-scheduler's
// SchedulingGates plugin keeps such a pod out of the queue (PreEnqueue),
// and the API server has marked it PodScheduled=False, reason
// SchedulingGated, when it was created.
func gated(pod *corev1.Pod) bool { return len(pod.Spec.SchedulingGates) > 0 }

// heldBack reports whether a PreEnqueue plugin of the pod's profile keeps
// it out of the queue (SchedulingGates: a gated pod). Such a pod is
// remembered and counted as gated until an update lets it in.
func (s *Scheduler) heldBack(pod *corev1.Pod) bool {
	prof := s.profileFor(pod)
	if prof == nil {
		return false
	}
	for _, p := range prof.Framework.PreEnqueue {
		if !p.PreEnqueue(context.Background(), pod).IsSuccess() {
			return true
		}
	}
	return false
}

func terminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// --- the cache, updated from informer events ---

func (s *Scheduler) addPodLocked(key, node string, info *PodInfo, assumed bool) {
	ni := s.nodeInfos[node]
	if ni == nil {
		ni = &NodeInfo{}
		s.nodeInfos[node] = ni
	}
	ni.AddPod(info)
	s.podStates[key] = &podState{node: node, info: info, assumed: assumed}
	if info.HasAffinity() {
		s.affinityDirty = true
	}
}

func (s *Scheduler) removePodLocked(key string, st *podState) {
	delete(s.podStates, key)
	ni := s.nodeInfos[st.node]
	if ni == nil {
		return
	}
	ni.RemovePod(st.info)
	if st.info.HasAffinity() {
		s.affinityDirty = true
	}
	if ni.Node == nil && ni.Requested.Pods == 0 {
		delete(s.nodeInfos, st.node)
	}
}

// requeueLocked moves every unschedulable pod back to the queue because of
// cause, in key order (MoveAllToActiveOrBackoffQueue).
func (s *Scheduler) requeueLocked(cause controllers.Cause) {
	if len(s.unschedulable) == 0 {
		return
	}
	keys := slices.Sorted(maps.Keys(s.unschedulable))
	for _, k := range keys {
		s.ctrl.Enqueue(k, cause)
	}
	clear(s.unschedulable)
	clear(s.waitingForPods)
}

// requeueForPodLocked moves back to the queue the unschedulable pods
// that a pod landing on a node, or changing its labels, may let in: those
// InterPodAffinity or PodTopologySpread rejected somewhere. The others
// stay: no pod added to a node makes room for them.
func (s *Scheduler) requeueForPodLocked(cause controllers.Cause) {
	if len(s.waitingForPods) == 0 {
		return
	}
	keys := slices.Sorted(maps.Keys(s.waitingForPods))
	for _, k := range keys {
		s.dropUnschedulableLocked(k)
		s.ctrl.Enqueue(k, cause)
	}
}

// dropUnschedulableLocked takes key out of the unschedulable pods.
func (s *Scheduler) dropUnschedulableLocked(key string) {
	delete(s.unschedulable, key)
	delete(s.waitingForPods, key)
}

func (s *Scheduler) sortedLocked() []*NodeInfo {
	if s.sorted == nil {
		s.affinityDirty = true
		s.sorted = make([]*NodeInfo, 0, len(s.nodeInfos))
		for _, ni := range s.nodeInfos {
			if ni.Node != nil {
				s.sorted = append(s.sorted, ni)
			}
		}
		sort.Slice(s.sorted, func(i, j int) bool { return s.sorted[i].Node.Name < s.sorted[j].Node.Name })
	}
	return s.sorted
}

// lock takes mu and applies the pod events that waited for it, so that
// whoever holds mu sees every event delivered before it took it.
func (s *Scheduler) lock() {
	s.mu.Lock()
	s.applyPodEventsLocked()
}

// unlock lets mu go, then applies the pod events that came meanwhile
// (their handlers found mu taken and left them to its holder).
func (s *Scheduler) unlock() {
	s.mu.Unlock()
	s.drainPodEvents()
}

// podEvent applies a pod informer event (apply, under mu) now if mu is
// free, else leaves it to mu's holder, in order, and returns: the pod
// informer never waits for a scheduling cycle. A cycle holds mu over
// every node (5,000 in the largest benchmark), and the informer, which took
// mu for each event, waited behind the four workers' cycles in turn: at
// 100,000 pods it fell tens of thousands of events behind while the
// workers had nothing new to schedule, and its watch was ended as too
// slow. kube-scheduler's event handlers likewise only update
// its cache and queue; its cycle works on a snapshot.
func (s *Scheduler) podEvent(apply func()) {
	s.evMu.Lock()
	s.podEvents = append(s.podEvents, apply)
	s.evMu.Unlock()
	s.drainPodEvents()
}

// applyPodEventsLocked applies the waiting pod events, oldest first.
func (s *Scheduler) applyPodEventsLocked() {
	for {
		s.evMu.Lock()
		evs := s.podEvents
		s.podEvents = nil
		s.evMu.Unlock()
		if len(evs) == 0 {
			return
		}
		for _, apply := range evs {
			apply()
		}
	}
}

// drainPodEvents applies the waiting pod events if mu is free. If it is
// taken, its holder applies them when it lets go (unlock), so none is
// left behind.
func (s *Scheduler) drainPodEvents() {
	for {
		s.evMu.Lock()
		waiting := len(s.podEvents) > 0
		s.evMu.Unlock()
		if !waiting || !s.mu.TryLock() {
			return
		}
		s.applyPodEventsLocked()
		s.mu.Unlock()
	}
}

func (s *Scheduler) podChangedLocked(old, pod *corev1.Pod) {
	key := cache.Key(&pod.ObjectMeta)
	event := "ADDED"
	if old != nil {
		event = "MODIFIED"
	}
	st := s.podStates[key]
	switch {
	case pod.Spec.NodeName != "" && !terminal(pod):
		if st != nil {
			s.removePodLocked(key, st)
		}
		s.addPodLocked(key, pod.Spec.NodeName, NewPodInfo(pod), false)
		if st == nil || st.assumed || !maps.Equal(st.info.Pod.Labels, pod.Labels) {
			// A pod seen on its node for the first time, or with new
			// labels: a pod waiting for (or kept off by) pods like it
			// may fit now (AssignedPodAdd, AssignedPodUpdate).
			s.requeueForPodLocked(controllers.CauseOf(event, "Pod", &pod.ObjectMeta))
		}
	case st != nil && st.assumed && pod.Spec.NodeName == "":
		// The informer has not seen our binding yet: keep assuming.
	case st != nil:
		// A bound pod finished: its room is free for the waiting pods.
		s.removePodLocked(key, st)
		s.requeueLocked(controllers.CauseOf(event, "Pod", &pod.ObjectMeta))
	}
	if !s.responsible(pod) || s.heldBack(pod) {
		// A gated pod does not enter the queue at all (SchedulingGates's
		// PreEnqueue); the update that removes its last gate does.
		s.dropUnschedulableLocked(key)
		if s.responsible(pod) {
			s.gatedPods[key] = struct{}{}
		} else {
			delete(s.gatedPods, key)
		}
		return
	}
	delete(s.gatedPods, key)
	if _, waiting := s.unschedulable[key]; waiting {
		// Our own status update, or a kubectl label, does not make a pod
		// fit; a change of spec may (isPodUpdated).
		if old != nil && equality.Semantic.DeepEqual(old.Spec, pod.Spec) && maps.Equal(old.Labels, pod.Labels) {
			return
		}
		s.dropUnschedulableLocked(key)
	}
	s.ctrl.Enqueue(key, controllers.CauseOf(event, "Pod", &pod.ObjectMeta))
}

func (s *Scheduler) podDeletedLocked(pod *corev1.Pod) {
	key := cache.Key(&pod.ObjectMeta)
	s.dropUnschedulableLocked(key)
	delete(s.prebind, key)
	delete(s.gatedPods, key)
	if w := s.permitWaits[key]; w != nil {
		// Deleted while a Permit plugin held it: its reservation goes
		// with it (the assumed pod goes below).
		s.releaseWaitingLocked(context.Background(), w)
	}
	if st := s.podStates[key]; st != nil {
		s.removePodLocked(key, st)
		s.requeueLocked(controllers.CauseOf("DELETED", "Pod", &pod.ObjectMeta))
	}
}

func (s *Scheduler) nodeChanged(old, node *corev1.Node) {
	s.lock()
	defer s.unlock()
	ni := s.nodeInfos[node.Name]
	if ni == nil {
		ni = &NodeInfo{}
		s.nodeInfos[node.Name] = ni
	}
	if ni.Node == nil {
		s.sorted = nil
	}
	ni.SetNode(node)
	switch {
	case old == nil:
		s.requeueLocked(controllers.CauseOf("ADDED", "Node", &node.ObjectMeta))
	case nodeSchedulingChanged(old, node):
		s.requeueLocked(controllers.CauseOf("MODIFIED", "Node", &node.ObjectMeta))
	}
}

// nodeSchedulingChanged reports whether an update changed anything a
// filter looks at, so a heartbeat does not wake every waiting pod
// (nodeSchedulingPropertiesChange). Annotations count, as kube-scheduler's
// UpdateNodeAnnotation event: an extender may look at them.
func nodeSchedulingChanged(old, node *corev1.Node) bool {
	o, n := NewNodeInfo(old), NewNodeInfo(node)
	return old.Spec.Unschedulable != node.Spec.Unschedulable ||
		!o.Allocatable.equal(n.Allocatable) || o.Ready != n.Ready ||
		!maps.Equal(old.Labels, node.Labels) ||
		!maps.Equal(old.Annotations, node.Annotations) ||
		!reflect.DeepEqual(old.Spec.Taints, node.Spec.Taints)
}

func (s *Scheduler) nodeDeleted(node *corev1.Node) {
	s.lock()
	defer s.unlock()
	ni := s.nodeInfos[node.Name]
	if ni == nil {
		return
	}
	s.sorted = nil
	ni.SetNode(nil)
	if ni.Requested.Pods == 0 {
		delete(s.nodeInfos, node.Name)
	}
}

// --- the scheduling cycle ---

// Reconcile schedules the pod key, one scheduling cycle: filter, score,
// assume, bind; or, when nothing fits, record why and wait.
func (s *Scheduler) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	if len(s.extenders) > 0 {
		s.cycleMu.Lock()
		defer s.cycleMu.Unlock()
	}
	ns, name := cache.SplitKey(key)
	pod, ok := s.pods.Get(ns, name)
	s.lock()
	if w := s.permitWaits[key]; w != nil {
		return s.permitWaitLocked(ctx, key, pod, ok, w)
	}
	if !ok || !s.responsible(pod) || s.heldBack(pod) {
		// Gone, bound by someone, not ours, or held back by a scheduling
		// gate: drop it from the queue.
		s.dropUnschedulableLocked(key)
		if w, waiting := s.prebind[key]; waiting {
			delete(s.prebind, key)
			if !ok || pod.Spec.NodeName != w.node {
				s.unlock()
				s.unreserveAndForget(ctx, w.prof, w.info, key, w.node)
				return controllers.Result{}, nil
			}
		}
		s.unlock()
		return controllers.Result{}, nil
	}
	if w, waiting := s.prebind[key]; waiting {
		s.unlock()
		return s.waitForClaims(ctx, key, pod, w)
	}
	if st := s.podStates[key]; st != nil && st.assumed {
		// Bound already; the informer is behind.
		s.unlock()
		return controllers.Result{}, nil
	}
	start := s.clock.Now() // the attempt's duration runs from here to the binding
	prof := s.profileFor(pod)
	info := NewPodInfo(pod)
	if prof.volumeBinding {
		info.Volumes = s.volumeInfo(pod)
	}
	s.resolveNamespaces(info)
	info.SetNodesWithAffinity(s.nodesWithAffinityLocked())
	if exts := s.interestedExtenders(pod); len(exts) > 0 {
		s.scheduleWithExtendersLocked(ctx, prof, pod, info, exts)
	} else {
		nodes := s.sortedLocked()
		prof.Framework.Schedule(ctx, info, nodes, s.nextStartNodeIndex, s.rand, &s.last)
		if len(nodes) > 0 {
			// The next cycle starts where this one stopped, so that every
			// node gets its turn when cycles filter only some of them
			// (nextStartNodeIndex in kube-scheduler's findNodesThatFitPod).
			s.nextStartNodeIndex = (s.nextStartNodeIndex + len(s.last.Nodes)) % len(nodes)
		}
	}
	s.last.Cycle++
	chosen := s.last.Chosen
	var msg string
	if cycleErr := s.last.Err; cycleErr != "" {
		// An extender failed: an error, not a verdict on the nodes. The
		// pod is tried again after the back-off, as kube-scheduler
		// queues a pod whose cycle ended in an error.
		s.unlockAndObserve()
		s.logger.Info("Error scheduling pod; retrying", "pod", key, "err", cycleErr)
		s.metrics.attempt(ResultError, prof.SchedulerName, start, s.clock.Now())
		return s.schedulingError(ctx, pod, cycleErr)
	}
	if chosen == "" {
		msg = s.last.FitError().Error()
		s.unschedulable[key] = struct{}{}
		if s.last.rejectedByPodFilters() {
			s.waitingForPods[key] = struct{}{}
		}
		var statuses map[string]*Status
		if len(prof.Framework.PostFilter) > 0 {
			statuses = s.last.nodeStatuses()
		}
		s.unlockAndObserve()
		s.metrics.attempt(ResultUnschedulable, prof.SchedulerName, start, s.clock.Now())
		res, err := s.unschedulableFailure(ctx, pod, msg)
		if err == nil {
			err = s.runPostFilter(ctx, prof, info, statuses)
		}
		return res, err
	}
	// Assume before binding, so the next cycle counts this pod even if
	// the informer reports the binding late.
	s.addPodLocked(key, chosen, info, true)
	s.dropUnschedulableLocked(key)
	// Reserve and Permit end the scheduling cycle, under mu (permit.go).
	fw := prof.Framework
	if st := fw.runReserve(ctx, info, chosen); !st.IsSuccess() {
		s.forgetLocked(key)
		s.last.Err = st.Message()
		s.unlockAndObserve()
		s.metrics.attempt(ResultError, prof.SchedulerName, start, s.clock.Now())
		return s.schedulingError(ctx, pod, st.Message())
	}
	st, waits := fw.runPermit(ctx, info, chosen)
	if !st.IsSuccess() {
		fw.runUnreserve(ctx, info, chosen)
		s.forgetLocked(key)
		s.last.Permit = rejectedBy(st)
		s.unlockAndObserve()
		return s.permitFailure(ctx, prof, pod, st, start)
	}
	if len(waits) > 0 {
		now := s.clock.Now()
		w := fw.addWaiting(info, key, chosen, start, now, waits)
		s.permitWaits[key] = w
		s.last.Permit = describeWait(waits)
		w.decision = s.last.Copy()
		_, _, wait := w.verdict(now)
		s.unlockAndObserve()
		return controllers.Result{RequeueAfter: wait}, nil
	}
	s.unlockAndObserve()
	return s.afterPermit(ctx, prof, pod, info, chosen, start)
}

// afterPermit is the binding cycle of a pod Permit let go: the volumes'
// PreBind wait if the pod has claims to bind, else the binding.
func (s *Scheduler) afterPermit(ctx context.Context, prof *profile, pod *corev1.Pod, info *PodInfo, chosen string, start time.Time) (controllers.Result, error) {
	key := pod.Namespace + "/" + pod.Name
	if info.Volumes == nil || len(info.Volumes.Unbound) == 0 {
		return s.bindingCycle(ctx, pod, info, chosen, start)
	}
	// PreBind: the claims are marked with the chosen node, and the
	// binding waits for the PV controller to bind them there; the pod
	// stays assumed on the node meanwhile. The claims' updates wake it.
	s.lock()
	s.prebind[key] = prebindWait{node: chosen, since: s.clock.Now(), start: start, info: info, prof: prof}
	s.unlock()
	if err := s.selectNodeForClaims(ctx, info.Volumes, chosen); err != nil {
		s.lock()
		delete(s.prebind, key)
		s.unlock()
		s.unreserveAndForget(ctx, prof, info, key, chosen)
		return controllers.Result{}, err
	}
	return controllers.Result{RequeueAfter: prof.BindTimeout}, nil
}

// permitWaitLocked is the reconcile of a pod a Permit plugin holds,
// called with mu held: bind it once allowed, give the node up when
// rejected or timed out, or wait on (the earliest timeout is the
// requeue).
func (s *Scheduler) permitWaitLocked(ctx context.Context, key string, pod *corev1.Pod, ok bool, w *waitingPod) (controllers.Result, error) {
	prof := w.rt.prof
	if !ok || pod.UID != w.pod.UID || pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil {
		// Gone, replaced, bound by someone else or being deleted.
		s.dropWaitingLocked(ctx, w)
		s.unlock()
		return controllers.Result{}, nil
	}
	rejected, allowed, wait := w.verdict(s.clock.Now())
	switch {
	case rejected != nil:
		s.dropWaitingLocked(ctx, w)
		s.notePermitLocked(w, rejectedBy(rejected))
		s.unlockAndObserve()
		return s.permitFailure(ctx, prof, pod, rejected, w.start)
	case allowed:
		delete(s.permitWaits, key)
		prof.Framework.removeWaiting(w)
		s.notePermitLocked(w, "allowed")
		s.unlockAndObserve()
		return s.afterPermit(ctx, prof, pod, w.info, w.node, w.start)
	}
	s.unlock()
	return controllers.Result{RequeueAfter: wait}, nil
}

// notePermitLocked makes the decision that parked w the last one again,
// with how its wait ended ("waiting on X (timeout 30s), then allowed"),
// so that the trace and the web page show the end of the wait as a step
// of its own.
func (s *Scheduler) notePermitLocked(w *waitingPod, outcome string) {
	cycle := s.last.Cycle + 1
	s.last = w.decision
	s.last.Cycle = cycle
	s.last.Permit += ", then " + outcome
}

// rejectedBy is the trace's words for a Permit rejection: "rejected by
// X: message" (no plugin for a pod rejected through the Handle).
func rejectedBy(st *Status) string {
	out := "rejected"
	if p := st.Plugin(); p != "" {
		out += " by " + p
	}
	return out + ": " + st.Message()
}

// permitFailure records a pod Permit rejected (or an error of a Permit
// plugin): PodScheduled=False, a FailedScheduling event with the
// plugin's message, and another try after the initial back-off, as
// kube-scheduler requeues a pod whose binding cycle failed.
func (s *Scheduler) permitFailure(ctx context.Context, prof *profile, pod *corev1.Pod, st *Status, start time.Time) (controllers.Result, error) {
	if st.IsRejected() {
		// Among the unschedulable pods, so that its own status update
		// does not queue it at once; the back-off or a cluster event does.
		s.lock()
		s.unschedulable[pod.Namespace+"/"+pod.Name] = struct{}{}
		s.unlock()
		s.metrics.attempt(ResultUnschedulable, prof.SchedulerName, start, s.clock.Now())
		return s.handleSchedulingFailure(ctx, pod, corev1.PodReasonUnschedulable, st.Message(), BindRetry)
	}
	s.metrics.attempt(ResultError, prof.SchedulerName, start, s.clock.Now())
	return s.schedulingError(ctx, pod, st.Message())
}

// releaseWaitingLocked forgets the waiting pod w and unreserves it.
func (s *Scheduler) releaseWaitingLocked(ctx context.Context, w *waitingPod) {
	delete(s.permitWaits, w.key)
	fw := w.rt.prof.Framework
	fw.removeWaiting(w)
	fw.runUnreserve(ctx, w.info, w.node)
}

// dropWaitingLocked releases the waiting pod w and drops its assumption.
func (s *Scheduler) dropWaitingLocked(ctx context.Context, w *waitingPod) {
	s.releaseWaitingLocked(ctx, w)
	s.forgetLocked(w.key)
}

// runPostFilter runs the profile's PostFilter plugins (DefaultPreemption)
// until one succeeds; an error is the reconcile's.
func (s *Scheduler) runPostFilter(ctx context.Context, prof *profile, info *PodInfo, statuses map[string]*Status) error {
	for _, p := range prof.Framework.PostFilter {
		_, st := p.PostFilter(ctx, &info.state, info, statuses)
		if st.IsSuccess() {
			return nil
		}
		if st.Code() == Error {
			return st.AsError()
		}
	}
	return nil
}

// unlockAndObserve lets mu go after a cycle and tells the observer
// (ObserveDecisions), if any, of the cycle's decision: a copy made under
// mu, handed over without it.
func (s *Scheduler) unlockAndObserve() {
	observe := s.observe
	var observed Decision
	if observe != nil {
		observed = s.last.Copy()
	}
	s.unlock()
	if observe != nil {
		observe(observed)
	}
}

// nodesWithAffinityLocked returns the nodes with pods that have
// inter-pod affinity terms and those with pods that have required
// anti-affinity terms, rebuilding the lists if a pod with terms, or a
// node, came or went since.
func (s *Scheduler) nodesWithAffinityLocked() (withAffinity, withRequiredAnti []*NodeInfo) {
	nodes := s.sortedLocked()
	if s.affinityDirty {
		// New slices, not the old ones emptied: a PodInfo of an earlier
		// cycle may still hold those.
		s.withAffinity, s.withRequiredAntiAffinity = nil, nil
		for _, ni := range nodes {
			if len(ni.PodsWithAffinity) > 0 {
				s.withAffinity = append(s.withAffinity, ni)
			}
			if len(ni.PodsWithRequiredAntiAffinity) > 0 {
				s.withRequiredAntiAffinity = append(s.withRequiredAntiAffinity, ni)
			}
		}
		s.affinityDirty = false
	}
	return s.withAffinity, s.withRequiredAntiAffinity
}

// resolveNamespaces gives the pod's inter-pod affinity terms the
// namespaces their namespaceSelector selects and the pod the labels of its
// namespace (InterPodAffinity's PreFilter does this with its namespace
// lister).
func (s *Scheduler) resolveNamespaces(info *PodInfo) {
	var nsLabels labels.Set
	if ns, ok := s.namespaces.Get("", info.Pod.Namespace); ok {
		nsLabels = ns.Labels
	}
	if !info.HasAffinity() {
		info.NamespaceLabels = nsLabels
		return
	}
	info.ResolveNamespaces(nsLabels, func(sel labels.Selector) []string {
		var names []string
		for _, ns := range s.namespaces.List() {
			if sel.Matches(labels.Set(ns.Labels)) {
				names = append(names, ns.Name)
			}
		}
		return names
	})
}

// forget drops the assumption of key after a failed binding.
func (s *Scheduler) forget(key string) {
	s.lock()
	defer s.unlock()
	s.forgetLocked(key)
}

func (s *Scheduler) forgetLocked(key string) {
	if st := s.podStates[key]; st != nil && st.assumed {
		s.removePodLocked(key, st)
	}
}

// unreserveAndForget gives up the node of a pod after Reserve: its
// Unreserve plugins in reverse, then its assumption.
func (s *Scheduler) unreserveAndForget(ctx context.Context, prof *profile, info *PodInfo, key, node string) {
	s.lock()
	defer s.unlock()
	prof.Framework.runUnreserve(ctx, info, node)
	s.forgetLocked(key)
}

// BindRetry is how long a pod whose binding failed waits before its next
// scheduling cycle in live mode: kube-scheduler's
// podInitialBackoffDuration, the back-off a pod gets when its binding
// cycle fails.
const BindRetry = time.Second

// bindingCycle binds pod, assumed on node already. In live mode it runs
// in a goroutine of its own and the worker goes on to the next pod's
// scheduling cycle at once, as kube-scheduler's scheduleOne does ("bind
// the pod to its host asynchronously"): a binding waits for the store's
// commit, and nothing else in the scheduler waits for it, because the
// assumed pod already counts on its node. If it fails, bind has dropped
// the assumption and the pod is queued again after BindRetry. Step mode
// binds within the reconcile, in order.
func (s *Scheduler) bindingCycle(ctx context.Context, pod *corev1.Pod, info *PodInfo, node string, start time.Time) (controllers.Result, error) {
	if !s.async {
		return s.bind(ctx, pod, info, node, start)
	}
	s.binding.Add(1)
	go func() {
		defer s.binding.Done()
		key := pod.Namespace + "/" + pod.Name
		res, err := s.bind(ctx, pod, info, node, start)
		switch {
		case ctx.Err() != nil:
		case err != nil:
			s.logger.Debug("binding failed; will retry", "pod", key, "err", err)
			s.ctrl.EnqueueAfter(key, BindRetry, controllers.Cause{Event: "retry after error"})
		case res.RequeueAfter > 0:
			// A PreBind plugin failed: tried again after its back-off.
			s.ctrl.EnqueueAfter(key, res.RequeueAfter, controllers.Cause{Event: "retry after error"})
		}
	}()
	return controllers.Result{}, nil
}

// bind is the binding cycle's work: the PreBind plugins, then the
// binding, by an extender with a bind verb (extendersBinding) or else by
// the first Bind plugin that does not Skip (DefaultBinder posts the
// pod's Binding), then the PostBind plugins. On a failure the pod is
// unreserved and forgotten. The attempt begun at start ends here:
// scheduled, or an error.
func (s *Scheduler) bind(ctx context.Context, pod *corev1.Pod, info *PodInfo, node string, start time.Time) (controllers.Result, error) {
	key := pod.Namespace + "/" + pod.Name
	prof := s.profileFor(pod) // responsible, so not nil
	fw := prof.Framework
	for _, p := range fw.PreBind {
		if st := p.PreBind(ctx, &info.state, info, node); !st.IsSuccess() {
			s.unreserveAndForget(ctx, prof, info, key, node)
			s.metrics.attempt(ResultError, prof.SchedulerName, start, s.clock.Now())
			return s.schedulingError(ctx, pod, fmt.Sprintf("running PreBind plugin %q: %s", p.Name(), st.Message()))
		}
	}
	bound, err := s.extendersBinding(ctx, pod, node)
	if !bound {
		err = runBind(ctx, fw, info, node)
	}
	if err != nil {
		s.unreserveAndForget(ctx, prof, info, key, node)
		if api.IsConflict(err) || api.IsNotFound(err) {
			// Bound by someone else, being deleted, or gone: nothing
			// left to schedule.
			s.logger.Debug("pod no longer needs scheduling", "pod", key, "err", err)
			return controllers.Result{}, nil
		}
		s.metrics.attempt(ResultError, prof.SchedulerName, start, s.clock.Now())
		return controllers.Result{}, fmt.Errorf("binding pod %s to node %s: %w", key, node, err)
	}
	s.metrics.attempt(ResultScheduled, prof.SchedulerName, start, s.clock.Now())
	if err := prof.recorder.Eventf(ctx, record.Ref(pod, podGVK), "Normal", "Scheduled",
		"Successfully assigned %v/%v to %v", pod.Namespace, pod.Name, node); err != nil {
		s.logger.Warn("recording event failed", "pod", key, "err", err)
	}
	for _, p := range fw.PostBind {
		p.PostBind(ctx, &info.state, info, node)
	}
	return controllers.Result{}, nil
}

// runBind runs the Bind plugins until one does not Skip; its error is
// the binding's.
func runBind(ctx context.Context, fw *Framework, info *PodInfo, node string) error {
	for _, p := range fw.Bind {
		st := p.Bind(ctx, &info.state, info, node)
		if st.IsSkip() {
			continue
		}
		return st.AsError()
	}
	return fmt.Errorf("running Bind plugins: every bind plugin skipped pod %s", info.Key)
}

// unschedulableFailure is handleSchedulingFailure for a pod nothing fits:
// PodScheduled=False with reason Unschedulable, and a safety-net retry.
func (s *Scheduler) unschedulableFailure(ctx context.Context, pod *corev1.Pod, msg string) (controllers.Result, error) {
	return s.handleSchedulingFailure(ctx, pod, corev1.PodReasonUnschedulable, msg, s.retry)
}

// schedulingError is handleSchedulingFailure for a pod whose cycle ended
// in an error (a PreBind error, an extender that failed): reason
// SchedulerError, the error's text as the message, and a new try after
// the initial back-off (podInitialBackoffDuration, 1s).
func (s *Scheduler) schedulingError(ctx context.Context, pod *corev1.Pod, msg string) (controllers.Result, error) {
	return s.handleSchedulingFailure(ctx, pod, corev1.PodReasonSchedulerError, msg, time.Second)
}

// handleSchedulingFailure records why a pod was not bound, as the real
// scheduler's handleSchedulingFailure does: PodScheduled=False with the
// reason and message (written only when it changes), a FailedScheduling
// event, and the pod queued again after retry.
func (s *Scheduler) handleSchedulingFailure(ctx context.Context, pod *corev1.Pod, reason, msg string, retry time.Duration) (controllers.Result, error) {
	key := pod.Namespace + "/" + pod.Name
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: msg}
	if updated, changed := withPodCondition(pod, cond, s.clock.Now()); changed {
		if _, err := s.client.Pods().UpdateStatus(ctx, updated); err != nil {
			if api.IsNotFound(err) {
				return controllers.Result{}, nil
			}
			return controllers.Result{}, fmt.Errorf("updating status of pod %s: %w", key, err)
		}
	}
	if err := s.profileFor(pod).recorder.Eventf(ctx, record.Ref(pod, podGVK), "Warning", "FailedScheduling", "%s", msg); err != nil {
		s.logger.Warn("recording event failed", "pod", key, "err", err)
	}
	return controllers.Result{RequeueAfter: retry}, nil
}

// withPodCondition returns a copy of pod with cond set, and whether that
// changed anything (podutil.UpdatePodCondition): lastTransitionTime moves
// only when the status does.
func withPodCondition(pod *corev1.Pod, cond corev1.PodCondition, now time.Time) (*corev1.Pod, bool) {
	cond.LastTransitionTime = metav1.NewTime(now.UTC().Truncate(time.Second))
	for i, c := range pod.Status.Conditions {
		if c.Type != cond.Type {
			continue
		}
		if c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message {
			return pod, false
		}
		if c.Status == cond.Status {
			cond.LastTransitionTime = c.LastTransitionTime
		}
		out := pod.DeepCopy()
		out.Status.Conditions[i] = cond
		return out, true
	}
	out := pod.DeepCopy()
	out.Status.Conditions = append(out.Status.Conditions, cond)
	return out, true
}
