package statefulset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers"
)

// This file is the StatefulSet's side of the history the controller kit
// keeps (controllers/history.go, pkg/controller/history;
// stateful_set_utils.go's newRevision, ApplyRevision, nextRevision): one
// ControllerRevision per distinct template, named "<set>-<hash>" with the
// hash of its data, whose data is a strategic merge patch that puts that
// template back.

// ControllerRevisionHashLabel labels a revision with the hash in its name.
const ControllerRevisionHashLabel = "controller.kubernetes.io/hash"

// Patch is the data of the set's revision (getPatch): its template, to
// replace the whole template when applied (controllers.TemplatePatch).
func Patch(set *appsv1.StatefulSet) ([]byte, error) {
	return controllers.TemplatePatch(&set.Spec.Template)
}

// NewRevision is newRevision: the set's template as revision number
// revision, labelled like the template (plus the hash), annotated like the
// set and controlled by it.
func NewRevision(set *appsv1.StatefulSet, revision int64, collisionCount *int32) (*appsv1.ControllerRevision, error) {
	data, err := Patch(set)
	if err != nil {
		return nil, err
	}
	lbls := map[string]string{}
	for k, v := range set.Spec.Template.Labels {
		lbls[k] = v
	}
	hash := controllers.HashControllerRevision(data, collisionCount)
	lbls[ControllerRevisionHashLabel] = hash
	cr := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: controllers.ControllerRevisionName(set.Name, hash), Namespace: set.Namespace, Labels: lbls,
			OwnerReferences: []metav1.OwnerReference{*api.NewControllerRef(&set.ObjectMeta, GroupVersionKind)}},
		Data:     runtime.RawExtension{Raw: data},
		Revision: revision,
	}
	if len(set.Annotations) > 0 {
		cr.Annotations = map[string]string{}
		for k, v := range set.Annotations {
			cr.Annotations[k] = v
		}
	}
	return cr, nil
}

// ApplyRevision returns a copy of set with the template of revision (the
// effect of its "$patch": "replace" template on the set).
func ApplyRevision(set *appsv1.StatefulSet, revision *appsv1.ControllerRevision) (*appsv1.StatefulSet, error) {
	template, err := controllers.RevisionTemplate(revision)
	if err != nil {
		return nil, err
	}
	out := set.DeepCopy()
	out.Spec.Template = *template
	return out, nil
}

// NextRevision is one more than the highest revision (1 for none).
func NextRevision(revisions []*appsv1.ControllerRevision) int64 {
	return controllers.MaxRevision(revisions) + 1
}

// RevisionsToPrune is truncateHistory's choice: the revisions neither
// current, updating, nor the revision of a pod, oldest first, beyond the
// set's revisionHistoryLimit. revisions are sorted by
// controllers.SortControllerRevisions.
func RevisionsToPrune(set *appsv1.StatefulSet, pods []*corev1.Pod, revisions []*appsv1.ControllerRevision, current, update string) []*appsv1.ControllerRevision {
	live := map[string]bool{current: true, update: true}
	for _, p := range pods {
		live[PodRevision(p)] = true
	}
	return controllers.RevisionsToPrune(revisions, live, set.Spec.RevisionHistoryLimit)
}
