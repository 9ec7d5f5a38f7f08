package statefulset

import (
	"bytes"
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
const ControllerName = "statefulset"

// Component is the event source of the controller, as in Kubernetes.
const Component = "statefulset-controller"

// The reasons of the events the controller records.
const (
	SuccessfulCreateReason = "SuccessfulCreate"
	FailedCreateReason     = "FailedCreate"
	SuccessfulDeleteReason = "SuccessfulDelete"
	FailedDeleteReason     = "FailedDelete"
)

// GroupVersionKind is apps/v1 StatefulSet.
var GroupVersionKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}

// Config builds a StatefulSetController.
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

// StatefulSetController keeps the ordinal pods of every StatefulSet, and
// its history as ControllerRevisions.
type StatefulSetController struct {
	*controllers.ObjectController[*appsv1.StatefulSet]
	pods      *controllers.Watched[*corev1.Pod]
	revisions *controllers.Watched[*appsv1.ControllerRevision]
}

// New builds the controller and its informers (not yet synced).
func New(cfg Config) (*StatefulSetController, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("statefulset: Client and Clock are required")
	}
	ssc := &StatefulSetController{pods: controllers.Owns(cfg.Client.Pods(), "Pod"),
		revisions: controllers.Owns(cfg.Client.ControllerRevisions(), "ControllerRevision")}
	c, err := controllers.NewObjectController(controllers.ObjectConfig[*appsv1.StatefulSet]{
		Name: ControllerName, Component: Component, Client: cfg.Client, Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode,
		Primary: cfg.Client.StatefulSets(), GVK: GroupVersionKind, Owns: []controllers.Watch{ssc.pods, ssc.revisions},
		Reconcile: ssc.sync, Namespace: cfg.Namespace, Workers: cfg.Workers, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	ssc.ObjectController = c
	// An orphan pod named like one of a set's ordinals wakes the set, which
	// adopts it (the ControllerRefManager's claim).
	ssc.pods.Informer().AddHandler(cache.Handler[*corev1.Pod]{OnAdd: ssc.orphanAdded})
	return ssc, nil
}

func (ssc *StatefulSetController) orphanAdded(p *corev1.Pod) {
	if api.GetControllerOf(&p.ObjectMeta) != nil {
		return
	}
	for _, set := range ssc.Informer().ByIndex(cache.NamespaceIndex, p.Namespace) {
		if _, ok := Ordinal(set, p.Name); ok {
			ssc.Enqueue(cache.Key(&set.ObjectMeta), controllers.CauseOf("ADDED", "Pod", &p.ObjectMeta))
		}
	}
}

// sync is one reconcile of a StatefulSet.
func (ssc *StatefulSetController) sync(ctx context.Context, set *appsv1.StatefulSet) (controllers.Result, error) {
	if set.DeletionTimestamp != nil {
		return controllers.Result{}, nil
	}
	sel, err := api.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return controllers.Result{}, err
	}
	pods, err := ssc.claimPods(ctx, set, sel)
	if err != nil {
		return controllers.Result{}, err
	}
	revisions, err := ssc.claimRevisions(ctx, set, sel)
	if err != nil {
		return controllers.Result{}, err
	}
	controllers.SortControllerRevisions(revisions)
	current, update, collisionCount, err := ssc.getRevisions(ctx, set, revisions)
	if err != nil {
		return controllers.Result{}, err
	}
	currentRevision, updateRevision := current.Name, update.Name
	currentSet, err := ApplyRevision(set, current)
	if err != nil {
		return controllers.Result{}, err
	}
	templates := map[string]*corev1.PodTemplateSpec{currentRevision: &currentSet.Spec.Template, updateRevision: &set.Spec.Template}
	actions := Plan(set, pods, currentRevision, updateRevision)
	created := map[string]*corev1.Pod{}
	deleted := map[string]bool{}
	var firstErr error
	for _, a := range actions {
		switch a.Type {
		case Create:
			p, err := ssc.createPod(ctx, set, templates, a)
			if err != nil {
				firstErr = err
				break
			}
			created[p.Name] = p
		case Delete:
			if err := ssc.giveClaimsToPod(ctx, set, podNamed(pods, a.Pod), a.Ordinal); err != nil {
				firstErr = err
				break
			}
			if err := ssc.deletePod(ctx, set, a.Pod); err != nil {
				firstErr = err
				break
			}
			deleted[a.Pod] = true
		}
		if firstErr != nil {
			break
		}
	}
	var all []*corev1.Pod
	for _, p := range pods {
		if deleted[p.Name] {
			p = p.DeepCopy()
			now := metav1.NewTime(ssc.Clock().Now())
			p.DeletionTimestamp = &now
		}
		all = append(all, p)
	}
	for _, p := range created {
		all = append(all, p)
	}
	now := ssc.Clock().Now()
	status := ComputeStatus(set, all, currentRevision, updateRevision, now)
	status.CollisionCount = &collisionCount
	if _, err := ssc.UpdateStatus(ctx, set, func(s *appsv1.StatefulSet) {
		conditions := s.Status.Conditions
		s.Status = status
		s.Status.Conditions = conditions
	}); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr == nil {
		firstErr = ssc.truncateHistory(ctx, set, all, revisions, currentRevision, updateRevision)
	}
	if firstErr != nil {
		return controllers.Result{}, firstErr
	}
	if d, ok := controllers.NextAvailable(all, set.Spec.MinReadySeconds, now); ok {
		return controllers.Result{RequeueAfter: d}, nil
	}
	return controllers.Result{}, nil
}

// claimPods returns the set's pods, adopting orphans that match its
// selector and are named like its ordinals, and releasing pods that no
// longer match (ControllerRefManager.ClaimPods with isMemberOf).
func (ssc *StatefulSetController) claimPods(ctx context.Context, set *appsv1.StatefulSet, sel labels.Selector) ([]*corev1.Pod, error) {
	candidates := ssc.pods.OwnedBy(set)
	for _, p := range ssc.pods.Informer().ByIndex(cache.NamespaceIndex, set.Namespace) {
		if api.GetControllerOf(&p.ObjectMeta) == nil {
			candidates = append(candidates, p)
		}
	}
	return controllers.ClaimObjects(ctx, controllers.ClaimConfig[*corev1.Pod]{
		Owner: &set.ObjectMeta, OwnerKind: GroupVersionKind, Dependents: ssc.pods.Resource(), DependentKind: "Pod",
		Match: func(p *corev1.Pod) bool {
			_, member := Ordinal(set, p.Name)
			return member && sel.Matches(labels.Set(p.Labels))
		},
		GetFresh: func(ctx context.Context) (*metav1.ObjectMeta, error) {
			fresh, err := ssc.Client().StatefulSets().Get(ctx, set.Namespace, set.Name)
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		},
	}, candidates)
}

// claimRevisions returns the set's ControllerRevisions, adopting the
// orphans of its namespace that its selector matches and releasing the
// ones it no longer matches (ClaimControllerRevisions): a set deleted
// with --cascade=orphan and created again takes its history back.
func (ssc *StatefulSetController) claimRevisions(ctx context.Context, set *appsv1.StatefulSet, sel labels.Selector) ([]*appsv1.ControllerRevision, error) {
	candidates := ssc.revisions.OwnedBy(set)
	for _, r := range ssc.revisions.Informer().ByIndex(cache.NamespaceIndex, set.Namespace) {
		if api.GetControllerOf(&r.ObjectMeta) == nil {
			candidates = append(candidates, r)
		}
	}
	return controllers.ClaimRevisions(ctx, ssc.revisions.Resource(), &set.ObjectMeta, GroupVersionKind,
		func(r *appsv1.ControllerRevision) bool { return sel.Matches(labels.Set(r.Labels)) },
		func(ctx context.Context) (*metav1.ObjectMeta, error) {
			fresh, err := ssc.Client().StatefulSets().Get(ctx, set.Namespace, set.Name)
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		}, candidates)
}

// createPod creates the pod of a Create action from the template of its
// revision, recording the event Kubernetes records.
func (ssc *StatefulSetController) createPod(ctx context.Context, set *appsv1.StatefulSet, templates map[string]*corev1.PodTemplateSpec, a Action) (*corev1.Pod, error) {
	template := templates[a.Revision]
	if template == nil {
		return nil, fmt.Errorf("statefulset %s/%s: no template for revision %s", set.Namespace, set.Name, a.Revision)
	}
	pod := NewPod(set, template, a.Ordinal, a.Revision, api.NewControllerRef(&set.ObjectMeta, GroupVersionKind))
	// The claims come first: the pod mounts them.
	if err := ssc.createClaims(ctx, set, pod, a.Ordinal); err != nil {
		return nil, err
	}
	created, err := ssc.pods.Resource().Create(ctx, pod)
	if err != nil {
		if !api.IsAlreadyExists(err) {
			ssc.Eventf(ctx, set, corev1.EventTypeWarning, FailedCreateReason, "create Pod %s in StatefulSet %s failed error: %v", pod.Name, set.Name, err)
		}
		return nil, err
	}
	ssc.Eventf(ctx, set, corev1.EventTypeNormal, SuccessfulCreateReason, "create Pod %s in StatefulSet %s successful", pod.Name, set.Name)
	return created, nil
}

// getRevisions is getStatefulSetRevisions: the update revision is the
// newest revision if it holds the set's template, else an older equal
// revision renumbered as the newest (a rollback), else a new revision;
// the current revision is the one status names, or the update revision
// for a new set. It returns the collision count the names were made with.
func (ssc *StatefulSetController) getRevisions(ctx context.Context, set *appsv1.StatefulSet, revisions []*appsv1.ControllerRevision) (current, update *appsv1.ControllerRevision, collisionCount int32, err error) {
	if set.Status.CollisionCount != nil {
		collisionCount = *set.Status.CollisionCount
	}
	update, err = NewRevision(set, NextRevision(revisions), &collisionCount)
	if err != nil {
		return nil, nil, 0, err
	}
	equal := controllers.FindEqualRevisions(revisions, update, ControllerRevisionHashLabel)
	switch {
	case len(equal) > 0 && controllers.EqualRevision(revisions[len(revisions)-1], equal[len(equal)-1], ControllerRevisionHashLabel):
		update = revisions[len(revisions)-1]
	case len(equal) > 0:
		update, err = controllers.RenumberRevision(ctx, ssc.revisions.Resource(), equal[len(equal)-1], update.Revision)
	default:
		update, err = ssc.createRevision(ctx, set, update, &collisionCount)
	}
	if err != nil {
		return nil, nil, 0, err
	}
	for _, r := range revisions {
		if r.Name == set.Status.CurrentRevision {
			current = r
			break
		}
	}
	if current == nil {
		current = update
	}
	return current, update, collisionCount, nil
}

// createRevision is CreateControllerRevision: on a name taken by other
// data it counts a collision and tries the next name.
func (ssc *StatefulSetController) createRevision(ctx context.Context, set *appsv1.StatefulSet, cr *appsv1.ControllerRevision, collisionCount *int32) (*appsv1.ControllerRevision, error) {
	res := ssc.revisions.Resource()
	for {
		hash := controllers.HashControllerRevision(cr.Data.Raw, collisionCount)
		clone := cr.DeepCopy()
		clone.Name = controllers.ControllerRevisionName(set.Name, hash)
		clone.Labels[ControllerRevisionHashLabel] = hash
		created, err := res.Create(ctx, clone)
		if !api.IsAlreadyExists(err) {
			return created, err
		}
		exists, err := res.Get(ctx, clone.Namespace, clone.Name)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(exists.Data.Raw, clone.Data.Raw) {
			return exists, nil
		}
		*collisionCount++
	}
}

// truncateHistory deletes the revisions RevisionsToPrune picks.
func (ssc *StatefulSetController) truncateHistory(ctx context.Context, set *appsv1.StatefulSet, pods []*corev1.Pod, revisions []*appsv1.ControllerRevision, current, update string) error {
	return controllers.DeleteRevisions(ctx, ssc.revisions.Resource(), RevisionsToPrune(set, pods, revisions, current, update))
}

func (ssc *StatefulSetController) deletePod(ctx context.Context, set *appsv1.StatefulSet, name string) error {
	err := ssc.pods.Resource().Delete(ctx, set.Namespace, name, nil)
	if err != nil && !api.IsNotFound(err) {
		ssc.Eventf(ctx, set, corev1.EventTypeWarning, FailedDeleteReason, "delete Pod %s in StatefulSet %s failed error: %v", name, set.Name, err)
		return err
	}
	ssc.Eventf(ctx, set, corev1.EventTypeNormal, SuccessfulDeleteReason, "delete Pod %s in StatefulSet %s successful", name, set.Name)
	return nil
}

// ComputeStatus counts the set's pods (computeReplicaStatus) and, when a
// rolling update has reached every pod, makes the update revision current
// (completeRollingUpdate). Conditions are left as they were.
func ComputeStatus(set *appsv1.StatefulSet, pods []*corev1.Pod, currentRevision, updateRevision string, now time.Time) appsv1.StatefulSetStatus {
	st := appsv1.StatefulSetStatus{ObservedGeneration: set.Generation, CurrentRevision: currentRevision,
		UpdateRevision: updateRevision, CollisionCount: set.Status.CollisionCount}
	for _, p := range pods {
		if _, ok := Ordinal(set, p.Name); !ok {
			continue
		}
		st.Replicas++
		if p.Status.Phase == corev1.PodRunning && api.IsPodReady(p) {
			st.ReadyReplicas++
			if api.IsPodAvailable(p, set.Spec.MinReadySeconds, now) {
				st.AvailableReplicas++
			}
		}
		if p.DeletionTimestamp != nil {
			continue
		}
		if PodRevision(p) == currentRevision {
			st.CurrentReplicas++
		}
		if PodRevision(p) == updateRevision {
			st.UpdatedReplicas++
		}
	}
	if isRollingUpdate(set) && st.UpdatedReplicas == st.Replicas && st.ReadyReplicas == st.Replicas {
		st.CurrentReplicas = st.UpdatedReplicas
		st.CurrentRevision = updateRevision
	}
	return st
}

// String renders an action for logs.
func (a Action) String() string {
	return fmt.Sprintf("%s %s (%s)", a.Type, a.Pod, a.Why)
}
