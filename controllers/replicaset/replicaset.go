package replicaset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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

// ControllerName is the name --controllers uses.
const ControllerName = "replicaset"

// Component is the event source of the controller, as in Kubernetes.
const Component = "replicaset-controller"

// BurstReplicas caps the pods created or deleted in one sync, as
// kube-controller-manager's default does.
const BurstReplicas = 500

// The reasons of the events the controller records (pkg/controller).
const (
	SuccessfulCreatePodReason = "SuccessfulCreate"
	FailedCreatePodReason     = "FailedCreate"
	SuccessfulDeletePodReason = "SuccessfulDelete"
	FailedDeletePodReason     = "FailedDelete"
)

// GroupVersionKind is apps/v1 ReplicaSet, the kind of the controller
// references the controller sets.
var GroupVersionKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}

// controllerUIDIndex indexes pods by the uid of their controller, and
// orphans by "orphan/<namespace>", so a sync reads only the pods it may own.
const controllerUIDIndex = "controllerUIDOrOrphan"

// Config builds a ReplicaSetController.
type Config struct {
	// Client is the controller's API client (required).
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (kube-controller-manager's SharedInformerFactory; nil:
	// private ones).
	Informers *cache.Factory
	// Clock drives expectations, availability and events (required).
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// Recorder records events; by default one signed replicaset-controller.
	Recorder *record.Recorder
	// Namespace limits the controller to one namespace ("" for all).
	Namespace string
	// Workers is the number of concurrent syncs in live mode (1).
	Workers int
	// BurstReplicas caps creates and deletes per sync (BurstReplicas).
	BurstReplicas int
	// ExpectationsTimeout (controllers.ExpectationsTimeout).
	ExpectationsTimeout time.Duration
	// Logger (discarded when nil).
	Logger *slog.Logger
}

// ReplicaSetController keeps the pods of every ReplicaSet at
// spec.replicas.
type ReplicaSetController struct {
	client       *client.Client
	clock        clock.Clock
	recorder     *record.Recorder
	logger       *slog.Logger
	burst        int
	parallel     bool
	expectations *controllers.ControllerExpectations

	// kind is what the controller keeps: ReplicaSets, or
	// ReplicationControllers seen as ReplicaSets (replication.go).
	kind        kindSpec
	rsInformer  replicaSetLister
	rsClient    replicaSetClient
	podInformer *cache.Informer[*corev1.Pod]
	controller  *controllers.Controller
}

// replicaSetLister is where the controller reads what it keeps: the
// informer of ReplicaSets, or the one of ReplicationControllers behind an
// adapter that shows them as ReplicaSets (replication.go).
type replicaSetLister interface {
	controllers.Source
	Get(ns, name string) (*appsv1.ReplicaSet, bool)
	ByIndex(index, value string) []*appsv1.ReplicaSet
	AddHandler(h cache.Handler[*appsv1.ReplicaSet])
}

// replicaSetClient is the part of the API the controller writes what it
// keeps through: a fresh read (before adopting) and the status.
type replicaSetClient interface {
	Get(ctx context.Context, ns, name string) (*appsv1.ReplicaSet, error)
	UpdateStatus(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error)
}

// kindSpec names the kind a ReplicaSetController keeps and where it reads
// and writes it.
type kindSpec struct {
	// name is the controller's name (--controllers) and component its
	// events' source.
	name, component string
	// gvk is the kind of the controller references it sets and follows.
	gvk      schema.GroupVersionKind
	informer func(cfg Config) replicaSetLister
	client   func(cfg Config) replicaSetClient
}

// replicaSets is the kind New keeps.
var replicaSets = kindSpec{
	name: ControllerName, component: Component, gvk: GroupVersionKind,
	informer: func(cfg Config) replicaSetLister {
		return cache.For(cfg.Informers, cfg.Client.ReplicaSets(), cfg.Namespace, client.ListOptions{}, cfg.Logger)
	},
	client: func(cfg Config) replicaSetClient { return cfg.Client.ReplicaSets() },
}

// New builds the controller and its informers (not yet synced).
func New(cfg Config) (*ReplicaSetController, error) { return newController(cfg, replicaSets) }

// newController builds the controller of one kind.
func newController(cfg Config, kind kindSpec) (*ReplicaSetController, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New(kind.name + ": Client and Clock are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Recorder == nil {
		cfg.Recorder = record.New(record.Config{Client: cfg.Client, Component: kind.component, Clock: cfg.Clock, Mode: cfg.Mode})
	}
	if cfg.BurstReplicas <= 0 {
		cfg.BurstReplicas = BurstReplicas
	}
	rsc := &ReplicaSetController{
		client:   cfg.Client,
		clock:    cfg.Clock,
		recorder: cfg.Recorder,
		logger:   cfg.Logger.With("controller", kind.name),
		burst:    cfg.BurstReplicas,
		// Live mode creates the pods of one slow-start batch concurrently,
		// as Kubernetes does; step mode creates them in order, so that
		// the trace is the same every run.
		parallel:     cfg.Mode == runmode.Live,
		expectations: controllers.NewControllerExpectations(cfg.Clock, cfg.ExpectationsTimeout),
		kind:         kind,
		rsInformer:   kind.informer(cfg),
		rsClient:     kind.client(cfg),
		podInformer:  cache.For(cfg.Informers, cfg.Client.Pods(), cfg.Namespace, client.ListOptions{}, cfg.Logger),
	}
	rsc.podInformer.AddIndexer(controllerUIDIndex, func(p *corev1.Pod) []string {
		if ref := api.GetControllerOf(&p.ObjectMeta); ref != nil {
			return []string{string(ref.UID)}
		}
		return []string{"orphan/" + p.Namespace}
	})
	c, err := controllers.New(controllers.Config{
		Name:       kind.name,
		Reconciler: rsc,
		Sources:    []controllers.Source{rsc.rsInformer, rsc.podInformer},
		Clock:      cfg.Clock, Mode: cfg.Mode,
		Workers: cfg.Workers,
		Logger:  cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	rsc.controller = c
	rsc.rsInformer.AddHandler(cache.Handler[*appsv1.ReplicaSet]{
		OnAdd:    func(rs *appsv1.ReplicaSet) { rsc.enqueue(rs, "ADDED", kind.gvk.Kind, &rs.ObjectMeta) },
		OnUpdate: func(_, rs *appsv1.ReplicaSet) { rsc.enqueue(rs, "MODIFIED", kind.gvk.Kind, &rs.ObjectMeta) },
		OnDelete: func(rs *appsv1.ReplicaSet) {
			rsc.expectations.DeleteExpectations(cache.Key(&rs.ObjectMeta))
			rsc.enqueue(rs, "DELETED", kind.gvk.Kind, &rs.ObjectMeta)
		},
	})
	rsc.podInformer.AddHandler(cache.Handler[*corev1.Pod]{
		OnAdd:    rsc.addPod,
		OnUpdate: rsc.updatePod,
		OnDelete: rsc.deletePod,
	})
	return rsc, nil
}

// Controllers returns the controller's one loop, for the stepper.
func (rsc *ReplicaSetController) Controllers() []*controllers.Controller {
	return []*controllers.Controller{rsc.controller}
}

// Run runs the controller until ctx ends (live mode).
func (rsc *ReplicaSetController) Run(ctx context.Context) { rsc.controller.Run(ctx) }

// Expectations exposes the in-flight creates and deletes (for tests and
// the trace).
func (rsc *ReplicaSetController) Expectations() *controllers.ControllerExpectations {
	return rsc.expectations
}

// enqueue queues rs because of an event on the object m of kind.
func (rsc *ReplicaSetController) enqueue(rs *appsv1.ReplicaSet, event, kind string, m *metav1.ObjectMeta) {
	rsc.controller.Enqueue(cache.Key(&rs.ObjectMeta), controllers.CauseOf(event, kind, m))
}

// resolveControllerRef returns the ReplicaSet ref points at, if it is the
// same object (uid) the cache has.
func (rsc *ReplicaSetController) resolveControllerRef(ns string, ref *metav1.OwnerReference) *appsv1.ReplicaSet {
	if ref == nil || ref.Kind != rsc.kind.gvk.Kind {
		return nil
	}
	rs, ok := rsc.rsInformer.Get(ns, ref.Name)
	if !ok || rs.UID != ref.UID {
		return nil
	}
	return rs
}

// replicaSetsForPod returns the ReplicaSets whose selector matches an
// orphan pod, so that one of them adopts it.
func (rsc *ReplicaSetController) replicaSetsForPod(p *corev1.Pod) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rsc.rsInformer.ByIndex(cache.NamespaceIndex, p.Namespace) {
		sel, err := api.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		out = append(out, rs)
	}
	return out
}

func (rsc *ReplicaSetController) addPod(p *corev1.Pod) {
	if p.DeletionTimestamp != nil {
		// A pod already being deleted (seen after a relist) counts as a
		// deletion, so expectations do not wait for it.
		rsc.podGone(p, "ADDED")
		return
	}
	if ref := api.GetControllerOf(&p.ObjectMeta); ref != nil {
		rs := rsc.resolveControllerRef(p.Namespace, ref)
		if rs == nil {
			return
		}
		key := cache.Key(&rs.ObjectMeta)
		rsc.expectations.CreationObserved(key)
		if rsc.logger.Enabled(context.Background(), slog.LevelDebug) {
			if add, del := rsc.expectations.Pending(key); add == 0 && del <= 0 {
				// The moment the next sync may create again: the end of
				// the informer's lag behind the creates.
				rsc.logger.Debug("Controller expectations fulfilled", "replicaSet", key)
			}
		}
		rsc.enqueue(rs, "ADDED", "Pod", &p.ObjectMeta)
		return
	}
	for _, rs := range rsc.replicaSetsForPod(p) {
		rsc.enqueue(rs, "ADDED", "Pod", &p.ObjectMeta)
	}
}

func (rsc *ReplicaSetController) updatePod(old, cur *corev1.Pod) {
	if old.ResourceVersion == cur.ResourceVersion {
		return
	}
	labelChanged := !reflect.DeepEqual(old.Labels, cur.Labels)
	if cur.DeletionTimestamp != nil {
		// Graceful deletion: the pod is on its way out, which is what a
		// delete expectation waits for.
		rsc.podGone(cur, "MODIFIED")
		if labelChanged {
			rsc.podGone(old, "MODIFIED")
		}
		return
	}
	curRef, oldRef := api.GetControllerOf(&cur.ObjectMeta), api.GetControllerOf(&old.ObjectMeta)
	refChanged := !reflect.DeepEqual(curRef, oldRef)
	if refChanged && oldRef != nil {
		if rs := rsc.resolveControllerRef(old.Namespace, oldRef); rs != nil {
			rsc.enqueue(rs, "MODIFIED", "Pod", &cur.ObjectMeta)
		}
	}
	if curRef != nil {
		rs := rsc.resolveControllerRef(cur.Namespace, curRef)
		if rs == nil {
			return
		}
		rsc.enqueue(rs, "MODIFIED", "Pod", &cur.ObjectMeta)
		// A pod that just turned ready becomes available minReadySeconds
		// later: look again then, since no event will say so.
		if !api.IsPodReady(old) && api.IsPodReady(cur) && rs.Spec.MinReadySeconds > 0 {
			rsc.controller.EnqueueAfter(cache.Key(&rs.ObjectMeta), time.Duration(rs.Spec.MinReadySeconds)*time.Second+time.Second,
				controllers.Cause{Event: "timer", Kind: "Pod", Namespace: cur.Namespace, Name: cur.Name})
		}
		return
	}
	if labelChanged || refChanged {
		for _, rs := range rsc.replicaSetsForPod(cur) {
			rsc.enqueue(rs, "MODIFIED", "Pod", &cur.ObjectMeta)
		}
	}
}

func (rsc *ReplicaSetController) deletePod(p *corev1.Pod) { rsc.podGone(p, "DELETED") }

// podGone notes that a pod is deleted (or being deleted) for its
// controller's expectations and wakes the controller.
func (rsc *ReplicaSetController) podGone(p *corev1.Pod, event string) {
	rs := rsc.resolveControllerRef(p.Namespace, api.GetControllerOf(&p.ObjectMeta))
	if rs == nil {
		return
	}
	key := cache.Key(&rs.ObjectMeta)
	rsc.expectations.DeletionObserved(key, cache.Key(&p.ObjectMeta))
	rsc.controller.Enqueue(key, controllers.CauseOf(event, "Pod", &p.ObjectMeta))
}

// Reconcile syncs one ReplicaSet (syncReplicaSet): claim its pods, create
// or delete pods unless earlier writes are still unseen, and report the
// counts in its status.
func (rsc *ReplicaSetController) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	if rsc.logger.Enabled(ctx, slog.LevelDebug) {
		// As the real controller logs at V(4): with "Too few replicas",
		// each slow-start batch and "Controller expectations fulfilled",
		// the timeline of a scale-up (what waits between two bursts).
		start := rsc.clock.Now()
		defer func() {
			rsc.logger.Debug("Finished syncing", "kind", rsc.kind.gvk.Kind, "key", key, "duration", rsc.clock.Now().Sub(start))
		}()
	}
	ns, name := cache.SplitKey(key)
	cached, ok := rsc.rsInformer.Get(ns, name)
	if !ok {
		rsc.expectations.DeleteExpectations(key)
		return controllers.Result{}, nil
	}
	rs := cached.DeepCopy()
	selector, err := api.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		// An invalid selector cannot become valid without an update, which
		// queues the ReplicaSet again.
		rsc.logger.Error("invalid selector", "replicaset", key, "err", err)
		return controllers.Result{}, nil
	}
	rsNeedsSync := rsc.expectations.SatisfiedExpectations(key)

	candidates := rsc.podInformer.ByIndex(controllerUIDIndex, string(rs.UID))
	candidates = append(candidates, rsc.podInformer.ByIndex(controllerUIDIndex, "orphan/"+rs.Namespace)...)
	pods, err := rsc.claimPods(ctx, rs, selector, FilterActivePods(candidates))
	if err != nil {
		return controllers.Result{}, err
	}

	var manageErr error
	if rsNeedsSync && rs.DeletionTimestamp == nil {
		manageErr = rsc.manageReplicas(ctx, pods, rs)
	}
	now := rsc.clock.Now()
	status := CalculateStatus(rs, pods, manageErr, now)
	updated, err := rsc.updateStatus(ctx, rs, status)
	if err != nil {
		return controllers.Result{}, err
	}
	if manageErr != nil {
		return controllers.Result{}, manageErr
	}
	var res controllers.Result
	if d, ok := controllers.NextAvailable(pods, updated.Spec.MinReadySeconds, now); ok {
		// No event will say that a ready pod has become available.
		res.RequeueAfter = d
	}
	if at, pending := rsc.expectations.Expiry(key); pending {
		// The informer has not shown our writes yet; its events will
		// queue us, but if one was lost the expectations expire then.
		if d := at.Sub(now) + time.Second; res.RequeueAfter == 0 || d < res.RequeueAfter {
			res.RequeueAfter = d
		}
	}
	return res, nil
}

func replicas(rs *appsv1.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

// manageReplicas creates or deletes pods to reach spec.replicas.
func (rsc *ReplicaSetController) manageReplicas(ctx context.Context, pods []*corev1.Pod, rs *appsv1.ReplicaSet) error {
	key := cache.Key(&rs.ObjectMeta)
	diff := len(pods) - int(replicas(rs))
	switch {
	case diff < 0:
		diff = min(-diff, rsc.burst)
		// Expect before writing: the informer may show the new pods
		// before Create returns.
		rsc.expectations.ExpectCreations(key, diff)
		ref := api.NewControllerRef(&rs.ObjectMeta, rsc.kind.gvk)
		var batchDone func(size int)
		if rsc.logger.Enabled(ctx, slog.LevelDebug) {
			rsc.logger.Debug("Too few replicas", "replicaSet", key, "need", replicas(rs), "creating", diff)
			batchDone = func(size int) { rsc.logger.Debug("Slow-start batch done", "replicaSet", key, "size", size) }
		}
		successes, err := slowStartBatchParallel(diff, 1, rsc.parallel, func() error { return rsc.createPod(ctx, rs, ref) }, batchDone)
		// Neither failed creations nor the ones never attempted will ever
		// be seen by the informer.
		for range diff - successes {
			rsc.expectations.CreationObserved(key)
		}
		return err
	case diff > 0:
		diff = min(diff, rsc.burst)
		victims := PodsToDelete(pods, diff)
		keys := make([]string, len(victims))
		for i, p := range victims {
			keys[i] = cache.Key(&p.ObjectMeta)
		}
		rsc.expectations.ExpectDeletions(key, keys)
		var firstErr error
		for _, p := range victims {
			if err := rsc.deletePodOf(ctx, rs, p); err != nil {
				// The informer will not show a deletion that did not happen.
				rsc.expectations.DeletionObserved(key, cache.Key(&p.ObjectMeta))
				if !api.IsNotFound(err) && firstErr == nil {
					firstErr = err
				}
			}
		}
		return firstErr
	}
	return nil
}

// createPod creates one pod from the template and records the event
// (RealPodControl.CreatePods).
func (rsc *ReplicaSetController) createPod(ctx context.Context, rs *appsv1.ReplicaSet, ref *metav1.OwnerReference) error {
	pod, err := podFromTemplate(&rs.Spec.Template, &rs.ObjectMeta, ref)
	if err == nil {
		pod, err = rsc.client.Pods().Create(ctx, pod)
	}
	if err != nil {
		rsc.event(ctx, rs, "Warning", FailedCreatePodReason, "Error creating: %v", err)
		return err
	}
	rsc.event(ctx, rs, "Normal", SuccessfulCreatePodReason, "Created pod: %v", pod.Name)
	return nil
}

// deletePodOf deletes one pod of rs and records the event
// (RealPodControl.DeletePod); a pod already gone is no event.
func (rsc *ReplicaSetController) deletePodOf(ctx context.Context, rs *appsv1.ReplicaSet, p *corev1.Pod) error {
	err := rsc.client.Pods().Delete(ctx, p.Namespace, p.Name, nil)
	switch {
	case api.IsNotFound(err):
		return err
	case err != nil:
		rsc.event(ctx, rs, "Warning", FailedDeletePodReason, "Error deleting: %v", err)
		return fmt.Errorf("unable to delete pods: %w", err)
	}
	rsc.event(ctx, rs, "Normal", SuccessfulDeletePodReason, "Deleted pod: %v", p.Name)
	return nil
}

// event records an event about rs; events are best effort, as in
// Kubernetes, so a failure is only logged.
func (rsc *ReplicaSetController) event(ctx context.Context, rs *appsv1.ReplicaSet, typ, reason, format string, args ...any) {
	if err := rsc.recorder.Eventf(ctx, record.Ref(rs, rsc.kind.gvk), typ, reason, format, args...); err != nil {
		rsc.logger.Warn("cannot record event", "reason", reason, "err", err)
	}
}

// claimPods adopts orphans the selector matches and releases owned pods it
// no longer matches, returning the pods rs owns and that match
// (PodControllerRefManager.ClaimPods). An orphan that cannot be adopted
// is skipped: the ReplicaSet still counts the pods it has.
func (rsc *ReplicaSetController) claimPods(ctx context.Context, rs *appsv1.ReplicaSet, selector labels.Selector, pods []*corev1.Pod) ([]*corev1.Pod, error) {
	return controllers.ClaimObjects(ctx, controllers.ClaimConfig[*corev1.Pod]{
		Owner: &rs.ObjectMeta, OwnerKind: rsc.kind.gvk, Dependents: rsc.client.Pods(), DependentKind: "Pod",
		Match: func(p *corev1.Pod) bool { return selector.Matches(labels.Set(p.Labels)) },
		GetFresh: func(ctx context.Context) (*metav1.ObjectMeta, error) {
			fresh, err := rsc.rsClient.Get(ctx, rs.Namespace, rs.Name)
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		},
	}, pods)
}

// CalculateStatus counts the pods of rs (calculateStatus): all, those
// carrying every template label, ready and available at now. A failed
// create or delete sets the ReplicaFailure condition; success clears it.
func CalculateStatus(rs *appsv1.ReplicaSet, pods []*corev1.Pod, manageErr error, now time.Time) appsv1.ReplicaSetStatus {
	status := *rs.Status.DeepCopy()
	template := labels.SelectorFromSet(labels.Set(rs.Spec.Template.Labels))
	var fully, ready, available int32
	for _, p := range pods {
		if template.Matches(labels.Set(p.Labels)) {
			fully++
		}
		if api.IsPodReady(p) {
			ready++
			if api.IsPodAvailable(p, rs.Spec.MinReadySeconds, now) {
				available++
			}
		}
	}
	status.Replicas = int32(len(pods))
	status.FullyLabeledReplicas = fully
	status.ReadyReplicas = ready
	status.AvailableReplicas = available

	idx := -1
	for i, c := range status.Conditions {
		if c.Type == appsv1.ReplicaSetReplicaFailure {
			idx = i
		}
	}
	switch {
	case manageErr != nil && idx < 0:
		reason := ""
		if diff := len(pods) - int(replicas(rs)); diff < 0 {
			reason = FailedCreatePodReason
		} else if diff > 0 {
			reason = FailedDeletePodReason
		}
		status.Conditions = append(status.Conditions, appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(now.UTC()), Reason: reason, Message: manageErr.Error(),
		})
	case manageErr == nil && idx >= 0:
		status.Conditions = append(status.Conditions[:idx:idx], status.Conditions[idx+1:]...)
		if len(status.Conditions) == 0 {
			status.Conditions = nil
		}
	}
	return status
}

// updateStatus writes status through /status when it differs from what
// the ReplicaSet shows or the generation is unobserved.
func (rsc *ReplicaSetController) updateStatus(ctx context.Context, rs *appsv1.ReplicaSet, status appsv1.ReplicaSetStatus) (*appsv1.ReplicaSet, error) {
	if rs.Status.Replicas == status.Replicas &&
		rs.Status.FullyLabeledReplicas == status.FullyLabeledReplicas &&
		rs.Status.ReadyReplicas == status.ReadyReplicas &&
		rs.Status.AvailableReplicas == status.AvailableReplicas &&
		rs.Generation == rs.Status.ObservedGeneration &&
		equality.Semantic.DeepEqual(rs.Status.Conditions, status.Conditions) {
		return rs, nil
	}
	status.ObservedGeneration = rs.Generation
	rs.Status = status
	return rsc.rsClient.UpdateStatus(ctx, rs)
}
