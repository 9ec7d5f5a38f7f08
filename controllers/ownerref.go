package controllers

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
)

// AdoptPatch is the strategic merge patch that makes owner the controller
// of a dependent: it adds a controller ownerReference and names the
// dependent's uid, so that a namesake created meanwhile is not adopted by
// mistake (the patch then fails). Kubernetes' ControllerRefManager sends
// the same patch.
func AdoptPatch(owner *metav1.ObjectMeta, gvk schema.GroupVersionKind, dependentUID types.UID) ([]byte, error) {
	return json.Marshal(map[string]any{"metadata": map[string]any{
		"ownerReferences": []any{api.NewControllerRef(owner, gvk)},
		"uid":             dependentUID,
	}})
}

// ReleasePatch is the strategic merge patch that removes the reference to
// the owner with ownerUID from a dependent whose labels stopped matching.
func ReleasePatch(ownerUID, dependentUID types.UID) ([]byte, error) {
	return json.Marshal(map[string]any{"metadata": map[string]any{
		"ownerReferences": []any{map[string]any{"$patch": "delete", "uid": ownerUID}},
		"uid":             dependentUID,
	}})
}
