package deployment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

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
const ControllerName = "deployment"

// Component is the event source of the controller, as in Kubernetes.
const Component = "deployment-controller"

// GroupVersionKind is apps/v1 Deployment, the kind of the references the
// controller puts on its ReplicaSets.
var GroupVersionKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

// controllerUIDIndex indexes ReplicaSets by their controller's uid, and
// orphans by "orphan/<namespace>".
const controllerUIDIndex = "controllerUIDOrOrphan"

// Config builds a DeploymentController.
type Config struct {
	// Client is the controller's API client (required).
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (kube-controller-manager's SharedInformerFactory; nil:
	// private ones).
	Informers *cache.Factory
	// Clock drives conditions and the progress deadline (required).
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// Recorder records events; by default one signed deployment-controller.
	Recorder *record.Recorder
	// Namespace limits the controller to one namespace ("" for all).
	Namespace string
	// Workers is the number of concurrent syncs in live mode (1).
	Workers int
	// Logger (discarded when nil).
	Logger *slog.Logger
}

// DeploymentController rolls Deployments out through ReplicaSets.
type DeploymentController struct {
	client   *client.Client
	clock    clock.Clock
	recorder *record.Recorder
	logger   *slog.Logger

	dInformer   *cache.Informer[*appsv1.Deployment]
	rsInformer  *cache.Informer[*appsv1.ReplicaSet]
	podInformer *cache.Informer[*corev1.Pod]
	controller  *controllers.Controller
}

// New builds the controller and its informers (not yet synced).
func New(cfg Config) (*DeploymentController, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("deployment: Client and Clock are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Recorder == nil {
		cfg.Recorder = record.New(record.Config{Client: cfg.Client, Component: Component, Clock: cfg.Clock, Mode: cfg.Mode})
	}
	dc := &DeploymentController{client: cfg.Client, clock: cfg.Clock, recorder: cfg.Recorder,
		logger: cfg.Logger.With("controller", ControllerName)}
	c, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: dc,
		Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode, Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	dc.controller = c
	// The Deployments are the keys; their ReplicaSets carry the rollout,
	// and a deleted pod lets a Recreate rollout go on.
	dc.dInformer = controllers.FilteredInformerFor(c, cfg.Client.Deployments(), cfg.Namespace, client.ListOptions{})
	dc.rsInformer = controllers.FilteredInformerFor(c, cfg.Client.ReplicaSets(), cfg.Namespace, client.ListOptions{})
	dc.podInformer = controllers.FilteredInformerFor(c, cfg.Client.Pods(), cfg.Namespace, client.ListOptions{})
	dc.rsInformer.AddIndexer(controllerUIDIndex, func(rs *appsv1.ReplicaSet) []string {
		if ref := api.GetControllerOf(&rs.ObjectMeta); ref != nil {
			return []string{string(ref.UID)}
		}
		return []string{"orphan/" + rs.Namespace}
	})
	dc.dInformer.AddHandler(controllers.EnqueueObject[*appsv1.Deployment](c, "Deployment"))
	dc.rsInformer.AddHandler(cache.Handler[*appsv1.ReplicaSet]{
		OnAdd:    func(rs *appsv1.ReplicaSet) { dc.replicaSetChanged(nil, rs, "ADDED") },
		OnUpdate: func(old, rs *appsv1.ReplicaSet) { dc.replicaSetChanged(old, rs, "MODIFIED") },
		OnDelete: func(rs *appsv1.ReplicaSet) { dc.replicaSetChanged(nil, rs, "DELETED") },
	})
	dc.podInformer.AddHandler(cache.Handler[*corev1.Pod]{OnDelete: dc.deletePod})
	return dc, nil
}

// Controllers returns the controller's one loop, for the stepper.
func (dc *DeploymentController) Controllers() []*controllers.Controller {
	return []*controllers.Controller{dc.controller}
}

// Run runs the controller until ctx ends (live mode).
func (dc *DeploymentController) Run(ctx context.Context) { dc.controller.Run(ctx) }

// deploymentFor returns the Deployment ref points at, if the cache has that
// very object.
func (dc *DeploymentController) deploymentFor(ns string, ref *metav1.OwnerReference) *appsv1.Deployment {
	if ref == nil || ref.Kind != GroupVersionKind.Kind {
		return nil
	}
	d, ok := dc.dInformer.Get(ns, ref.Name)
	if !ok || d.UID != ref.UID {
		return nil
	}
	return d
}

// replicaSetChanged wakes the Deployment that controls rs (and the one that
// did, if that changed), or, for an orphan, every Deployment that selects
// it, so one adopts it.
func (dc *DeploymentController) replicaSetChanged(old, rs *appsv1.ReplicaSet, event string) {
	cause := controllers.CauseOf(event, "ReplicaSet", &rs.ObjectMeta)
	ref := api.GetControllerOf(&rs.ObjectMeta)
	if old != nil {
		if oldRef := api.GetControllerOf(&old.ObjectMeta); oldRef != nil && (ref == nil || oldRef.UID != ref.UID) {
			if d := dc.deploymentFor(old.Namespace, oldRef); d != nil {
				dc.controller.Enqueue(cache.Key(&d.ObjectMeta), cause)
			}
		}
	}
	if ref != nil {
		if d := dc.deploymentFor(rs.Namespace, ref); d != nil {
			dc.controller.Enqueue(cache.Key(&d.ObjectMeta), cause)
		}
		return
	}
	if event == "DELETED" {
		return
	}
	for _, d := range dc.dInformer.ByIndex(cache.NamespaceIndex, rs.Namespace) {
		sel, err := api.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(rs.Labels)) {
			continue
		}
		dc.controller.Enqueue(cache.Key(&d.ObjectMeta), cause)
	}
}

// deletePod wakes a Recreate Deployment whose last pod is gone: it waits
// for that before starting new pods.
func (dc *DeploymentController) deletePod(p *corev1.Pod) {
	rsRef := api.GetControllerOf(&p.ObjectMeta)
	if rsRef == nil || rsRef.Kind != "ReplicaSet" {
		return
	}
	rs, ok := dc.rsInformer.Get(p.Namespace, rsRef.Name)
	if !ok || rs.UID != rsRef.UID {
		return
	}
	d := dc.deploymentFor(rs.Namespace, api.GetControllerOf(&rs.ObjectMeta))
	if d == nil || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		return
	}
	dc.controller.Enqueue(cache.Key(&d.ObjectMeta), controllers.CauseOf("DELETED", "Pod", &p.ObjectMeta))
}

// Reconcile syncs one Deployment (syncDeployment).
func (dc *DeploymentController) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, name := cache.SplitKey(key)
	cached, ok := dc.dInformer.Get(ns, name)
	if !ok {
		return controllers.Result{}, nil
	}
	d := cached.DeepCopy()

	if d.Spec.Selector != nil && len(d.Spec.Selector.MatchLabels) == 0 && len(d.Spec.Selector.MatchExpressions) == 0 {
		dc.event(ctx, d, "Warning", "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			return controllers.Result{}, dc.writeStatus(ctx, d)
		}
		return controllers.Result{}, nil
	}

	rsList, err := dc.getReplicaSetsForDeployment(ctx, d)
	if err != nil {
		return controllers.Result{}, err
	}
	podMap, err := dc.getPodMapForDeployment(d, rsList)
	if err != nil {
		return controllers.Result{}, err
	}
	if d.DeletionTimestamp != nil {
		return controllers.Result{}, dc.syncStatusOnly(ctx, d, rsList)
	}
	if err := dc.checkPausedConditions(ctx, d); err != nil {
		return controllers.Result{}, err
	}
	if d.Spec.Paused {
		return controllers.Result{}, dc.sync(ctx, d, rsList)
	}
	scaling, err := dc.isScalingEvent(ctx, d, rsList)
	if err != nil {
		return controllers.Result{}, err
	}
	if scaling {
		return controllers.Result{}, dc.sync(ctx, d, rsList)
	}
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return dc.rolloutRecreate(ctx, d, rsList, podMap)
	case appsv1.RollingUpdateDeploymentStrategyType:
		return dc.rolloutRolling(ctx, d, rsList)
	}
	return controllers.Result{}, fmt.Errorf("unexpected deployment strategy type: %s", d.Spec.Strategy.Type)
}

// getReplicaSetsForDeployment claims the ReplicaSets of d: its own that
// its selector matches, plus matching orphans it adopts; its own that no
// longer match are released. The result holds copies, safe to change.
func (dc *DeploymentController) getReplicaSetsForDeployment(ctx context.Context, d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	selector, err := api.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s has invalid label selector: %w", d.Namespace, d.Name, err)
	}
	candidates := dc.rsInformer.ByIndex(controllerUIDIndex, string(d.UID))
	candidates = append(candidates, dc.rsInformer.ByIndex(controllerUIDIndex, "orphan/"+d.Namespace)...)
	claimed, err := controllers.ClaimObjects(ctx, controllers.ClaimConfig[*appsv1.ReplicaSet]{
		Owner: &d.ObjectMeta, OwnerKind: GroupVersionKind, Dependents: dc.client.ReplicaSets(), DependentKind: "ReplicaSet",
		Match: func(rs *appsv1.ReplicaSet) bool { return selector.Matches(labels.Set(rs.Labels)) },
		GetFresh: func(ctx context.Context) (*metav1.ObjectMeta, error) {
			fresh, err := dc.client.Deployments().Get(ctx, d.Namespace, d.Name)
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		},
		// Rolling out from ReplicaSets the Deployment may not own would
		// act on the wrong state: stop and retry instead.
		AbortIfCannotAdopt: true,
	}, candidates)
	if claimed == nil {
		return nil, err
	}
	out := make([]*appsv1.ReplicaSet, len(claimed))
	for i, rs := range claimed {
		out[i] = rs.DeepCopy()
	}
	return out, err
}

// getPodMapForDeployment groups the pods d selects by the uid of the
// ReplicaSet (of rsList) controlling them.
func (dc *DeploymentController) getPodMapForDeployment(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (map[types.UID][]*corev1.Pod, error) {
	selector, err := api.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	podMap := make(map[types.UID][]*corev1.Pod, len(rsList))
	for _, rs := range rsList {
		podMap[rs.UID] = nil
	}
	for _, p := range dc.podInformer.ByIndex(cache.NamespaceIndex, d.Namespace) {
		if !selector.Matches(labels.Set(p.Labels)) {
			continue
		}
		ref := api.GetControllerOf(&p.ObjectMeta)
		if ref == nil {
			continue
		}
		if _, ok := podMap[ref.UID]; ok {
			podMap[ref.UID] = append(podMap[ref.UID], p)
		}
	}
	return podMap, nil
}

// event records an event about d (best effort).
func (dc *DeploymentController) event(ctx context.Context, d *appsv1.Deployment, typ, reason, format string, args ...any) {
	if err := dc.recorder.Eventf(ctx, record.Ref(d, GroupVersionKind), typ, reason, format, args...); err != nil {
		dc.logger.Warn("cannot record event", "reason", reason, "err", err)
	}
}

// writeStatus writes d's status through /status and takes the new
// resourceVersion, so a later write in the same sync does not conflict.
func (dc *DeploymentController) writeStatus(ctx context.Context, d *appsv1.Deployment) error {
	out, err := dc.client.Deployments().UpdateStatus(ctx, d)
	if err != nil {
		return err
	}
	d.ObjectMeta = out.ObjectMeta
	d.Status = out.Status
	return nil
}

// setDeploymentRevision writes the revision annotation on d when it
// differs, through /status as Kubernetes' controller does: a status write
// keeps the metadata it sends, and does not move the generation (an
// update of the Deployment itself would, annotations being copied to the
// ReplicaSets).
func (dc *DeploymentController) setDeploymentRevision(ctx context.Context, d *appsv1.Deployment, revision string) error {
	if d.Annotations[api.RevisionAnnotation] == revision {
		return nil
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[api.RevisionAnnotation] = revision
	return dc.writeStatus(ctx, d)
}

func statusEqual(a, b *appsv1.DeploymentStatus) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
