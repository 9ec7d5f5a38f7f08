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

// evictionRetries bounds the fresh starts of one eviction whose pod changed
// under it (EvictionsRetry's 20 steps; kubesim does not wait between them:
// the retry is against a write that has already landed).
const evictionRetries = 20

// evict is EvictionREST.Create. A pod the budgets do not guard (pending,
// finished, already being deleted) is marked and deleted at once; any
// other takes a disruption from its budget first. The answer never
// depends on a write the eviction raced: a kubelet's status write between
// the eviction's read and its own write makes it start again from a fresh
// read, as kube-apiserver does, unless the client named a
// resourceVersion, whose conflict is the client's to see.
func (e evictor) evict(ctx context.Context, st *registry.Store, ns, name string, obj api.Object) (api.Object, error) {
	ev, ok := obj.(*policyv1.Eviction)
	if !ok {
		return nil, api.NewBadRequest(fmt.Sprintf("not a Eviction object: %T", obj))
	}
	if ev.Name != name {
		return nil, api.NewBadRequest("name in URL does not match name in Eviction object")
	}
	original := &metav1.DeleteOptions{}
	if ev.DeleteOptions != nil {
		original = ev.DeleteOptions.DeepCopy()
	}
	clientRV := !resourceVersionIsUnset(original)

	var pod *corev1.Pod
	for attempt := 0; ; attempt++ {
		got, err := st.Get(ctx, ns, name)
		if err != nil {
			return nil, err
		}
		pod = got.(*corev1.Pod)
		if !canIgnorePDB(pod) {
			break // the budgets decide, below
		}
		opts := original
		if shouldEnforceResourceVersion(pod) && !clientRV {
			// A pending pod may turn ready (and budget-guarded) before
			// the delete: the delete holds to the pod as read, and a
			// change starts the eviction again.
			opts = withResourceVersion(original, pod.ResourceVersion)
		}
		err = markAndDelete(ctx, st, ns, name, opts)
		if api.IsConflict(err) && !clientRV && attempt < evictionRetries {
			continue
		}
		if err != nil {
			return nil, err
		}
		return evicted(), nil
	}

	guard, err := e.checkBudgets(ctx, pod, len(original.DryRun) > 0)
	if err != nil {
		return nil, err
	}
	opts := original
	if guard.unhealthy {
		// An unready pod taken without a disruption must still be
		// unready when it goes.
		opts = withResourceVersion(original, pod.ResourceVersion)
	}
	if err := markAndDelete(ctx, st, ns, name, opts); err != nil {
		if api.IsConflict(err) && guard.unhealthy && !clientRV {
			// The pod changed since the budget was read: the client is
			// asked to try again (createTooManyRequestsError).
			return nil, budgetStillProcessing(guard.budget, 10)
		}
		return nil, err
	}
	return evicted(), nil
}

func evicted() api.Object {
	return &statusObject{Status: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Code:     201,
	}}
}

// markAndDelete is addConditionAndDeletePod: the pod gets the
// DisruptionTarget condition, through the status subresource, so that its
// owner and kubelet know why it goes, then it is deleted with opts. The
// mark is made on the latest pod whatever was written since the eviction
// read it (no resourceVersion of its own: the store retries it), after
// checking the delete's preconditions against that pod; a resourceVersion
// precondition then names the marked pod, which the eviction itself wrote.
func markAndDelete(ctx context.Context, st *registry.Store, ns, name string, opts *metav1.DeleteOptions) error {
	if len(opts.DryRun) == 0 {
		marked, _, err := st.Update(ctx, ns, name, func(cur api.Object) (api.Object, error) {
			pod := cur.(*corev1.Pod)
			if err := evictionPreconditions(pod, opts.Preconditions); err != nil {
				return nil, err
			}
			setPodConditionAt(&pod.Status, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
				Reason: evictionReason, Message: evictionMessage}, metav1.NewTime(st.Now()))
			pod.ResourceVersion = ""
			return pod, nil
		}, registry.UpdateOptions{Subresource: "status"})
		if err != nil {
			return err
		}
		if !resourceVersionIsUnset(opts) {
			opts = withResourceVersion(opts, api.Meta(marked).ResourceVersion)
		}
	}
	_, err := st.Delete(ctx, ns, name, opts, false)
	return err
}

// withResourceVersion is a copy of opts whose precondition names rv.
func withResourceVersion(opts *metav1.DeleteOptions, rv string) *metav1.DeleteOptions {
	out := opts.DeepCopy()
	if out.Preconditions == nil {
		out.Preconditions = &metav1.Preconditions{}
	}
	out.Preconditions.ResourceVersion = &rv
	return out
}

func resourceVersionIsUnset(opts *metav1.DeleteOptions) bool {
	return opts.Preconditions == nil || opts.Preconditions.ResourceVersion == nil
}

// shouldEnforceResourceVersion: a pod that is not finished and not being
// deleted could turn ready before the delete; a finished one cannot.
func shouldEnforceResourceVersion(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
		return false
	}
	return pod.DeletionTimestamp == nil
}

// evictionPreconditions are the delete's preconditions, checked against
// the latest pod before it is marked, in getLatestPod's words.
func evictionPreconditions(pod *corev1.Pod, pre *metav1.Preconditions) error {
	if pre == nil {
		return nil
	}
	gr := k8sschema.GroupResource{Resource: "Pod"}
	if pre.UID != nil && *pre.UID != "" && *pre.UID != pod.UID {
		return api.NewConflict(gr, pod.Name, fmt.Errorf(
			"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *pre.UID, pod.UID))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != "" && *pre.ResourceVersion != pod.ResourceVersion {
		return api.NewConflict(gr, pod.Name, fmt.Errorf(
			"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *pre.ResourceVersion, pod.ResourceVersion))
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
