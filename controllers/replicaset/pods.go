package replicaset

import (
	"fmt"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
)

// IsPodActive reports whether a pod counts towards replicas: not being
// deleted and not finished (controller.IsPodActive).
func IsPodActive(p *corev1.Pod) bool {
	return p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// FilterActivePods keeps the active pods, in order.
func FilterActivePods(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if IsPodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// podPhaseRank orders phases for deletion: a pod that has not started is
// cheaper to lose than a running one.
func podPhaseRank(p corev1.PodPhase) int {
	switch p {
	case corev1.PodPending:
		return 0
	case corev1.PodUnknown:
		return 1
	case corev1.PodRunning:
		return 2
	}
	return 3
}

// lessForDeletion is the simplified ActivePods ordering: the pod to delete
// first sorts first — unscheduled before scheduled, pending before
// running, not ready before ready, newer before older, then by name.
func lessForDeletion(a, b *corev1.Pod) bool {
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if ra, rb := podPhaseRank(a.Status.Phase), podPhaseRank(b.Status.Phase); ra != rb {
		return ra < rb
	}
	if api.IsPodReady(a) != api.IsPodReady(b) {
		return !api.IsPodReady(a)
	}
	if !a.CreationTimestamp.Time.Equal(b.CreationTimestamp.Time) {
		return a.CreationTimestamp.After(b.CreationTimestamp.Time)
	}
	return a.Name < b.Name
}

// PodsToDelete picks the n pods a scale-down removes, most expendable
// first (getPodsToDelete).
func PodsToDelete(pods []*corev1.Pod, n int) []*corev1.Pod {
	sorted := append([]*corev1.Pod(nil), pods...)
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
	return slowStartBatchParallel(count, initialBatchSize, false, fn, nil)
}

// slowStartBatchParallel is slowStartBatch whose batches run their calls
// concurrently when parallel is set, as Kubernetes does (live mode). Step
// mode runs them one after another, so that the trace is the same every
// run. batchDone, if not nil, is told the size of each batch as it ends
// (the controller's debug timeline).
func slowStartBatchParallel(count, initialBatchSize int, parallel bool, fn func() error, batchDone func(size int)) (int, error) {
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
		if batchDone != nil {
			batchDone(batch)
		}
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
func podFromTemplate(template *corev1.PodTemplateSpec, parent *metav1.ObjectMeta, ref *metav1.OwnerReference) (*corev1.Pod, error) {
	t := template.DeepCopy()
	if len(t.Labels) == 0 {
		return nil, fmt.Errorf("unable to create pods, no labels")
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
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
