package kinds

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// The budget half of EvictionREST.Create: an eviction of a running pod
// that one PodDisruptionBudget selects takes one of the budget's allowed
// disruptions (status.disruptionsAllowed, computed by the disruption
// controller), recording the pod in status.disruptedPods so that the
// controller does not count it as healthy before it is gone; with none
// left the answer is 429, which `kubectl drain` retries.

// MaxDisruptedPodSize caps status.disruptedPods: evictions the controller
// has not yet confirmed.
const MaxDisruptedPodSize = 2000

// evictor evicts pods; budgets, when set, returns the store of
// PodDisruptionBudgets.
type evictor struct {
	budgets func() (*registry.Store, bool)
}

// EvictionSubresource is pods/eviction honouring the budgets in the store
// that budgets returns (the API server's poddisruptionbudgets).
func EvictionSubresource(budgets func() (*registry.Store, bool)) registry.CreateSubresource {
	return registry.CreateSubresource{Resource: evictionResource(), Create: evictor{budgets: budgets}.evict}
}

// budgetGuard is what the budget check decided about a pod it let go.
type budgetGuard struct {
	// budget names the pod's budget ("" when none selects it).
	budget string
	// unhealthy: the pod is unready and goes without taking a disruption
	// (updateDeletionOptions in Kubernetes), so it must still be the pod
	// read when it is deleted.
	unhealthy bool
}

// checkBudgets refuses the eviction of pod when its budget allows no
// disruption, and otherwise takes one disruption from it. The budget's
// status write is retried on a fresh budget when another writer (the
// disruption controller, a parallel eviction) got there first, and
// checked again on it (RetryOnConflict with refresh in Kubernetes).
func (e evictor) checkBudgets(ctx context.Context, pod *corev1.Pod, dryRun bool) (budgetGuard, error) {
	if e.budgets == nil {
		return budgetGuard{}, nil
	}
	pdbs, ok := e.budgets()
	if !ok {
		return budgetGuard{}, nil
	}
	list, err := pdbs.List(ctx, pod.Namespace, registry.ListOptions{})
	if err != nil {
		return budgetGuard{}, err
	}
	matching := MatchingBudgets(pod, budgetItems(list.Items))
	switch len(matching) {
	case 0:
		return budgetGuard{}, nil
	case 1:
	default:
		return budgetGuard{}, api.NewInternalError(fmt.Errorf("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."))
	}
	pdb := matching[0]
	guard := budgetGuard{budget: pdb.Name}
	if !api.IsPodReady(pod) {
		// An unhealthy pod does not lower the healthy count: it may go
		// when the policy says always, or while the budget is met.
		if p := pdb.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == policyv1.AlwaysAllow {
			guard.unhealthy = true
			return guard, nil
		}
		if pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0 {
			guard.unhealthy = true
			return guard, nil
		}
	}
	now := metav1.NewTime(pdbs.Now())
	_, _, err = pdbs.Update(ctx, pod.Namespace, pdb.Name, func(cur api.Object) (api.Object, error) {
		b := cur.(*policyv1.PodDisruptionBudget)
		if err := CheckAndDecrement(b, pod.Name, now); err != nil {
			return nil, err
		}
		b.ResourceVersion = "" // no precondition: a conflict retries on the fresh budget
		return b, nil
	}, registry.UpdateOptions{Subresource: "status", DryRun: dryRun})
	return guard, err
}

func budgetItems(items []api.Object) []*policyv1.PodDisruptionBudget {
	out := make([]*policyv1.PodDisruptionBudget, 0, len(items))
	for _, o := range items {
		if b, ok := o.(*policyv1.PodDisruptionBudget); ok {
			out = append(out, b)
		}
	}
	return out
}

// canIgnorePDB: a pod that is finished, not yet running or already being
// deleted takes nothing from a budget.
func canIgnorePDB(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed, corev1.PodPending:
		return true
	}
	return pod.DeletionTimestamp != nil
}

// MatchingBudgets are the budgets of the pod's namespace whose selector
// matches it; a nil selector matches nothing and an empty one everything
// (policy/v1).
func MatchingBudgets(pod *corev1.Pod, pdbs []*policyv1.PodDisruptionBudget) []*policyv1.PodDisruptionBudget {
	var out []*policyv1.PodDisruptionBudget
	for _, b := range pdbs {
		if b.Namespace != pod.Namespace || b.Spec.Selector == nil {
			continue
		}
		sel, err := api.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, b)
	}
	return out
}

// CheckAndDecrement takes one disruption from pdb for the pod, or says why
// it cannot, in EvictionREST's words.
func CheckAndDecrement(pdb *policyv1.PodDisruptionBudget, podName string, now metav1.Time) error {
	gr := schema.GroupResource{Group: PolicyGroupName, Resource: "poddisruptionbudget"}
	st := pdb.Status
	switch {
	case st.ObservedGeneration < pdb.Generation:
		return budgetStillProcessing(pdb.Name, 10)
	case st.DisruptionsAllowed < 0:
		return api.NewForbidden(gr, pdb.Name, fmt.Errorf("pdb disruptions allowed is negative"))
	case len(st.DisruptedPods) > MaxDisruptedPodSize:
		return api.NewForbidden(gr, pdb.Name, fmt.Errorf("DisruptedPods map too big - too many evictions not confirmed by PDB controller"))
	case st.DisruptionsAllowed == 0:
		return budgetTooManyRequests(disruptionDeniedMessage(pdb))
	}
	pdb.Status.DisruptionsAllowed--
	if pdb.Status.DisruptionsAllowed == 0 {
		setBudgetCondition(pdb, now)
	}
	if pdb.Status.DisruptedPods == nil {
		pdb.Status.DisruptedPods = map[string]metav1.Time{}
	}
	pdb.Status.DisruptedPods[podName] = now
	return nil
}

// disruptionDeniedMessage is the 429's cause, from the budget's state.
func disruptionDeniedMessage(pdb *policyv1.PodDisruptionBudget) string {
	c := findCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
	switch {
	case c != nil && c.Status == metav1.ConditionFalse && c.Message != "" && c.Reason == policyv1.SyncFailedReason:
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", pdb.Name, c.Message)
	case pdb.Status.CurrentHealthy <= pdb.Status.DesiredHealthy:
		return fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, pdb.Status.DesiredHealthy, pdb.Status.CurrentHealthy)
	case c != nil && c.Status == metav1.ConditionFalse && c.Message != "":
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", pdb.Name, c.Reason, c.Message)
	default:
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", pdb.Name)
	}
}

// budgetStillProcessing is createTooManyRequestsError: the 429 asking the
// client to come back, the budget not yet (or no longer) settled.
func budgetStillProcessing(name string, retryAfterSeconds int) error {
	return budgetTooManyRequestsAfter(fmt.Sprintf("The disruption budget %s is still being processed by the server.", name), retryAfterSeconds)
}

// budgetTooManyRequests is the 429 with its DisruptionBudget cause.
func budgetTooManyRequests(cause string) error {
	return budgetTooManyRequestsAfter(cause, 0)
}

func budgetTooManyRequestsAfter(cause string, retryAfterSeconds int) error {
	err := api.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", retryAfterSeconds)
	if err.ErrStatus.Details == nil {
		err.ErrStatus.Details = &metav1.StatusDetails{}
	}
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: api.DisruptionBudgetCause, Message: cause})
	return err
}

func findCondition(cs []metav1.Condition, t string) *metav1.Condition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

// setBudgetCondition is pdbhelper.UpdateDisruptionAllowedCondition: the
// DisruptionAllowed condition follows status.disruptionsAllowed.
func setBudgetCondition(pdb *policyv1.PodDisruptionBudget, now metav1.Time) {
	c := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, ObservedGeneration: pdb.Status.ObservedGeneration}
	if pdb.Status.DisruptionsAllowed > 0 {
		c.Status, c.Reason = metav1.ConditionTrue, policyv1.SufficientPodsReason
	} else {
		c.Status, c.Reason = metav1.ConditionFalse, policyv1.InsufficientPodsReason
	}
	for i := range pdb.Status.Conditions {
		if cur := &pdb.Status.Conditions[i]; cur.Type == c.Type {
			if cur.Status != c.Status {
				cur.LastTransitionTime = now
			}
			cur.Status, cur.Reason, cur.ObservedGeneration = c.Status, c.Reason, c.ObservedGeneration
			return
		}
	}
	c.LastTransitionTime = now
	pdb.Status.Conditions = append(pdb.Status.Conditions, c)
}
