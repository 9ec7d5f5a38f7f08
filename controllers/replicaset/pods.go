package replicaset

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
)

// SelectorAsSelector converts a ReplicaSet's or Deployment's selector to a
// labels.Selector (metav1.LabelSelectorAsSelector): nil selects nothing,
// an empty selector everything.
func SelectorAsSelector(ls *api.LabelSelector) (labels.Selector, error) {
	if ls == nil {
		return labels.Nothing(), nil
	}
	exprs := make([]labels.MatchExpression, len(ls.MatchExpressions))
	for i, e := range ls.MatchExpressions {
		exprs[i] = labels.MatchExpression{Key: e.Key, Operator: string(e.Operator), Values: e.Values}
	}
	return labels.SelectorFromMatch(ls.MatchLabels, exprs)
}

// IsPodActive reports whether a pod counts towards replicas: not being
// deleted and not finished (controller.IsPodActive).
func IsPodActive(p *api.Pod) bool {
	return p.DeletionTimestamp == nil && p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed
}

// FilterActivePods keeps the active pods, in order.
func FilterActivePods(pods []*api.Pod) []*api.Pod {
	var out []*api.Pod
	for _, p := range pods {
		if IsPodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// GetPodReadyCondition returns the pod's Ready condition, or nil.
func GetPodReadyCondition(p *api.Pod) *api.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == api.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// IsPodReady reports whether the pod's Ready condition is True.
func IsPodReady(p *api.Pod) bool {
	c := GetPodReadyCondition(p)
	return c != nil && c.Status == api.ConditionTrue
}

// IsPodAvailable reports whether the pod has been ready for at least
// minReadySeconds at now (podutil.IsPodAvailable).
func IsPodAvailable(p *api.Pod, minReadySeconds int32, now time.Time) bool {
	c := GetPodReadyCondition(p)
	if c == nil || c.Status != api.ConditionTrue {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	d := time.Duration(minReadySeconds) * time.Second
	return !c.LastTransitionTime.IsZero() && c.LastTransitionTime.Add(d).Before(now)
}

// NextAvailable is how long until the first pod that is ready but not yet
// available becomes available; ok is false when there is none. A second is
// added because availability needs the ready time strictly before now and
// object times have one-second precision.
func NextAvailable(pods []*api.Pod, minReadySeconds int32, now time.Time) (d time.Duration, ok bool) {
	if minReadySeconds == 0 {
		return 0, false
	}
	for _, p := range pods {
		c := GetPodReadyCondition(p)
		if c == nil || c.Status != api.ConditionTrue || IsPodAvailable(p, minReadySeconds, now) {
			continue
		}
		at := c.LastTransitionTime.Add(time.Duration(minReadySeconds)*time.Second + time.Second)
		if w := max(at.Sub(now), time.Second); !ok || w < d {
			d, ok = w, true
		}
	}
	return d, ok
}

// podPhaseRank orders phases for deletion: a pod that has not started is
// cheaper to lose than a running one.
func podPhaseRank(p api.PodPhase) int {
	switch p {
	case api.PodPending:
		return 0
	case api.PodUnknown:
		return 1
	case api.PodRunning:
		return 2
	}
	return 3
}

// lessForDeletion is the simplified ActivePods ordering: the pod to delete
// first sorts first — unscheduled before scheduled, pending before
// running, not ready before ready, newer before older, then by name.
func lessForDeletion(a, b *api.Pod) bool {
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if ra, rb := podPhaseRank(a.Status.Phase), podPhaseRank(b.Status.Phase); ra != rb {
		return ra < rb
	}
	if IsPodReady(a) != IsPodReady(b) {
		return !IsPodReady(a)
	}
	if !a.CreationTimestamp.Time.Equal(b.CreationTimestamp.Time) {
		return a.CreationTimestamp.After(b.CreationTimestamp.Time)
	}
	return a.Name < b.Name
}

// PodsToDelete picks the n pods a scale-down removes, most expendable
// first (getPodsToDelete).
func PodsToDelete(pods []*api.Pod, n int) []*api.Pod {
	sorted := append([]*api.Pod(nil), pods...)
	sort.SliceStable(sorted, func(i, j int) bool { return lessForDeletion(sorted[i], sorted[j]) })
	if n > len(sorted) {
		n = len(sorted)
	}
	if n < 0 {
		n = 0
	}
	return sorted[:n]
}

// slowStartBatch calls fn count times in batches of 1, 2, 4... (sequentially:
// kubesim starts no goroutines in a reconcile), stopping after the first
// batch with an error, so that a create that is rejected (quota, admission)
// fails once instead of hundreds of times. It returns the number of
// successes and the first error.
func slowStartBatch(count, initialBatchSize int, fn func() error) (int, error) {
	return slowStartBatchParallel(count, initialBatchSize, false, fn)
}

// slowStartBatchParallel is slowStartBatch whose batches run their calls
// concurrently when parallel is set, as Kubernetes does (live mode). Step
// mode runs them one after another, so that the trace is the same every
// run.
func slowStartBatchParallel(count, initialBatchSize int, parallel bool, fn func() error) (int, error) {
	remaining := count
	successes := 0
	for batch := min(remaining, initialBatchSize); batch > 0; batch = min(2*batch, remaining) {
		var firstErr error
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range batch {
			call := func() {
				err := fn()
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					return
				}
				successes++
			}
			if !parallel {
				call()
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				call()
			}()
		}
		wg.Wait()
		if firstErr != nil {
			return successes, firstErr
		}
		remaining -= batch
	}
	return successes, nil
}

// podFromTemplate builds the pod a ReplicaSet creates: the template's
// labels, annotations, finalizers and spec, the name prefix "<rs>-" and a
// controller reference (controller.GetPodFromTemplate).
func podFromTemplate(template *api.PodTemplateSpec, parent *api.ObjectMeta, ref *api.OwnerReference) (*api.Pod, error) {
	t := template.DeepCopy()
	if len(t.Labels) == 0 {
		return nil, fmt.Errorf("unable to create pods, no labels")
	}
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{
			Namespace:    parent.Namespace,
			GenerateName: podsPrefix(parent.Name),
			Labels:       t.Labels,
			Annotations:  t.Annotations,
			Finalizers:   t.Finalizers,
		},
		Spec: t.Spec,
	}
	if ref != nil {
		pod.OwnerReferences = append(pod.OwnerReferences, *ref)
	}
	return pod, nil
}

// podsPrefix is "<name>-", unless that would not be a valid name prefix
// (then the name alone, as Kubernetes does).
func podsPrefix(name string) string {
	prefix := name + "-"
	if len(labels.IsDNS1123Subdomain(prefix+"a")) != 0 {
		return name
	}
	return prefix
}
