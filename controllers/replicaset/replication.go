package replicaset

import (
	"context"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
)

// The ReplicationController manager is the ReplicaSet controller run over
// ReplicationControllers, as in kube-controller-manager
// (pkg/controller/replication): the RCs are shown to the controller as
// ReplicaSets (their selector a matchLabels selector) through an adapter
// of the informer and of the client, so there is one code path for both
// kinds. What differs is only the kind the controller references are
// made of, the controller's name and its events' source.

// ReplicationControllerName is the name --controllers uses for it.
const ReplicationControllerName = "replicationcontroller"

// ReplicationComponent is its events' source, as in Kubernetes.
const ReplicationComponent = "replication-controller"

// ReplicationControllerKind is core/v1 ReplicationController, the kind of
// the controller references of its pods.
var ReplicationControllerKind = schema.GroupVersionKind{Version: "v1", Kind: "ReplicationController"}

// NewReplicationManager builds the controller of ReplicationControllers
// (NewReplicationManager): the ReplicaSet controller with the adapters.
func NewReplicationManager(cfg Config) (*ReplicaSetController, error) {
	return newController(cfg, replicationControllers)
}

var replicationControllers = kindSpec{
	name: ReplicationControllerName, component: ReplicationComponent, gvk: ReplicationControllerKind,
	informer: func(cfg Config) replicaSetLister {
		return informerAdapter{cache.For(cfg.Informers, cfg.Client.ReplicationControllers(), cfg.Namespace, client.ListOptions{}, cfg.Logger)}
	},
	client: func(cfg Config) replicaSetClient { return clientAdapter{cfg.Client.ReplicationControllers()} },
}

// ReplicaSetFromRC shows rc as a ReplicaSet (the conversion the real
// adapter makes, Convert_v1_ReplicationController_To_apps_ReplicaSet):
// the same metadata, replicas and status, the selector as matchLabels,
// and the template (required on an RC) by value. The result shares
// nothing with rc.
func ReplicaSetFromRC(rc *corev1.ReplicationController) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: *rc.ObjectMeta.DeepCopy(),
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        copyInt32(rc.Spec.Replicas),
			MinReadySeconds: rc.Spec.MinReadySeconds,
		},
		Status: appsv1.ReplicaSetStatus{
			Replicas:             rc.Status.Replicas,
			FullyLabeledReplicas: rc.Status.FullyLabeledReplicas,
			ReadyReplicas:        rc.Status.ReadyReplicas,
			AvailableReplicas:    rc.Status.AvailableReplicas,
			ObservedGeneration:   rc.Status.ObservedGeneration,
		},
	}
	if rc.Spec.Selector != nil {
		rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: maps.Clone(rc.Spec.Selector)}
	}
	if rc.Spec.Template != nil {
		rs.Spec.Template = *rc.Spec.Template.DeepCopy()
	}
	for _, c := range rc.Status.Conditions {
		rs.Status.Conditions = append(rs.Status.Conditions, appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetConditionType(c.Type),
			Status: c.Status, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message})
	}
	return rs
}

// RCFromReplicaSet is the way back, for the status the controller writes.
func RCFromReplicaSet(rs *appsv1.ReplicaSet) *corev1.ReplicationController {
	rc := &corev1.ReplicationController{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
		ObjectMeta: *rs.ObjectMeta.DeepCopy(),
		Spec: corev1.ReplicationControllerSpec{
			Replicas:        copyInt32(rs.Spec.Replicas),
			MinReadySeconds: rs.Spec.MinReadySeconds,
			Template:        rs.Spec.Template.DeepCopy(),
		},
		Status: corev1.ReplicationControllerStatus{
			Replicas:             rs.Status.Replicas,
			FullyLabeledReplicas: rs.Status.FullyLabeledReplicas,
			ReadyReplicas:        rs.Status.ReadyReplicas,
			AvailableReplicas:    rs.Status.AvailableReplicas,
			ObservedGeneration:   rs.Status.ObservedGeneration,
		},
	}
	if rs.Spec.Selector != nil {
		rc.Spec.Selector = maps.Clone(rs.Spec.Selector.MatchLabels)
	}
	for _, c := range rs.Status.Conditions {
		rc.Status.Conditions = append(rc.Status.Conditions, corev1.ReplicationControllerCondition{
			Type: corev1.ReplicationControllerConditionType(c.Type), Status: c.Status, LastTransitionTime: c.LastTransitionTime,
			Reason: c.Reason, Message: c.Message})
	}
	return rc
}

func copyInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// informerAdapter is the informer of ReplicationControllers read as
// ReplicaSets (the real informerAdapter and listerAdapter). Each read
// converts, so what it hands out is the caller's to change.
type informerAdapter struct {
	inf *cache.Informer[*corev1.ReplicationController]
}

// Run implements controllers.Source.
func (a informerAdapter) Run(ctx context.Context) { a.inf.Run(ctx) }

// Sync implements controllers.Source.
func (a informerAdapter) Sync(ctx context.Context) error { return a.inf.Sync(ctx) }

// HasSynced implements controllers.Source.
func (a informerAdapter) HasSynced() bool { return a.inf.HasSynced() }

// Get returns the RC ns/name as a ReplicaSet.
func (a informerAdapter) Get(ns, name string) (*appsv1.ReplicaSet, bool) {
	rc, ok := a.inf.Get(ns, name)
	if !ok {
		return nil, false
	}
	return ReplicaSetFromRC(rc), true
}

// ByIndex returns the RCs of an index value as ReplicaSets.
func (a informerAdapter) ByIndex(index, value string) []*appsv1.ReplicaSet {
	rcs := a.inf.ByIndex(index, value)
	out := make([]*appsv1.ReplicaSet, len(rcs))
	for i, rc := range rcs {
		out[i] = ReplicaSetFromRC(rc)
	}
	return out
}

// AddHandler registers h for the RCs, converted.
func (a informerAdapter) AddHandler(h cache.Handler[*appsv1.ReplicaSet]) {
	var rh cache.Handler[*corev1.ReplicationController]
	if h.OnAdd != nil {
		rh.OnAdd = func(rc *corev1.ReplicationController) { h.OnAdd(ReplicaSetFromRC(rc)) }
	}
	if h.OnUpdate != nil {
		rh.OnUpdate = func(old, cur *corev1.ReplicationController) { h.OnUpdate(ReplicaSetFromRC(old), ReplicaSetFromRC(cur)) }
	}
	if h.OnDelete != nil {
		rh.OnDelete = func(rc *corev1.ReplicationController) { h.OnDelete(ReplicaSetFromRC(rc)) }
	}
	a.inf.AddHandler(rh)
}

// clientAdapter writes ReplicaSets as ReplicationControllers (the real
// clientsetAdapter).
type clientAdapter struct {
	rcs *client.Resource[*corev1.ReplicationController]
}

// Get reads the RC ns/name from the API server, as a ReplicaSet.
func (a clientAdapter) Get(ctx context.Context, ns, name string) (*appsv1.ReplicaSet, error) {
	rc, err := a.rcs.Get(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return ReplicaSetFromRC(rc), nil
}

// UpdateStatus writes rs's status to its RC through /status.
func (a clientAdapter) UpdateStatus(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	rc, err := a.rcs.UpdateStatus(ctx, RCFromReplicaSet(rs))
	if err != nil {
		return nil, err
	}
	return ReplicaSetFromRC(rc), nil
}
