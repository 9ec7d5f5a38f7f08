package statefulset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/controllers/replicaset"
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
var GroupVersionKind = api.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}

// Config builds a StatefulSetController.
type Config struct {
	// Client is the controller's API client (required).
	Client *client.Client
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

// StatefulSetController keeps the ordinal pods of every StatefulSet.
type StatefulSetController struct {
	*controllers.ObjectController[*api.StatefulSet]
	pods *controllers.Watched[*api.Pod]

	// history remembers, per set uid, the template of each revision still
	// in use (current and update): kubesim's stand-in for the
	// ControllerRevisions Kubernetes stores, so that a pod below the
	// partition is recreated from the old template. It lives in memory;
	// after a restart the old template is recovered from a surviving pod.
	mu      sync.Mutex
	history map[string]map[string]*api.PodTemplateSpec
}

// New builds the controller and its informers (not yet synced).
func New(cfg Config) (*StatefulSetController, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("statefulset: Client and Clock are required")
	}
	ssc := &StatefulSetController{pods: controllers.Owns(cfg.Client.Pods(), "Pod"), history: map[string]map[string]*api.PodTemplateSpec{}}
	c, err := controllers.NewObjectController(controllers.ObjectConfig[*api.StatefulSet]{
		Name: ControllerName, Component: Component, Client: cfg.Client, Clock: cfg.Clock, Mode: cfg.Mode,
		Primary: cfg.Client.StatefulSets(), GVK: GroupVersionKind, Owns: []controllers.Watch{ssc.pods},
		Reconcile: ssc.sync, Namespace: cfg.Namespace, Workers: cfg.Workers, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	ssc.ObjectController = c
	// An orphan pod named like one of a set's ordinals wakes the set, which
	// adopts it (the ControllerRefManager's claim).
	ssc.pods.Informer().AddHandler(cache.Handler[*api.Pod]{OnAdd: ssc.orphanAdded})
	ssc.Informer().AddHandler(cache.Handler[*api.StatefulSet]{OnDelete: func(set *api.StatefulSet) {
		ssc.mu.Lock()
		delete(ssc.history, set.UID)
		ssc.mu.Unlock()
	}})
	return ssc, nil
}

func (ssc *StatefulSetController) orphanAdded(p *api.Pod) {
	if api.GetControllerOf(&p.ObjectMeta) != nil {
		return
	}
	for _, set := range ssc.Informer().ByIndex(cache.NamespaceIndex, p.Namespace) {
		if _, ok := Ordinal(set, p.Name); ok {
			ssc.Enqueue(cache.Key(&set.ObjectMeta), controllers.Cause{Event: "ADDED", Kind: "Pod",
				Namespace: p.Namespace, Name: p.Name, ResourceVersion: p.ResourceVersion})
		}
	}
}

// sync is one reconcile of a StatefulSet.
func (ssc *StatefulSetController) sync(ctx context.Context, set *api.StatefulSet) (controllers.Result, error) {
	if set.DeletionTimestamp != nil {
		return controllers.Result{}, nil
	}
	sel, err := replicaset.SelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return controllers.Result{}, err
	}
	pods, err := ssc.claimPods(ctx, set, sel)
	if err != nil {
		return controllers.Result{}, err
	}
	updateRevision := Revision(set)
	currentRevision := set.Status.CurrentRevision
	if currentRevision == "" {
		currentRevision = updateRevision
	}
	ssc.remember(set, currentRevision, updateRevision)
	actions := Plan(set, pods, currentRevision, updateRevision)
	created := map[string]*api.Pod{}
	deleted := map[string]bool{}
	var firstErr error
	for _, a := range actions {
		switch a.Type {
		case Create:
			p, err := ssc.createPod(ctx, set, pods, a)
			if err != nil {
				firstErr = err
				break
			}
			created[p.Name] = p
		case Delete:
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
	var all []*api.Pod
	for _, p := range pods {
		if deleted[p.Name] {
			p = p.DeepCopy()
			now := api.NewTime(ssc.Clock().Now())
			p.DeletionTimestamp = &now
		}
		all = append(all, p)
	}
	for _, p := range created {
		all = append(all, p)
	}
	now := ssc.Clock().Now()
	status := ComputeStatus(set, all, currentRevision, updateRevision, now)
	if _, err := ssc.UpdateStatus(ctx, set, func(s *api.StatefulSet) {
		conditions := s.Status.Conditions
		s.Status = status
		s.Status.Conditions = conditions
	}); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		return controllers.Result{}, firstErr
	}
	if d, ok := replicaset.NextAvailable(all, set.Spec.MinReadySeconds, now); ok {
		return controllers.Result{RequeueAfter: d}, nil
	}
	return controllers.Result{}, nil
}

// claimPods returns the set's pods, adopting orphans that match its
// selector and are named like its ordinals, and releasing pods that no
// longer match (ControllerRefManager.ClaimPods).
func (ssc *StatefulSetController) claimPods(ctx context.Context, set *api.StatefulSet, sel labels.Selector) ([]*api.Pod, error) {
	var out []*api.Pod
	for _, p := range ssc.pods.OwnedBy(set) {
		if sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
			continue
		}
		if p.DeletionTimestamp != nil {
			continue
		}
		// Release: drop our reference, keep the pod.
		if err := ssc.patchOwners(ctx, p, removeRef(p.OwnerReferences, set.UID)); err != nil && !api.IsNotFound(err) {
			return nil, err
		}
	}
	for _, p := range ssc.pods.Informer().ByIndex(cache.NamespaceIndex, set.Namespace) {
		if api.GetControllerOf(&p.ObjectMeta) != nil || p.DeletionTimestamp != nil {
			continue
		}
		if _, ok := Ordinal(set, p.Name); !ok || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		refs := append(append([]api.OwnerReference(nil), p.OwnerReferences...), *api.NewControllerRef(&set.ObjectMeta, GroupVersionKind))
		if err := ssc.patchOwners(ctx, p, refs); err != nil {
			if api.IsNotFound(err) {
				continue
			}
			return nil, err
		}
		adopted := p.DeepCopy()
		adopted.OwnerReferences = refs
		out = append(out, adopted)
	}
	return out, nil
}

func removeRef(refs []api.OwnerReference, uid string) []api.OwnerReference {
	out := []api.OwnerReference{}
	for _, r := range refs {
		if r.UID != uid {
			out = append(out, r)
		}
	}
	return out
}

// patchOwners sets a pod's ownerReferences, guarded by its uid and
// resourceVersion so that a stale cache never adopts the wrong pod.
func (ssc *StatefulSetController) patchOwners(ctx context.Context, p *api.Pod, refs []api.OwnerReference) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"ownerReferences": refs, "uid": p.UID, "resourceVersion": p.ResourceVersion}})
	if err != nil {
		return err
	}
	_, err = ssc.pods.Resource().Patch(ctx, p.Namespace, p.Name, client.MergePatch, patch)
	return err
}

// createPod creates the pod of a Create action, recording the event
// Kubernetes records.
func (ssc *StatefulSetController) createPod(ctx context.Context, set *api.StatefulSet, pods []*api.Pod, a Action) (*api.Pod, error) {
	template := &set.Spec.Template
	if a.Revision != Revision(set) {
		// The old revision: from the history, else from a surviving pod.
		template = ssc.recall(set, a.Revision)
		for _, p := range pods {
			if template != nil {
				break
			}
			if PodRevision(p) == a.Revision {
				template = TemplateFromPod(p)
				break
			}
		}
		if template == nil {
			template, a.Revision = &set.Spec.Template, Revision(set)
		}
	}
	pod := NewPod(set, template, a.Ordinal, a.Revision, api.NewControllerRef(&set.ObjectMeta, GroupVersionKind))
	created, err := ssc.pods.Resource().Create(ctx, pod)
	if err != nil {
		if !api.IsAlreadyExists(err) {
			ssc.Eventf(ctx, set, api.EventTypeWarning, FailedCreateReason, "create Pod %s in StatefulSet %s failed error: %v", pod.Name, set.Name, err)
		}
		return nil, err
	}
	ssc.Eventf(ctx, set, api.EventTypeNormal, SuccessfulCreateReason, "create Pod %s in StatefulSet %s successful", pod.Name, set.Name)
	return created, nil
}

// remember records the set's template under its revision and forgets
// revisions no longer current or updating.
func (ssc *StatefulSetController) remember(set *api.StatefulSet, currentRevision, updateRevision string) {
	ssc.mu.Lock()
	defer ssc.mu.Unlock()
	h := ssc.history[set.UID]
	if h == nil {
		h = map[string]*api.PodTemplateSpec{}
		ssc.history[set.UID] = h
	}
	h[updateRevision] = set.Spec.Template.DeepCopy()
	for rev := range h {
		if rev != currentRevision && rev != updateRevision {
			delete(h, rev)
		}
	}
}

func (ssc *StatefulSetController) recall(set *api.StatefulSet, revision string) *api.PodTemplateSpec {
	ssc.mu.Lock()
	defer ssc.mu.Unlock()
	if t := ssc.history[set.UID][revision]; t != nil {
		return t.DeepCopy()
	}
	return nil
}

func (ssc *StatefulSetController) deletePod(ctx context.Context, set *api.StatefulSet, name string) error {
	err := ssc.pods.Resource().Delete(ctx, set.Namespace, name, nil)
	if err != nil && !api.IsNotFound(err) {
		ssc.Eventf(ctx, set, api.EventTypeWarning, FailedDeleteReason, "delete Pod %s in StatefulSet %s failed error: %v", name, set.Name, err)
		return err
	}
	ssc.Eventf(ctx, set, api.EventTypeNormal, SuccessfulDeleteReason, "delete Pod %s in StatefulSet %s successful", name, set.Name)
	return nil
}

// ComputeStatus counts the set's pods (computeReplicaStatus) and, when a
// rolling update has reached every pod, makes the update revision current
// (completeRollingUpdate). Conditions are left as they were.
func ComputeStatus(set *api.StatefulSet, pods []*api.Pod, currentRevision, updateRevision string, now time.Time) api.StatefulSetStatus {
	st := api.StatefulSetStatus{ObservedGeneration: set.Generation, CurrentRevision: currentRevision,
		UpdateRevision: updateRevision, CollisionCount: set.Status.CollisionCount}
	for _, p := range pods {
		if _, ok := Ordinal(set, p.Name); !ok {
			continue
		}
		st.Replicas++
		if p.Status.Phase == api.PodRunning && replicaset.IsPodReady(p) {
			st.ReadyReplicas++
			if replicaset.IsPodAvailable(p, set.Spec.MinReadySeconds, now) {
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
