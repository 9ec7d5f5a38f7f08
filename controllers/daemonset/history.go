package daemonset

import (
	"bytes"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers"
)

// This file is the DaemonSet's side of the history the controller kit
// keeps (controllers/history.go; pkg/controller/daemon/update.go's
// constructHistory, snapshot, dedupCurHistories and cleanupHistory). Where
// the StatefulSet names a revision by the hash of its data, the DaemonSet
// names it by the template's hash (the pod-template-hash of a Deployment),
// and that hash is also the controller-revision-hash label of its pods.

// Hash is the hash of the set's template and collision count: its
// revision's name suffix and its pods' controller-revision-hash label.
func Hash(ds *appsv1.DaemonSet) string {
	return controllers.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
}

// NewRevision is snapshot's revision: "<set>-<hash>", labelled like the
// template plus controller-revision-hash, annotated like the set (so a
// kubernetes.io/change-cause shows in `kubectl rollout history`),
// controlled by the set, its data the template patch.
func NewRevision(ds *appsv1.DaemonSet, revision int64) (*appsv1.ControllerRevision, error) {
	data, err := controllers.TemplatePatch(&ds.Spec.Template)
	if err != nil {
		return nil, err
	}
	hash := Hash(ds)
	lbls := map[string]string{}
	for k, v := range ds.Spec.Template.Labels {
		lbls[k] = v
	}
	lbls[appsv1.ControllerRevisionHashLabelKey] = hash
	cr := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: controllers.ControllerRevisionName(ds.Name, hash), Namespace: ds.Namespace, Labels: lbls,
			OwnerReferences: []metav1.OwnerReference{*api.NewControllerRef(&ds.ObjectMeta, GroupVersionKind)}},
		Data:     runtime.RawExtension{Raw: data},
		Revision: revision,
	}
	if len(ds.Annotations) > 0 {
		cr.Annotations = map[string]string{}
		for k, v := range ds.Annotations {
			cr.Annotations[k] = v
		}
	}
	return cr, nil
}

// Match reports whether a revision holds the set's current template.
func Match(ds *appsv1.DaemonSet, cr *appsv1.ControllerRevision) bool {
	data, err := controllers.TemplatePatch(&ds.Spec.Template)
	return err == nil && bytes.Equal(data, cr.Data.Raw)
}

// HistoryPlan is constructHistory's decision: the revisions that hold the
// current template (cur, several only after a race: the newest is kept
// and the rest are duplicates to delete) and the others (old); next is
// the number the current revision must carry, one past the old ones.
func HistoryPlan(ds *appsv1.DaemonSet, revisions []*appsv1.ControllerRevision) (cur *appsv1.ControllerRevision, duplicates, old []*appsv1.ControllerRevision, next int64) {
	var current []*appsv1.ControllerRevision
	for _, r := range revisions {
		if Match(ds, r) {
			current = append(current, r)
		} else {
			old = append(old, r)
		}
	}
	controllers.SortControllerRevisions(current)
	controllers.SortControllerRevisions(old)
	if len(current) > 0 {
		cur = current[len(current)-1]
		duplicates = current[:len(current)-1]
	}
	return cur, duplicates, old, controllers.MaxRevision(old) + 1
}

// HistoryToPrune is cleanupHistory's choice: of the old revisions beyond
// revisionHistoryLimit, oldest first, those no pod still runs. Unlike the
// StatefulSet's, the count includes old revisions that pods still use:
// such a revision is kept but still counts towards the ones to delete.
func HistoryToPrune(ds *appsv1.DaemonSet, old []*appsv1.ControllerRevision, pods []*corev1.Pod) []*appsv1.ControllerRevision {
	limit := 10
	if ds.Spec.RevisionHistoryLimit != nil {
		limit = int(*ds.Spec.RevisionHistoryLimit)
	}
	toKill := len(old) - limit
	if toKill <= 0 {
		return nil
	}
	live := map[string]bool{}
	for _, p := range pods {
		if h := p.Labels[appsv1.ControllerRevisionHashLabelKey]; h != "" {
			live[h] = true
		}
	}
	sorted := append([]*appsv1.ControllerRevision(nil), old...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Revision < sorted[j].Revision })
	var out []*appsv1.ControllerRevision
	for _, r := range sorted {
		if toKill <= 0 {
			break
		}
		if live[r.Labels[appsv1.ControllerRevisionHashLabelKey]] {
			continue
		}
		out = append(out, r)
		toKill--
	}
	return out
}
