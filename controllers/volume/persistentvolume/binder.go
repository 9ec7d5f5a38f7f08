package persistentvolume

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
func ProvisionedVolume(pvc *corev1.PersistentVolumeClaim, sc *storagev1.StorageClass, provisioner string) *corev1.PersistentVolume {
	name := "pvc-" + string(pvc.UID)
	reclaim := corev1.PersistentVolumeReclaimDelete
	if sc.ReclaimPolicy != nil {
		reclaim = *sc.ReclaimPolicy
	}
	mode := volume.VolumeMode(pvc.Spec.VolumeMode)
	size := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{api.AnnDynamicallyProvisioned: provisioner}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{corev1.ResourceStorage: size},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: fmt.Sprintf("/var/local-path-provisioner/%s_%s_%s", name, pvc.Namespace, pvc.Name)}},
			AccessModes: slices.Clone(pvc.Spec.AccessModes),
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace,
				Name: pvc.Name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion},
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              sc.Name,
			MountOptions:                  slices.Clone(sc.MountOptions),
			VolumeMode:                    &mode,
		},
	}
	if node := pvc.Annotations[api.AnnSelectedNode]; node != "" {
		pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
		}}}}
	}
	return pv
}

// VolumePhase is the phase pv should have given the claim its claimRef
// names (nil when that claim is gone or is another one by the same name):
// Available when free, Bound when the claim holds it, Released when the
// claim it was bound to went away.
func VolumePhase(pv *corev1.PersistentVolume, claim *corev1.PersistentVolumeClaim) corev1.PersistentVolumePhase {
	ref := pv.Spec.ClaimRef
	switch {
	case ref == nil:
		return corev1.VolumeAvailable
	case ref.UID == "":
		// Reserved by an administrator for a claim not bound yet.
		return corev1.VolumeAvailable
	case claim == nil || claim.UID != ref.UID:
		return corev1.VolumeReleased
	case claim.Spec.VolumeName == pv.Name:
		return corev1.VolumeBound
	default:
		// The binder wrote the volume's half and not yet the claim's.
		return corev1.VolumeBound
	}
}

// ClaimStatus is the status a bound claim shows: the volume's modes and
// capacity.
func ClaimStatus(pv *corev1.PersistentVolume) corev1.PersistentVolumeClaimStatus {
	capacity := corev1.ResourceList{}
	for k, v := range pv.Spec.Capacity {
		capacity[k] = v
	}
	return corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: slices.Clone(pv.Spec.AccessModes), Capacity: capacity}
}
