package volume

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
)

// ClaimClass is the class a claim asks for: the beta annotation, then
// spec.storageClassName ("" for none).
func ClaimClass(pvc *corev1.PersistentVolumeClaim) string {
	if c, ok := pvc.Annotations["volume.beta.kubernetes.io/storage-class"]; ok {
		return c
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}

// VolumeMode is m, Filesystem when unset.
func VolumeMode(m *corev1.PersistentVolumeMode) corev1.PersistentVolumeMode {
	if m == nil {
		return corev1.PersistentVolumeFilesystem
	}
	return *m
}

// IsPreBoundTo reports whether pv's claimRef names pvc (with its uid, or
// without a uid: a volume an administrator reserved for the claim).
func IsPreBoundTo(pv *corev1.PersistentVolume, pvc *corev1.PersistentVolumeClaim) bool {
	r := pv.Spec.ClaimRef
	return r != nil && r.Namespace == pvc.Namespace && r.Name == pvc.Name && (r.UID == "" || r.UID == pvc.UID)
}

// VolumeMatches reports whether pv can hold pvc: same class and volume
// mode, every access mode asked, enough capacity, the claim's selector,
// and (for a claim with a selected node) a node affinity that node meets.
// The volume must be free or reserved for the claim.
func VolumeMatches(pv *corev1.PersistentVolume, pvc *corev1.PersistentVolumeClaim, selectedNode *corev1.Node) bool {
	if pv.DeletionTimestamp != nil {
		return false
	}
	if pv.Spec.ClaimRef != nil && !IsPreBoundTo(pv, pvc) {
		return false
	}
	if pv.Status.Phase == corev1.VolumeReleased || pv.Status.Phase == corev1.VolumeFailed {
		return false
	}
	if pv.Spec.StorageClassName != ClaimClass(pvc) || VolumeMode(pv.Spec.VolumeMode) != VolumeMode(pvc.Spec.VolumeMode) {
		return false
	}
	for _, m := range pvc.Spec.AccessModes {
		if !slices.Contains(pv.Spec.AccessModes, m) {
			return false
		}
	}
	want := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	have := pv.Spec.Capacity[corev1.ResourceStorage]
	if have.Cmp(want) < 0 {
		return false
	}
	if pvc.Spec.Selector != nil {
		sel, err := api.LabelSelectorAsSelector(pvc.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pv.Labels)) {
			return false
		}
	}
	if selectedNode != nil && pv.Spec.NodeAffinity != nil && !api.NodeSelectorMatches(pv.Spec.NodeAffinity.Required, selectedNode) {
		return false
	}
	return true
}

// FindBestMatch is the volume to bind pvc to: one reserved for the claim
// first, else the smallest that fits (ties by name, so that the choice
// repeats); nil when none fits.
func FindBestMatch(pvc *corev1.PersistentVolumeClaim, pvs []*corev1.PersistentVolume, selectedNode *corev1.Node) *corev1.PersistentVolume {
	var best *corev1.PersistentVolume
	for _, pv := range pvs {
		if !VolumeMatches(pv, pvc, selectedNode) {
			continue
		}
		if IsPreBoundTo(pv, pvc) {
			return pv
		}
		if best == nil {
			best = pv
			continue
		}
		a, b := pv.Spec.Capacity[corev1.ResourceStorage], best.Spec.Capacity[corev1.ResourceStorage]
		if c := a.Cmp(b); c < 0 || (c == 0 && pv.Name < best.Name) {
			best = pv
		}
	}
	return best
}
