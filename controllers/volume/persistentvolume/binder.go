package persistentvolume

import (
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/volume"
)

// The decisions of the binder, as pure functions over the objects the
// controller's informers hold (pkg/controller/volume/persistentvolume's
// index.go findBestMatchForClaim and pv_controller.go syncClaim and
// syncVolume, reduced).

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
	mode := volume.VolumeMode(pvc.Spec.VolumeMode)
	size := pvc.Spec.Resources.Requests[api.ResourceStorage]
	pv := &api.PersistentVolume{
		ObjectMeta: api.ObjectMeta{Name: name, Annotations: map[string]string{api.AnnDynamicallyProvisioned: provisioner}},
		Spec: api.PersistentVolumeSpec{
			Capacity: api.ResourceList{api.ResourceStorage: size},
			PersistentVolumeSource: api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{
				Path: fmt.Sprintf("/var/local-path-provisioner/%s_%s_%s", name, pvc.Namespace, pvc.Name)}},
			AccessModes: slices.Clone(pvc.Spec.AccessModes),
			ClaimRef: &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace,
				Name: pvc.Name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion},
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
	case claim == nil || claim.UID != ref.UID:
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
