package statefulset

import (
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers"
)

// PodName is the name of the pod with ordinal ord (getPodName).
func PodName(set *appsv1.StatefulSet, ord int) string {
	return set.Name + "-" + strconv.Itoa(ord)
}

// Ordinal parses the ordinal of a pod named "<set>-<ord>"; ok is false for
// a name of another form (getParentNameAndOrdinal).
func Ordinal(set *appsv1.StatefulSet, podName string) (int, bool) {
	rest, found := strings.CutPrefix(podName, set.Name+"-")
	if !found || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// Revision is the name of the revision of the set's current template,
// "<set>-<hash>", the value of its pods' controller-revision-hash label
// (the name NewRevision gives, with the set's collision count).
func Revision(set *appsv1.StatefulSet) string {
	var collisionCount int32
	if set.Status.CollisionCount != nil {
		collisionCount = *set.Status.CollisionCount
	}
	data, err := Patch(set)
	if err != nil {
		return ""
	}
	return controllers.ControllerRevisionName(set.Name, controllers.HashControllerRevision(data, &collisionCount))
}

// PodRevision is the revision a pod was made from.
func PodRevision(p *corev1.Pod) string { return p.Labels[appsv1.ControllerRevisionHashLabelKey] }

// IsHealthy is Running and Ready and not being deleted (isHealthy).
func IsHealthy(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodRunning && api.IsPodReady(p) && p.DeletionTimestamp == nil
}

// isFailed is a pod that will not run again: it is replaced.
func isFailed(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded
}

func replicasOf(set *appsv1.StatefulSet) int {
	if set.Spec.Replicas == nil {
		return 1
	}
	return int(*set.Spec.Replicas)
}

func partitionOf(set *appsv1.StatefulSet) int {
	ru := set.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.Partition == nil {
		return 0
	}
	return int(*ru.Partition)
}

func isRollingUpdate(set *appsv1.StatefulSet) bool {
	return set.Spec.UpdateStrategy.Type == "" || set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType
}

// ActionType is what an Action does.
type ActionType string

// The actions of a sync.
const (
	// Create makes the pod of an ordinal.
	Create ActionType = "create"
	// Delete removes a pod: a failed one (to be recreated), one past the
	// replica count, or one of an old revision (rolling update).
	Delete ActionType = "delete"
)

// Action is one write Plan decides on.
type Action struct {
	Type    ActionType
	Ordinal int
	Pod     string
	// Revision of the pod to create.
	Revision string
	// Why, for logs and tests: "missing", "failed", "scale down", "update".
	Why string
}

// Plan decides the creates and deletes of one sync of set, whose pods are
// pods (the set's own, any order), as updateStatefulSet does: with
// OrderedReady it returns at most one action and none while an earlier
// pod is not yet Running and Ready or a later one is still terminating;
// with Parallel it creates and deletes every pod it may at once. The
// rolling update deletes one out-of-date pod at a time, from the highest
// ordinal down to the partition, waiting for each replacement to be
// healthy.
func Plan(set *appsv1.StatefulSet, pods []*corev1.Pod, currentRevision, updateRevision string) []Action {
	n := replicasOf(set)
	monotonic := set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement
	byOrd := map[int]*corev1.Pod{}
	var condemned []int
	for _, p := range pods {
		ord, ok := Ordinal(set, p.Name)
		if !ok {
			continue
		}
		byOrd[ord] = p
		if ord >= n {
			condemned = append(condemned, ord)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(condemned)))
	var out []Action

	// 1. Every ordinal below the replica count has a healthy pod, in order.
	for ord := range n {
		p := byOrd[ord]
		switch {
		case p == nil:
			out = append(out, Action{Type: Create, Ordinal: ord, Pod: PodName(set, ord),
				Revision: newPodRevision(set, ord, currentRevision, updateRevision), Why: "missing"})
			if monotonic {
				return out
			}
		case isFailed(p) && p.DeletionTimestamp == nil:
			out = append(out, Action{Type: Delete, Ordinal: ord, Pod: p.Name, Why: "failed"})
			if monotonic {
				return out
			}
		case monotonic && !IsHealthy(p):
			// Wait: the next ordinal starts only when this one is Running
			// and Ready, and a terminating one comes back first.
			return out
		}
	}

	// 2. Pods past the replica count go, highest ordinal first.
	for _, ord := range condemned {
		p := byOrd[ord]
		if p.DeletionTimestamp != nil {
			if monotonic {
				return out // one at a time: wait until it is gone
			}
			continue
		}
		out = append(out, Action{Type: Delete, Ordinal: ord, Pod: p.Name, Why: "scale down"})
		if monotonic {
			return out
		}
	}
	if monotonic && len(out) > 0 {
		return out
	}

	// 3. Rolling update, from the highest ordinal down to the partition.
	if !isRollingUpdate(set) {
		return out
	}
	for ord := n - 1; ord >= partitionOf(set); ord-- {
		p := byOrd[ord]
		if p == nil {
			continue
		}
		if PodRevision(p) != updateRevision && p.DeletionTimestamp == nil {
			return append(out, Action{Type: Delete, Ordinal: ord, Pod: p.Name, Why: "update"})
		}
		if !IsHealthy(p) {
			return out
		}
	}
	return out
}

// newPodRevision is the revision a new pod of ordinal ord gets
// (newVersionedStatefulSetPod): below the partition of a rolling update the
// current one, otherwise the update revision.
func newPodRevision(set *appsv1.StatefulSet, ord int, currentRevision, updateRevision string) string {
	if isRollingUpdate(set) && ord < partitionOf(set) && currentRevision != "" {
		return currentRevision
	}
	return updateRevision
}

// identityLabels are the labels the controller adds to a pod.
var identityLabels = []string{appsv1.StatefulSetPodNameLabel, appsv1.PodIndexLabel, appsv1.ControllerRevisionHashLabelKey}

// NewPod builds the pod of ordinal ord from template at revision
// (newStatefulSetPod and its identity): the name <set>-<ord>, the
// pod-name, pod-index and controller-revision-hash labels, hostname and
// subdomain (the headless Service), and a controller reference.
func NewPod(set *appsv1.StatefulSet, template *corev1.PodTemplateSpec, ord int, revision string, ref *metav1.OwnerReference) *corev1.Pod {
	t := template.DeepCopy()
	name := PodName(set, ord)
	lbls := map[string]string{}
	for k, v := range t.Labels {
		lbls[k] = v
	}
	lbls[appsv1.StatefulSetPodNameLabel] = name
	lbls[appsv1.PodIndexLabel] = strconv.Itoa(ord)
	lbls[appsv1.ControllerRevisionHashLabelKey] = revision
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: set.Namespace, Labels: lbls,
			Annotations: t.Annotations, Finalizers: t.Finalizers},
		Spec: t.Spec,
	}
	pod.Spec.Hostname = name
	pod.Spec.Subdomain = set.Spec.ServiceName
	UpdateStorage(set, pod, ord)
	if ref != nil {
		pod.OwnerReferences = []metav1.OwnerReference{*ref}
	}
	return pod
}
