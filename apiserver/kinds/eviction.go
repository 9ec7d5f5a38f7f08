package kinds

import (
	"context"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// Eviction (pkg/registry/core/pod/storage/eviction.go): POST
// pods/NAME/eviction with a policy/v1 Eviction deletes the pod, as
// `kubectl drain` asks, when the PodDisruptionBudget selecting it allows a
// disruption (disruptionbudget_eviction.go): the pod gets the
// DisruptionTarget condition and is deleted gracefully with the
// eviction's DeleteOptions. Without a budget lookup (Builtin alone, before
// the API server wires EvictionSubresource) every eviction is allowed, as
// for a pod that no budget selects.

// evictionReason and evictionMessage are the DisruptionTarget condition's.
const (
	evictionReason  = "EvictionByEvictionAPI"
	evictionMessage = "Eviction API: evicting"
)

// evictionResource describes the posted policy/v1 Eviction.
func evictionResource() *registry.Resource {
	return &registry.Resource{
		Group: "policy", Version: "v1", Name: "evictions", SingularName: "eviction", Kind: "Eviction",
		Namespaced: true,
		New:        func() api.Object { return &policyv1.Eviction{} },
		Schema:     schema.FromGoType(reflect.TypeOf(policyv1.Eviction{})),
	}
}

// evictPod is EvictionREST.Create without the budget checks.
func evictPod(ctx context.Context, st *registry.Store, ns, name string, obj api.Object) (api.Object, error) {
	return evictor{}.evict(ctx, st, ns, name, obj)
}

// evict is EvictionREST.Create: the budget check, then the marked delete.
func (e evictor) evict(ctx context.Context, st *registry.Store, ns, name string, obj api.Object) (api.Object, error) {
	ev, ok := obj.(*policyv1.Eviction)
	if !ok {
		return nil, api.NewBadRequest(fmt.Sprintf("not a Eviction object: %T", obj))
	}
	if ev.Name != name {
		return nil, api.NewBadRequest("name in URL does not match name in Eviction object")
	}
	opts := &metav1.DeleteOptions{}
	if ev.DeleteOptions != nil {
		opts = ev.DeleteOptions.DeepCopy()
	}
	if err := e.checkBudgets(ctx, st, ns, name, len(opts.DryRun) > 0); err != nil {
		return nil, err
	}
	if len(opts.DryRun) == 0 {
		// addConditionAndDeletePod: mark the pod, through the status
		// subresource, so that its owner and kubelet know why it goes.
		// The delete's preconditions are checked here already, and a
		// resourceVersion precondition then names the marked pod.
		marked, _, err := st.Update(ctx, ns, name, func(cur api.Object) (api.Object, error) {
			pod := cur.(*corev1.Pod)
			if err := evictionPreconditions(pod, opts.Preconditions); err != nil {
				return nil, err
			}
			now := metav1.NewTime(st.Now())
			setPodConditionAt(&pod.Status, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
				Reason: evictionReason, Message: evictionMessage}, now)
			return pod, nil
		}, registry.UpdateOptions{Subresource: "status"})
		if err != nil {
			return nil, err
		}
		if opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil {
			rv := api.Meta(marked).ResourceVersion
			opts.Preconditions.ResourceVersion = &rv
		}
	}
	if _, err := st.Delete(ctx, ns, name, opts, false); err != nil {
		return nil, err
	}
	return &statusObject{Status: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Code:     201,
	}}, nil
}

// evictionPreconditions are the delete's preconditions, checked against
// the pod before it is marked, in the store's wording.
func evictionPreconditions(pod *corev1.Pod, pre *metav1.Preconditions) error {
	if pre == nil {
		return nil
	}
	gr := k8sschema.GroupResource{Resource: "pods"}
	if pre.UID != nil && *pre.UID != pod.UID {
		return api.NewConflict(gr, pod.Name, fmt.Errorf(
			"Precondition failed: UID in precondition: %v, UID in object meta: %v", *pre.UID, pod.UID))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != pod.ResourceVersion {
		return api.NewConflict(gr, pod.Name, fmt.Errorf(
			"Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *pre.ResourceVersion, pod.ResourceVersion))
	}
	return nil
}

// setPodConditionAt is setPodCondition moving lastTransitionTime to now
// when the condition's status changes (podutil.UpdatePodCondition).
func setPodConditionAt(status *corev1.PodStatus, c corev1.PodCondition, now metav1.Time) {
	for i := range status.Conditions {
		if status.Conditions[i].Type == c.Type {
			if status.Conditions[i].Status != c.Status {
				status.Conditions[i].LastTransitionTime = now
			}
			status.Conditions[i].Status, status.Conditions[i].Reason, status.Conditions[i].Message = c.Status, c.Reason, c.Message
			return
		}
	}
	c.LastTransitionTime = now
	status.Conditions = append(status.Conditions, c)
}
