package persistentvolume

import (
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
)

// The decisions of the binder, as pure functions over the objects the
// controller's informers hold (pkg/controller/volume/persistentvolume's
// index.go findBestMatchForClaim and pv_controller.go syncClaim and
// syncVolume, reduced).

// ClaimClass is the class a claim asks for: the beta annotation, then
// spec.storageClassName ("" for none).
func ClaimClass(pvc *api.PersistentVolumeClaim) string {
	if c, ok := pvc.Annotations["volume.beta.kubernetes.io/storage-class"]; ok {
		return c
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}

func volumeMode(m *api.PersistentVolumeMode) api.PersistentVolumeMode {
	if m == nil {
		return api.PersistentVolumeFilesystem
	}
	return *m
}

// IsPreBoundTo reports whether pv's claimRef names pvc (with its uid, or
// without a uid: a volume an administrator reserved for the claim).
func IsPreBoundTo(pv *api.PersistentVolume, pvc *api.PersistentVolumeClaim) bool {
	r := pv.Spec.ClaimRef
	return r != nil && r.Namespace == pvc.Namespace && r.Name == pvc.Name && (r.UID == "" || r.UID == string(pvc.UID))
}

// VolumeMatches reports whether pv can hold pvc: same class and volume
// mode, every access mode asked, enough capacity, the claim's selector,
// and (for a claim with a selected node) a node affinity that node meets.
// The volume must be free or reserved for the claim.
func VolumeMatches(pv *api.PersistentVolume, pvc *api.PersistentVolumeClaim, selectedNode *api.Node) bool {
	if pv.DeletionTimestamp != nil {
		return false
	}
	if pv.Spec.ClaimRef != nil && !IsPreBoundTo(pv, pvc) {
		return false
	}
	if pv.Status.Phase == api.VolumeReleased || pv.Status.Phase == api.VolumeFailed {
		return false
	}
	if pv.Spec.StorageClassName != ClaimClass(pvc) || volumeMode(pv.Spec.VolumeMode) != volumeMode(pvc.Spec.VolumeMode) {
		return false
	}
	for _, m := range pvc.Spec.AccessModes {
		if !slices.Contains(pv.Spec.AccessModes, m) {
			return false
		}
	}
	want := pvc.Spec.Resources.Requests[api.ResourceStorage]
	have := pv.Spec.Capacity[api.ResourceStorage]
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
func FindBestMatch(pvc *api.PersistentVolumeClaim, pvs []*api.PersistentVolume, selectedNode *api.Node) *api.PersistentVolume {
	var best *api.PersistentVolume
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
		a, b := pv.Spec.Capacity[api.ResourceStorage], best.Spec.Capacity[api.ResourceStorage]
		if c := a.Cmp(b); c < 0 || (c == 0 && pv.Name < best.Name) {
			best = pv
		}
	}
	return best
}

// ProvisionedVolume is the volume the simulated provisioner makes for pvc
// of class sc: named pvc-<claim uid>, as every provisioner names them,
// the claim's size and modes, the class's reclaim policy, reserved for the
// claim, and — for a claim the scheduler placed (WaitForFirstConsumer) —
// reachable only from the selected node, as a node-local hostPath is.
func ProvisionedVolume(pvc *api.PersistentVolumeClaim, sc *api.StorageClass, provisioner string) *api.PersistentVolume {
	name := "pvc-" + string(pvc.UID)
	reclaim := api.PersistentVolumeReclaimDelete
	if sc.ReclaimPolicy != nil {
		reclaim = *sc.ReclaimPolicy
	}
	mode := volumeMode(pvc.Spec.VolumeMode)
	size := pvc.Spec.Resources.Requests[api.ResourceStorage]
	pv := &api.PersistentVolume{
		ObjectMeta: api.ObjectMeta{Name: name, Annotations: map[string]string{api.AnnDynamicallyProvisioned: provisioner}},
		Spec: api.PersistentVolumeSpec{
			Capacity: api.ResourceList{api.ResourceStorage: size},
			PersistentVolumeSource: api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{
				Path: fmt.Sprintf("/var/local-path-provisioner/%s_%s_%s", name, pvc.Namespace, pvc.Name)}},
			AccessModes: slices.Clone(pvc.Spec.AccessModes),
			ClaimRef: &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace,
				Name: pvc.Name, UID: string(pvc.UID), ResourceVersion: pvc.ResourceVersion},
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              sc.Name,
			MountOptions:                  slices.Clone(sc.MountOptions),
			VolumeMode:                    &mode,
		},
	}
	if node := pvc.Annotations[api.AnnSelectedNode]; node != "" {
		pv.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: api.LabelHostname, Operator: api.NodeSelectorOpIn, Values: []string{node}}},
		}}}}
	}
	return pv
}

// VolumePhase is the phase pv should have given the claim its claimRef
// names (nil when that claim is gone or is another one by the same name):
// Available when free, Bound when the claim holds it, Released when the
// claim it was bound to went away.
func VolumePhase(pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) api.PersistentVolumePhase {
	ref := pv.Spec.ClaimRef
	switch {
	case ref == nil:
		return api.VolumeAvailable
	case ref.UID == "":
		// Reserved by an administrator for a claim not bound yet.
		return api.VolumeAvailable
	case claim == nil || string(claim.UID) != ref.UID:
		return api.VolumeReleased
	case claim.Spec.VolumeName == pv.Name:
		return api.VolumeBound
	default:
		// The binder wrote the volume's half and not yet the claim's.
		return api.VolumeBound
	}
}

// ClaimStatus is the status a bound claim shows: the volume's modes and
// capacity.
func ClaimStatus(pv *api.PersistentVolume) api.PersistentVolumeClaimStatus {
	capacity := api.ResourceList{}
	for k, v := range pv.Spec.Capacity {
		capacity[k] = v
	}
	return api.PersistentVolumeClaimStatus{Phase: api.ClaimBound, AccessModes: slices.Clone(pv.Spec.AccessModes), Capacity: capacity}
}
