package daemonset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the name --controllers uses.
const ControllerName = "daemonset"

// Component is the event source of the controller, as in Kubernetes.
const Component = "daemonset-controller"

// The reasons of the events the controller records (pod_control's and
// the DaemonSet controller's own).
const (
	SuccessfulCreateReason = "SuccessfulCreate"
	FailedCreateReason     = "FailedCreate"
	SuccessfulDeleteReason = "SuccessfulDelete"
	FailedDaemonPodReason  = "FailedDaemonPod"
)

// GroupVersionKind is apps/v1 DaemonSet.
var GroupVersionKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}

// Config builds a DaemonSetsController.
type Config struct {
	// Client is the controller's API client (required).
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (nil: private ones).
	Informers *cache.Factory
	// Clock is the injected clock (required).
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// Namespace limits the controller to one namespace ("" for all).
	Namespace string
	// Workers is the number of concurrent syncs in live mode (1).
	Workers int
	// Logger (discarded when nil).
	Logger *slog.Logger
}

// DaemonSetsController keeps one pod of every DaemonSet on each node that
// suits it, and the set's history as ControllerRevisions.
type DaemonSetsController struct {
	*controllers.ObjectController[*appsv1.DaemonSet]
	pods      *controllers.Watched[*corev1.Pod]
	revisions *controllers.Watched[*appsv1.ControllerRevision]
	nodes     *controllers.Watched[*corev1.Node]
	// expectations hold a set back while its own creates and deletes are
	// not yet in the pod cache, so that it never creates a pod twice.
	expectations *controllers.ControllerExpectations
}

// New builds the controller and its informers (not yet synced).
func New(cfg Config) (*DaemonSetsController, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("daemonset: Client and Clock are required")
	}
	dsc := &DaemonSetsController{
		pods:      controllers.Owns(cfg.Client.Pods(), "Pod"),
		revisions: controllers.Owns(cfg.Client.ControllerRevisions(), "ControllerRevision"),
		// Node events are mapped by nodeChanged below, which compares the
		// old node with the new; the MapFunc itself queues nothing.
		nodes:        controllers.Watches(cfg.Client.Nodes(), "Node", func(*corev1.Node) []string { return nil }),
		expectations: controllers.NewControllerExpectations(cfg.Clock, 0),
	}
	c, err := controllers.NewObjectController(controllers.ObjectConfig[*appsv1.DaemonSet]{
		Name: ControllerName, Component: Component, Client: cfg.Client, Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode,
		Primary: cfg.Client.DaemonSets(), GVK: GroupVersionKind,
		Owns:      []controllers.Watch{dsc.pods, dsc.revisions, dsc.nodes},
		Reconcile: dsc.sync, Namespace: cfg.Namespace, Workers: cfg.Workers, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	dsc.ObjectController = c
	dsc.pods.Informer().AddHandler(cache.Handler[*corev1.Pod]{
		OnAdd: func(p *corev1.Pod) {
			if key, ok := dsc.ownerKey(p); ok {
				dsc.expectations.CreationObserved(key)
			}
		},
		// A graceful delete shows first as a deletionTimestamp (updatePod).
		OnUpdate: func(_, p *corev1.Pod) {
			if key, ok := dsc.ownerKey(p); ok && p.DeletionTimestamp != nil {
				dsc.expectations.DeletionObserved(key, cache.Key(&p.ObjectMeta))
			}
		},
		OnDelete: func(p *corev1.Pod) {
			if key, ok := dsc.ownerKey(p); ok {
				dsc.expectations.DeletionObserved(key, cache.Key(&p.ObjectMeta))
			}
		},
	})
	dsc.nodes.Informer().AddHandler(cache.Handler[*corev1.Node]{
		OnAdd:    func(n *corev1.Node) { dsc.nodeChanged("ADDED", nil, n) },
		OnUpdate: func(old, n *corev1.Node) { dsc.nodeChanged("MODIFIED", old, n) },
		OnDelete: func(n *corev1.Node) { dsc.nodeChanged("DELETED", n, nil) },
	})
	return dsc, nil
}

// ownerKey is the key of the DaemonSet that controls p.
func (dsc *DaemonSetsController) ownerKey(p *corev1.Pod) (string, bool) {
	ref := api.GetControllerOf(&p.ObjectMeta)
	if ref == nil || ref.Kind != GroupVersionKind.Kind || ref.APIVersion != "apps/v1" {
		return "", false
	}
	return p.Namespace + "/" + ref.Name, true
}

// nodeChanged queues the sets a node event concerns (addNode, updateNode,
// deleteNode): on a new node the sets that should run there, on a changed
// node those whose decision for it changed, on a deleted node those that
// ran there. A heartbeat that changes nothing that matters queues nothing.
func (dsc *DaemonSetsController) nodeChanged(event string, old, cur *corev1.Node) {
	n := cur
	if n == nil {
		n = old
	}
	cause := controllers.CauseOf(event, "Node", &n.ObjectMeta)
	for _, ds := range dsc.Informer().List() {
		var wasRun, wasContinue, isRun, isContinue bool
		if old != nil {
			wasRun, wasContinue = NodeShouldRunDaemonPod(old, ds)
		}
		if cur != nil {
			isRun, isContinue = NodeShouldRunDaemonPod(cur, ds)
		}
		if wasRun != isRun || wasContinue != isContinue {
			dsc.Enqueue(cache.Key(&ds.ObjectMeta), cause)
		}
	}
}

// sync is one syncDaemonSet: the history, then manage (a pod on each node
// that should run one, none where it may not), then — when manage had
// nothing to do, as Kubernetes' expectations would have it — one step of
// the rolling update; then old revisions are pruned and the status
// written.
func (dsc *DaemonSetsController) sync(ctx context.Context, ds *appsv1.DaemonSet) (controllers.Result, error) {
	key := cache.Key(&ds.ObjectMeta)
	if ds.DeletionTimestamp != nil {
		dsc.expectations.DeleteExpectations(key)
		return controllers.Result{}, nil
	}
	sel, err := api.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return controllers.Result{}, err
	}
	pods, err := dsc.claimPods(ctx, ds, sel)
	if err != nil {
		return controllers.Result{}, err
	}
	cur, old, err := dsc.constructHistory(ctx, ds, sel)
	if err != nil {
		return controllers.Result{}, err
	}
	hash := cur.Labels[appsv1.ControllerRevisionHashLabelKey]
	nodes := dsc.nodes.Informer().List()
	now := dsc.Clock().Now()

	var actions []Action
	all := pods
	if dsc.expectations.SatisfiedExpectations(key) {
		actions = Manage(ds, nodes, pods, hash, now)
		if len(actions) == 0 && ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
			actions = RollingUpdate(ds, nodes, pods, hash, now)
		}
		// On a failed write the status counts the cached pods.
		if applied, aerr := dsc.apply(ctx, ds, key, pods, actions, hash); aerr != nil {
			err = aerr
		} else {
			all = applied
		}
		if err == nil && len(actions) == 0 {
			err = controllers.DeleteRevisions(ctx, dsc.revisions.Resource(), HistoryToPrune(ds, old, pods))
		}
	}
	status := ComputeStatus(ds, nodes, all, hash, now)
	if _, serr := dsc.UpdateStatus(ctx, ds, func(d *appsv1.DaemonSet) { d.Status = status }); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		return controllers.Result{}, err
	}
	var res controllers.Result
	if d, ok := controllers.NextAvailable(all, ds.Spec.MinReadySeconds, now); ok {
		// No event will say that a ready pod has become available.
		res.RequeueAfter = d
	}
	if at, pending := dsc.expectations.Expiry(key); pending {
		// Our writes are not in the cache yet; their events will queue
		// us, but if one was lost the expectations expire then.
		if d := at.Sub(now) + time.Second; res.RequeueAfter == 0 || d < res.RequeueAfter {
			res.RequeueAfter = d
		}
	}
	return res, nil
}

// apply carries out the actions (syncNodes), and returns the set's pods
// as they now are, for the status.
func (dsc *DaemonSetsController) apply(ctx context.Context, ds *appsv1.DaemonSet, key string, pods []*corev1.Pod, actions []Action, hash string) ([]*corev1.Pod, error) {
	byName := map[string]*corev1.Pod{}
	for _, p := range pods {
		byName[p.Name] = p
	}
	creates, deletes := 0, []string(nil)
	for _, a := range actions {
		if a.Type == Create {
			creates++
		} else {
			deletes = append(deletes, ds.Namespace+"/"+a.Pod)
		}
	}
	if len(actions) > 0 {
		dsc.expectations.SetExpectations(key, creates, deletes)
	}
	template := PodTemplate(ds, hash)
	var created []*corev1.Pod
	for i, a := range actions {
		switch a.Type {
		case Create:
			pod := NewPod(ds, template, a.Node)
			pod.OwnerReferences = []metav1.OwnerReference{*api.NewControllerRef(&ds.ObjectMeta, GroupVersionKind)}
			p, err := dsc.pods.Resource().Create(ctx, pod)
			if err != nil {
				dsc.Eventf(ctx, ds, corev1.EventTypeWarning, FailedCreateReason, "Error creating: %v", err)
				dsc.skipped(key, ds.Namespace, actions[i:])
				return nil, err
			}
			dsc.Eventf(ctx, ds, corev1.EventTypeNormal, SuccessfulCreateReason, "Created pod: %v", p.Name)
			created = append(created, p)
		case Delete:
			p := byName[a.Pod]
			if a.Why == "failed" && p != nil {
				dsc.Eventf(ctx, ds, corev1.EventTypeWarning, FailedDaemonPodReason, "Found failed daemon pod %s/%s on node %s, will try to kill it",
					p.Namespace, p.Name, TargetNodeName(p))
			}
			if err := dsc.pods.Resource().Delete(ctx, ds.Namespace, a.Pod, nil); err != nil {
				if api.IsNotFound(err) {
					dsc.expectations.DeletionObserved(key, ds.Namespace+"/"+a.Pod)
					continue
				}
				dsc.skipped(key, ds.Namespace, actions[i:])
				return nil, err
			}
			dsc.Eventf(ctx, ds, corev1.EventTypeNormal, SuccessfulDeleteReason, "Deleted pod: %v", a.Pod)
			if p != nil {
				p = p.DeepCopy()
				now := metav1.NewTime(dsc.Clock().Now())
				p.DeletionTimestamp = &now
				byName[a.Pod] = p
			}
		}
	}
	var all []*corev1.Pod
	for _, p := range pods {
		all = append(all, byName[p.Name])
	}
	return append(all, created...), nil
}

// skipped lowers the expectations by the actions a failed write left
// undone (the failed one included): no event will come for them.
func (dsc *DaemonSetsController) skipped(key, namespace string, actions []Action) {
	for _, a := range actions {
		if a.Type == Create {
			dsc.expectations.CreationObserved(key)
		} else {
			dsc.expectations.DeletionObserved(key, namespace+"/"+a.Pod)
		}
	}
}

// claimPods returns the set's pods, adopting orphans its selector matches
// and releasing pods it no longer matches (ClaimPods).
func (dsc *DaemonSetsController) claimPods(ctx context.Context, ds *appsv1.DaemonSet, sel labels.Selector) ([]*corev1.Pod, error) {
	candidates := dsc.pods.OwnedBy(ds)
	for _, p := range dsc.pods.Informer().ByIndex(cache.NamespaceIndex, ds.Namespace) {
		if api.GetControllerOf(&p.ObjectMeta) == nil {
			candidates = append(candidates, p)
		}
	}
	return controllers.ClaimObjects(ctx, controllers.ClaimConfig[*corev1.Pod]{
		Owner: &ds.ObjectMeta, OwnerKind: GroupVersionKind, Dependents: dsc.pods.Resource(), DependentKind: "Pod",
		Match:    func(p *corev1.Pod) bool { return sel.Matches(labels.Set(p.Labels)) },
		GetFresh: dsc.getFresh(ds),
	}, candidates)
}

func (dsc *DaemonSetsController) getFresh(ds *appsv1.DaemonSet) func(context.Context) (*metav1.ObjectMeta, error) {
	return func(ctx context.Context) (*metav1.ObjectMeta, error) {
		fresh, err := dsc.Client().DaemonSets().Get(ctx, ds.Namespace, ds.Name)
		if err != nil {
			return nil, err
		}
		return &fresh.ObjectMeta, nil
	}
}

// constructHistory returns the revision of the set's current template
// (created, or renumbered as the newest when an old template comes back
// — a rollback) and the old ones.
func (dsc *DaemonSetsController) constructHistory(ctx context.Context, ds *appsv1.DaemonSet, sel labels.Selector) (*appsv1.ControllerRevision, []*appsv1.ControllerRevision, error) {
	candidates := dsc.revisions.OwnedBy(ds)
	for _, r := range dsc.revisions.Informer().ByIndex(cache.NamespaceIndex, ds.Namespace) {
		if api.GetControllerOf(&r.ObjectMeta) == nil {
			candidates = append(candidates, r)
		}
	}
	res := dsc.revisions.Resource()
	revisions, err := controllers.ClaimRevisions(ctx, res, &ds.ObjectMeta, GroupVersionKind,
		func(r *appsv1.ControllerRevision) bool { return sel.Matches(labels.Set(r.Labels)) }, dsc.getFresh(ds), candidates)
	if err != nil {
		return nil, nil, err
	}
	cur, duplicates, old, next := HistoryPlan(ds, revisions)
	if err := controllers.DeleteRevisions(ctx, res, duplicates); err != nil {
		return nil, nil, err
	}
	if cur == nil {
		cur, err = dsc.snapshot(ctx, ds, next)
		return cur, old, err
	}
	cur, err = controllers.RenumberRevision(ctx, res, cur, max(cur.Revision, next))
	return cur, old, err
}

// snapshot creates the revision of the set's template. A name taken by
// other data is a hash collision: the set's collisionCount goes up, and
// the next sync tries the next name.
func (dsc *DaemonSetsController) snapshot(ctx context.Context, ds *appsv1.DaemonSet, revision int64) (*appsv1.ControllerRevision, error) {
	cr, err := NewRevision(ds, revision)
	if err != nil {
		return nil, err
	}
	res := dsc.revisions.Resource()
	created, err := res.Create(ctx, cr)
	if !api.IsAlreadyExists(err) {
		return created, err
	}
	exists, gerr := res.Get(ctx, cr.Namespace, cr.Name)
	if gerr != nil {
		return nil, gerr
	}
	if Match(ds, exists) {
		return exists, nil
	}
	if _, uerr := dsc.UpdateStatus(ctx, ds, func(d *appsv1.DaemonSet) {
		n := int32(0)
		if d.Status.CollisionCount != nil {
			n = *d.Status.CollisionCount
		}
		n++
		d.Status.CollisionCount = &n
	}); uerr != nil {
		return nil, uerr
	}
	return nil, fmt.Errorf("daemonset %s/%s: revision %s holds another template (hash collision)", ds.Namespace, ds.Name, cr.Name)
}
