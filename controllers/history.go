package controllers

// This file is the controllers' shared history of pod templates, as
// Kubernetes keeps it in pkg/controller/history and the two controllers
// that use it (StatefulSet and DaemonSet): one ControllerRevision per
// distinct template, its data a strategic merge patch that puts that
// template back ("$patch": "replace"), numbered in order. A template seen
// before is renumbered as the newest (a rollback), and revisions beyond
// revisionHistoryLimit that no pod uses are deleted. `kubectl rollout
// history|undo` read these revisions and PATCH their data onto the owner.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
)

// TemplatePatch is the data of a revision (the controllers' getPatch): the
// template alone, marked to replace the whole template when applied, so
// that `kubectl rollout undo` can PATCH it onto the owner as it is.
func TemplatePatch(template *corev1.PodTemplateSpec) ([]byte, error) {
	raw, err := json.Marshal(template)
	if err != nil {
		return nil, err
	}
	var t map[string]any
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	t["$patch"] = "replace"
	// kubesim serves as Kubernetes 1.32, whose types wrote a template's
	// unset creationTimestamp as null (the omitzero of later releases
	// leaves it out). kubectl rollout undo compares a revision's bytes with
	// the patch it computes itself, so the revision keeps 1.32's bytes.
	if md, ok := t["metadata"].(map[string]any); ok {
		if _, set := md["creationTimestamp"]; !set {
			md["creationTimestamp"] = nil
		}
	}
	// Maps marshal with sorted keys: the same template gives the same
	// bytes, hence the same hash, on every run.
	return json.Marshal(map[string]any{"spec": map[string]any{"template": t}})
}

// RevisionTemplate is the template a revision's data puts back (the
// effect of its "$patch": "replace" template on the owner).
func RevisionTemplate(revision *appsv1.ControllerRevision) (*corev1.PodTemplateSpec, error) {
	var patch struct {
		Spec struct {
			Template *corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(revision.Data.Raw, &patch); err != nil {
		return nil, fmt.Errorf("revision %s: %w", revision.Name, err)
	}
	if patch.Spec.Template == nil {
		return nil, fmt.Errorf("revision %s holds no template", revision.Name)
	}
	return patch.Spec.Template, nil
}

// HashControllerRevision is history.HashControllerRevision: FNV-32 (not
// 32a) of the data and of the collision count's decimal digits when there
// is one, safe-encoded.
func HashControllerRevision(data []byte, collisionCount *int32) string {
	h := fnv.New32()
	h.Write(data)
	if collisionCount != nil {
		h.Write([]byte(strconv.FormatInt(int64(*collisionCount), 10)))
	}
	return SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// ControllerRevisionName is history.ControllerRevisionName: prefix-hash,
// the prefix cut to 223 bytes so that the name fits in 253.
func ControllerRevisionName(prefix, hash string) string {
	if len(prefix) > 223 {
		prefix = prefix[:223]
	}
	return prefix + "-" + hash
}

// SortControllerRevisions orders revisions by revision number, oldest
// first (ties by creation then name).
func SortControllerRevisions(revisions []*appsv1.ControllerRevision) {
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

// MaxRevision is the highest revision number (0 for none).
func MaxRevision(revisions []*appsv1.ControllerRevision) int64 {
	var max int64
	for _, r := range revisions {
		if r.Revision > max {
			max = r.Revision
		}
	}
	return max
}

// EqualRevision reports whether two revisions hold the same data (the
// hash labels first, when both have one, then the bytes).
func EqualRevision(a, b *appsv1.ControllerRevision, hashLabel string) bool {
	if a == nil || b == nil {
		return a == b
	}
	ha, hb := a.Labels[hashLabel], b.Labels[hashLabel]
	if ha != "" && hb != "" && ha != hb {
		return false
	}
	return bytes.Equal(a.Data.Raw, b.Data.Raw)
}

// FindEqualRevisions returns the revisions that hold needle's data, in
// their order.
func FindEqualRevisions(revisions []*appsv1.ControllerRevision, needle *appsv1.ControllerRevision, hashLabel string) []*appsv1.ControllerRevision {
	var out []*appsv1.ControllerRevision
	for _, r := range revisions {
		if EqualRevision(r, needle, hashLabel) {
			out = append(out, r)
		}
	}
	return out
}

// RevisionsToPrune is the choice of both controllers' history cleanup:
// the revisions not live (current, updating, or the revision of a pod),
// oldest first, beyond limit (10 when nil). revisions are sorted by
// SortControllerRevisions.
func RevisionsToPrune(revisions []*appsv1.ControllerRevision, live map[string]bool, limit *int32) []*appsv1.ControllerRevision {
	var history []*appsv1.ControllerRevision
	for _, r := range revisions {
		if !live[r.Name] {
			history = append(history, r)
		}
	}
	keep := 10
	if limit != nil {
		keep = int(*limit)
	}
	if len(history) <= keep {
		return nil
	}
	return history[:len(history)-keep]
}

// RenumberRevision is history.UpdateControllerRevision: an old template
// comes back as the newest revision under its old name.
func RenumberRevision(ctx context.Context, res *client.Resource[*appsv1.ControllerRevision], cr *appsv1.ControllerRevision, revision int64) (*appsv1.ControllerRevision, error) {
	if cr.Revision == revision {
		return cr, nil
	}
	clone := cr.DeepCopy()
	clone.Revision = revision
	return res.Update(ctx, clone)
}

// DeleteRevisions deletes revisions, a revision already gone being no
// error.
func DeleteRevisions(ctx context.Context, res *client.Resource[*appsv1.ControllerRevision], revisions []*appsv1.ControllerRevision) error {
	for _, r := range revisions {
		if err := res.Delete(ctx, r.Namespace, r.Name, nil); err != nil && !api.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// ClaimRevisions returns owner's ControllerRevisions among candidates
// (those it owns and the orphans of its namespace), adopting the orphans
// its selector matches and releasing the ones it no longer matches
// (ClaimControllerRevisions): an owner deleted with --cascade=orphan and
// created again takes its history back.
func ClaimRevisions(ctx context.Context, res *client.Resource[*appsv1.ControllerRevision], owner *metav1.ObjectMeta, ownerKind schema.GroupVersionKind,
	matches func(*appsv1.ControllerRevision) bool, getFresh func(context.Context) (*metav1.ObjectMeta, error), candidates []*appsv1.ControllerRevision) ([]*appsv1.ControllerRevision, error) {
	return ClaimObjects(ctx, ClaimConfig[*appsv1.ControllerRevision]{
		Owner: owner, OwnerKind: ownerKind, Dependents: res, DependentKind: "ControllerRevision",
		Match: matches, GetFresh: getFresh,
	}, candidates)
}
