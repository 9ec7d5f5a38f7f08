package replicaset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api/fieldmap"
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
// adapter makes, Convert_v1_ReplicationController_To_apps_ReplicaSet), by
// rcMapping. The result shares nothing with rc.
func ReplicaSetFromRC(rc *corev1.ReplicationController) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{}
	fieldmap.BToA(rcMapping(rs, rc.DeepCopy()))
	rs.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}
	return rs
}

// RCFromReplicaSet is the way back, for the status the controller writes,
// by the same rcMapping.
func RCFromReplicaSet(rs *appsv1.ReplicaSet) *corev1.ReplicationController {
	rc := &corev1.ReplicationController{}
	fieldmap.AToB(rcMapping(rs.DeepCopy(), rc))
	rc.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"}
	return rc
}

// rcMapping pairs the fields of a ReplicaSet and of a
// ReplicationController, for both directions: the same metadata,
// replicas and status; the RC's selector is the ReplicaSet's matchLabels
// (an RC has no matchExpressions), and its template, required on an RC
// but a pointer, the ReplicaSet's by value.
func rcMapping(rs *appsv1.ReplicaSet, rc *corev1.ReplicationController) []fieldmap.Pair {
	return []fieldmap.Pair{
		fieldmap.Same[metav1.ObjectMeta]{A: &rs.ObjectMeta, B: &rc.ObjectMeta},
		fieldmap.Same[*int32]{A: &rs.Spec.Replicas, B: &rc.Spec.Replicas},
		fieldmap.Same[int32]{A: &rs.Spec.MinReadySeconds, B: &rc.Spec.MinReadySeconds},
		fieldmap.Convert[*metav1.LabelSelector, map[string]string]{A: &rs.Spec.Selector, B: &rc.Spec.Selector,
			ToB: func(s *metav1.LabelSelector) map[string]string {
				if s == nil {
					return nil
				}
				return s.MatchLabels
			},
			ToA: func(m map[string]string) *metav1.LabelSelector {
				if m == nil {
					return nil
				}
				return &metav1.LabelSelector{MatchLabels: m}
			}},
		fieldmap.Convert[corev1.PodTemplateSpec, *corev1.PodTemplateSpec]{A: &rs.Spec.Template, B: &rc.Spec.Template,
			ToB: func(t corev1.PodTemplateSpec) *corev1.PodTemplateSpec { return &t },
			ToA: func(t *corev1.PodTemplateSpec) corev1.PodTemplateSpec {
				if t == nil {
					return corev1.PodTemplateSpec{}
				}
				return *t
			}},
		fieldmap.Same[int32]{A: &rs.Status.Replicas, B: &rc.Status.Replicas},
		fieldmap.Same[int32]{A: &rs.Status.FullyLabeledReplicas, B: &rc.Status.FullyLabeledReplicas},
		fieldmap.Same[int32]{A: &rs.Status.ReadyReplicas, B: &rc.Status.ReadyReplicas},
		fieldmap.Same[int32]{A: &rs.Status.AvailableReplicas, B: &rc.Status.AvailableReplicas},
		fieldmap.Same[int64]{A: &rs.Status.ObservedGeneration, B: &rc.Status.ObservedGeneration},
		fieldmap.Slices[appsv1.ReplicaSetCondition, corev1.ReplicationControllerCondition]{A: &rs.Status.Conditions, B: &rc.Status.Conditions,
			Elements: rcConditionMapping},
	}
}

// rcConditionMapping pairs the fields of a ReplicaSet's condition and of
// an RC's, whose types have the same values.
func rcConditionMapping(rs *appsv1.ReplicaSetCondition, rc *corev1.ReplicationControllerCondition) []fieldmap.Pair {
	return []fieldmap.Pair{
		fieldmap.Convert[appsv1.ReplicaSetConditionType, corev1.ReplicationControllerConditionType]{A: &rs.Type, B: &rc.Type,
			ToB: func(t appsv1.ReplicaSetConditionType) corev1.ReplicationControllerConditionType {
				return corev1.ReplicationControllerConditionType(t)
			},
			ToA: func(t corev1.ReplicationControllerConditionType) appsv1.ReplicaSetConditionType {
				return appsv1.ReplicaSetConditionType(t)
			}},
		fieldmap.Same[corev1.ConditionStatus]{A: &rs.Status, B: &rc.Status},
		fieldmap.Same[metav1.Time]{A: &rs.LastTransitionTime, B: &rc.LastTransitionTime},
		fieldmap.Same[string]{A: &rs.Reason, B: &rc.Reason},
		fieldmap.Same[string]{A: &rs.Message, B: &rc.Message},
	}
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
