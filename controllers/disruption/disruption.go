package disruption

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
)

// ControllerName is the name --controllers uses.
const ControllerName = "disruption"

// DeletionTimeout is how long an eviction's entry in
// status.disruptedPods keeps the pod out of the healthy count when the
// pod is not deleted (the real controller's two minutes).
const DeletionTimeout = 2 * time.Minute

// Config builds a Controller: the client, informers, clock and mode every
// controller of the controller manager is given.
type Config = controllers.BaseConfig

// Controller keeps every budget's status.
type Controller struct {
	client      *client.Client
	clock       clock.Clock
	pdbs        *cache.Informer[*policyv1.PodDisruptionBudget]
	pods        *cache.Informer[*corev1.Pod]
	replicaSets *cache.Informer[*appsv1.ReplicaSet]
	deployments *cache.Informer[*appsv1.Deployment]
	statefulSet *cache.Informer[*appsv1.StatefulSet]
	controller  *controllers.Controller
}

// New checks cfg and builds the controller.
func New(cfg Config) (*Controller, error) {
	c := &Controller{client: cfg.Client, clock: cfg.Clock}
	ctrl, err := cfg.NewController(ControllerName, c)
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	// The budgets are the keys; the pods they select, and the scale of
	// those pods' controllers, make their status.
	c.pdbs = controllers.InformerFor(ctrl, cfg.Client.PodDisruptionBudgets())
	c.pods = controllers.InformerFor(ctrl, cfg.Client.Pods())
	c.replicaSets = controllers.InformerFor(ctrl, cfg.Client.ReplicaSets())
	c.deployments = controllers.InformerFor(ctrl, cfg.Client.Deployments())
	c.statefulSet = controllers.InformerFor(ctrl, cfg.Client.StatefulSets())
	c.pdbs.AddHandler(controllers.EnqueueObject[*policyv1.PodDisruptionBudget](ctrl, "PodDisruptionBudget"))
	c.pods.AddHandler(cache.Handler[*corev1.Pod]{
		OnAdd:    func(p *corev1.Pod) { c.enqueuePod("ADDED", p) },
		OnUpdate: func(_, p *corev1.Pod) { c.enqueuePod("MODIFIED", p) },
		OnDelete: func(p *corev1.Pod) { c.enqueuePod("DELETED", p) },
	})
	// A scale change changes expectedPods of the budgets over its pods.
	c.replicaSets.AddHandler(scaleHandler[*appsv1.ReplicaSet](c, "ReplicaSet"))
	c.deployments.AddHandler(scaleHandler[*appsv1.Deployment](c, "Deployment"))
	c.statefulSet.AddHandler(scaleHandler[*appsv1.StatefulSet](c, "StatefulSet"))
	return c, nil
}

func scaleHandler[T api.Object](c *Controller, kind string) cache.Handler[T] {
	return cache.Handler[T]{OnUpdate: func(_, o T) { c.enqueueNamespace(kind, api.Meta(o)) }}
}

// enqueueNamespace queues every budget of the object's namespace.
func (c *Controller) enqueueNamespace(kind string, m *metav1.ObjectMeta) {
	for _, b := range c.pdbs.List() {
		if b.Namespace == m.Namespace {
			c.controller.Enqueue(cache.Key(&b.ObjectMeta), controllers.CauseOf("MODIFIED", kind, m))
		}
	}
}

// enqueuePod queues the budgets that select the pod.
func (c *Controller) enqueuePod(event string, p *corev1.Pod) {
	for _, b := range c.pdbs.List() {
		if b.Namespace == p.Namespace && selects(b, p) {
			c.controller.Enqueue(cache.Key(&b.ObjectMeta), controllers.CauseOf(event, "Pod", &p.ObjectMeta))
		}
	}
}

// selects: a nil selector matches no pod, an empty one every pod of the
// namespace (policy/v1).
func selects(b *policyv1.PodDisruptionBudget, p *corev1.Pod) bool {
	if b.Spec.Selector == nil {
		return false
	}
	sel, err := api.LabelSelectorAsSelector(b.Spec.Selector)
	return err == nil && sel.Matches(labels.Set(p.Labels))
}

// Controllers implements the cluster's Component.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.controller}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.controller.Run(ctx) }

// Reconcile recomputes one budget's status.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, name := cache.SplitKey(key)
	pdb, ok := c.pdbs.Get(ns, name)
	if !ok {
		return controllers.Result{}, nil
	}
	var pods []*corev1.Pod
	for _, p := range c.pods.List() {
		if p.Namespace == ns && selects(pdb, p) {
			pods = append(pods, p)
		}
	}
	status, recheck := Status(pdb, pods, c.scaleOf, c.clock.Now())
	res := controllers.Result{RequeueAfter: recheck}
	if equality.Semantic.DeepEqual(status, pdb.Status) {
		return res, nil
	}
	upd := pdb.DeepCopy()
	upd.Status = status
	_, err := c.client.PodDisruptionBudgets().UpdateStatus(ctx, upd)
	return res, err
}

// scaleOf finds the scale of a pod's controller: a ReplicaSet (or the
// Deployment owning it) or a StatefulSet. found is false for any other.
func (c *Controller) scaleOf(ns string, ref *metav1.OwnerReference) (uid string, scale int32, found bool) {
	switch ref.Kind {
	case "ReplicaSet":
		rs, ok := c.replicaSets.Get(ns, ref.Name)
		if !ok || rs.UID != ref.UID {
			return "", 0, false
		}
		if owner := api.GetControllerOf(&rs.ObjectMeta); owner != nil && owner.Kind == "Deployment" {
			d, ok := c.deployments.Get(ns, owner.Name)
			if !ok || d.UID != owner.UID {
				return "", 0, false
			}
			return string(d.UID), replicas(d.Spec.Replicas), true
		}
		return string(rs.UID), replicas(rs.Spec.Replicas), true
	case "StatefulSet":
		ss, ok := c.statefulSet.Get(ns, ref.Name)
		if !ok || ss.UID != ref.UID {
			return "", 0, false
		}
		return string(ss.UID), replicas(ss.Spec.Replicas), true
	}
	return "", 0, false
}

func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// ScaleFunc finds the scale of the controller ref names in namespace ns,
// with the uid of the object whose scale it is (a Deployment's for its
// ReplicaSets), so that pods of one controller count it once.
type ScaleFunc func(ns string, ref *metav1.OwnerReference) (uid string, scale int32, found bool)

// Status is the budget's status computed from the pods its selector
// matches (updatePdbStatus after getExpectedPodCount and
// countHealthyPods); recheck, when not zero, is when an entry of
// disruptedPods expires.
func Status(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, scaleOf ScaleFunc, now time.Time) (policyv1.PodDisruptionBudgetStatus, time.Duration) {
	disrupted, recheck := disruptedPods(pdb, pods, now)
	expected, desired, err := expectedAndDesired(pdb, pods, scaleOf)
	st := pdb.Status.DeepCopy()
	st.ObservedGeneration = pdb.Generation
	st.DisruptedPods = disrupted
	if err != nil {
		// failSafe: no disruption is allowed while the budget cannot be
		// computed, and the condition says why.
		st.DisruptionsAllowed = 0
		setCondition(st, metav1.ConditionFalse, policyv1.SyncFailedReason, err.Error(), now)
		return *st, recheck
	}
	healthy := int32(0)
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if _, gone := disrupted[p.Name]; gone {
			continue
		}
		if api.IsPodReady(p) {
			healthy++
		}
	}
	allowed := healthy - desired
	if expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods, st.DisruptionsAllowed = healthy, desired, expected, allowed
	if allowed > 0 {
		setCondition(st, metav1.ConditionTrue, policyv1.SufficientPodsReason, "", now)
	} else {
		setCondition(st, metav1.ConditionFalse, policyv1.InsufficientPodsReason, "", now)
	}
	return *st, recheck
}

// expectedAndDesired is getExpectedPodCount: with an integer minAvailable
// the pods present are expected; with a percentage, or maxUnavailable,
// the controllers' scale.
func expectedAndDesired(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, scaleOf ScaleFunc) (expected, desired int32, err error) {
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		expected, err = expectedScale(pdb, pods, scaleOf)
		if err != nil {
			return 0, 0, err
		}
		maxUnavailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expected), true)
		if err != nil {
			return 0, 0, err
		}
		desired = max(expected-int32(maxUnavailable), 0)
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int:
		desired, expected = pdb.Spec.MinAvailable.IntVal, int32(len(pods))
	case pdb.Spec.MinAvailable != nil:
		expected, err = expectedScale(pdb, pods, scaleOf)
		if err != nil {
			return 0, 0, err
		}
		minAvailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expected), true)
		if err != nil {
			return 0, 0, err
		}
		desired = int32(minAvailable)
	}
	return expected, desired, nil
}

// expectedScale is getExpectedScale: the sum of the scales of the pods'
// controllers, each counted once; every pod must have one.
func expectedScale(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, scaleOf ScaleFunc) (int32, error) {
	seen := map[string]bool{}
	var sum int32
	for _, p := range pods {
		ref := api.GetControllerOf(&p.ObjectMeta)
		if ref == nil {
			return 0, fmt.Errorf("found no controller ref for pod %q", p.Name)
		}
		uid, scale, found := scaleOf(p.Namespace, ref)
		if !found {
			return 0, fmt.Errorf("found no controllers for pod %q", p.Name)
		}
		if !seen[uid] {
			seen[uid] = true
			sum += scale
		}
	}
	return sum, nil
}

// disruptedPods is buildDisruptedPodMap: the entries of pods still there,
// not yet being deleted and evicted less than DeletionTimeout ago; recheck
// is when the first kept entry expires.
func disruptedPods(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, now time.Time) (map[string]metav1.Time, time.Duration) {
	var out map[string]metav1.Time
	var recheck time.Duration
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		at, ok := pdb.Status.DisruptedPods[p.Name]
		if !ok {
			continue
		}
		expires := at.Add(DeletionTimeout)
		if !expires.After(now) {
			continue
		}
		if out == nil {
			out = map[string]metav1.Time{}
		}
		out[p.Name] = at
		if d := expires.Sub(now); recheck == 0 || d < recheck {
			recheck = d
		}
	}
	return out, recheck
}

// setCondition sets DisruptionAllowed, moving lastTransitionTime only when
// the status changes (apimeta.SetStatusCondition).
func setCondition(st *policyv1.PodDisruptionBudgetStatus, status metav1.ConditionStatus, reason, message string, now time.Time) {
	c := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: status, Reason: reason, Message: message,
		ObservedGeneration: st.ObservedGeneration, LastTransitionTime: metav1.NewTime(now)}
	for i := range st.Conditions {
		if cur := &st.Conditions[i]; cur.Type == c.Type {
			if cur.Status == c.Status {
				c.LastTransitionTime = cur.LastTransitionTime
			}
			*cur = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}
