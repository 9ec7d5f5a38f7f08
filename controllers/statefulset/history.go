package statefulset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers"
)

// This file is the StatefulSet's history (pkg/controller/history and
// stateful_set_utils.go's newRevision, ApplyRevision, nextRevision): one
// ControllerRevision per distinct template, named "<set>-<hash>", whose
// data is a strategic merge patch that puts that template back.

// ControllerRevisionHashLabel labels a revision with the hash in its name.
const ControllerRevisionHashLabel = "controller.kubernetes.io/hash"

// Patch is the data of the set's revision (getPatch): the template alone,
// marked to replace the whole template when applied, so that `kubectl
// rollout undo` can PATCH it onto the set as it is.
func Patch(set *api.StatefulSet) ([]byte, error) {
	raw, err := json.Marshal(&set.Spec.Template)
	if err != nil {
		return nil, err
	}
	var template map[string]any
	if err := json.Unmarshal(raw, &template); err != nil {
		return nil, err
	}
	template["$patch"] = "replace"
	// Maps marshal with sorted keys: the same template gives the same
	// bytes, hence the same hash, on every run.
	return json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
}

// HashRevision is HashControllerRevision: FNV-32 (not 32a) of the data and
// of the collision count's decimal digits when there is one, safe-encoded.
func HashRevision(data []byte, collisionCount *int32) string {
	h := fnv.New32()
	h.Write(data)
	if collisionCount != nil {
		h.Write([]byte(strconv.FormatInt(int64(*collisionCount), 10)))
	}
	return controllers.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// RevisionName is ControllerRevisionName: prefix-hash, the prefix cut to
// 223 bytes so that the name fits in 253.
func RevisionName(prefix, hash string) string {
	if len(prefix) > 223 {
		prefix = prefix[:223]
	}
	return prefix + "-" + hash
}

// NewRevision is newRevision: the set's template as revision number
// revision, labelled like the template (plus the hash), annotated like the
// set and controlled by it.
func NewRevision(set *api.StatefulSet, revision int64, collisionCount *int32) (*api.ControllerRevision, error) {
	data, err := Patch(set)
	if err != nil {
		return nil, err
	}
	lbls := map[string]string{}
	for k, v := range set.Spec.Template.Labels {
		lbls[k] = v
	}
	hash := HashRevision(data, collisionCount)
	lbls[ControllerRevisionHashLabel] = hash
	cr := &api.ControllerRevision{
		ObjectMeta: api.ObjectMeta{Name: RevisionName(set.Name, hash), Namespace: set.Namespace, Labels: lbls,
			OwnerReferences: []api.OwnerReference{*api.NewControllerRef(&set.ObjectMeta, GroupVersionKind)}},
		Data:     api.RawExtension{Raw: data},
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
func ApplyRevision(set *api.StatefulSet, revision *api.ControllerRevision) (*api.StatefulSet, error) {
	var patch struct {
		Spec struct {
			Template *api.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(revision.Data.Raw, &patch); err != nil {
		return nil, fmt.Errorf("revision %s: %w", revision.Name, err)
	}
	if patch.Spec.Template == nil {
		return nil, fmt.Errorf("revision %s holds no template", revision.Name)
	}
	out := set.DeepCopy()
	out.Spec.Template = *patch.Spec.Template
	return out, nil
}

// SortRevisions orders revisions by revision number, oldest first
// (SortControllerRevisions; ties by creation then name).
func SortRevisions(revisions []*api.ControllerRevision) {
	sort.SliceStable(revisions, func(i, j int) bool {
		a, b := revisions[i], revisions[j]
		if a.Revision != b.Revision {
			return a.Revision < b.Revision
		}
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Time.Before(b.CreationTimestamp.Time)
		}
		return a.Name < b.Name
	})
}

// NextRevision is one more than the highest revision (1 for none), given
// revisions sorted by SortRevisions.
func NextRevision(revisions []*api.ControllerRevision) int64 {
	if len(revisions) == 0 {
		return 1
	}
	return revisions[len(revisions)-1].Revision + 1
}

// EqualRevision reports whether two revisions hold the same data (the
// hash labels first, then the bytes).
func EqualRevision(a, b *api.ControllerRevision) bool {
	if a == nil || b == nil {
		return a == b
	}
	ha, hb := a.Labels[ControllerRevisionHashLabel], b.Labels[ControllerRevisionHashLabel]
	if ha != "" && hb != "" && ha != hb {
		return false
	}
	return bytes.Equal(a.Data.Raw, b.Data.Raw)
}

// FindEqualRevisions returns the revisions that hold needle's data, in
// their order.
func FindEqualRevisions(revisions []*api.ControllerRevision, needle *api.ControllerRevision) []*api.ControllerRevision {
	var out []*api.ControllerRevision
	for _, r := range revisions {
		if EqualRevision(r, needle) {
			out = append(out, r)
		}
	}
	return out
}

// RevisionsToPrune is truncateHistory's choice: the revisions neither
// current, updating, nor the revision of a pod, oldest first, beyond the
// set's revisionHistoryLimit. revisions are sorted by SortRevisions.
func RevisionsToPrune(set *api.StatefulSet, pods []*api.Pod, revisions []*api.ControllerRevision, current, update string) []*api.ControllerRevision {
	live := map[string]bool{current: true, update: true}
	for _, p := range pods {
		live[PodRevision(p)] = true
	}
	var history []*api.ControllerRevision
	for _, r := range revisions {
		if !live[r.Name] {
			history = append(history, r)
		}
	}
	limit := 10
	if set.Spec.RevisionHistoryLimit != nil {
		limit = int(*set.Spec.RevisionHistoryLimit)
	}
	if len(history) <= limit {
		return nil
	}
	return history[:len(history)-limit]
}
