package kubelet

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// The volume manager, reduced to the one thing a simulated node can
// check: a pod's containers are not started before every
// PersistentVolumeClaim it mounts is bound (the desired-state-of-world
// populator refuses a claim that is not, and WaitForAttachAndMount fails
// the pod's sync). Nothing is attached or mounted for real.

// workerBackOffPeriod is how long the kubelet's pod worker waits before
// it syncs a pod again after a failed sync — here, after a claim was
// found unbound.
const workerBackOffPeriod = 10 * time.Second

// ClaimGetter reads a claim from the API server.
type ClaimGetter func(ctx context.Context, namespace, name string) (*corev1.PersistentVolumeClaim, error)

// MountError is why pod's claims cannot be mounted yet, in the words of
// the kubelet's FailedMount event ("Unable to attach or mount volumes:
// unmounted volumes=[data], unattached volumes=[], failed to process
// volumes=[data]: error processing PVC default/data: PVC is not bound"),
// or "" when every claim is bound. A pure function of the claims.
func MountError(ctx context.Context, pod *corev1.Pod, get ClaimGetter) (string, error) {
	var failed, errs []string
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		name := v.PersistentVolumeClaim.ClaimName
		pvc, err := get(ctx, pod.Namespace, name)
		var why string
		switch {
		case api.IsNotFound(err):
			why = fmt.Sprintf("failed to fetch PVC from API server: persistentvolumeclaims %q not found", name)
		case err != nil:
			return "", err
		case pvc.DeletionTimestamp != nil:
			// The populator's own words for a claim being deleted.
			errs = append(errs, fmt.Sprintf("can't start pod because PVC %s/%s is being deleted", pod.Namespace, name))
			failed = append(failed, v.Name)
			continue
		case pvc.Status.Phase != corev1.ClaimBound || pvc.Spec.VolumeName == "":
			why = "PVC is not bound"
		default:
			continue
		}
		failed = append(failed, v.Name)
		errs = append(errs, fmt.Sprintf("error processing PVC %s/%s: %s", pod.Namespace, name, why))
	}
	if len(failed) == 0 {
		return "", nil
	}
	sort.Strings(failed)
	list := strings.Join(failed, " ")
	return fmt.Sprintf("Unable to attach or mount volumes: unmounted volumes=[%s], unattached volumes=[], failed to process volumes=[%s]: %s",
		list, list, strings.Join(errs, "; ")), nil
}

// hasClaims reports whether pod mounts any PersistentVolumeClaim.
func hasClaims(pod *corev1.Pod) bool {
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			return true
		}
	}
	return false
}

// claimsMountable is the kubelet's check before it starts a pod's
// containers: "" when they may start, else the FailedMount message.
func (k *Kubelet) claimsMountable(ctx context.Context, pod *corev1.Pod) (string, error) {
	if !hasClaims(pod) {
		return "", nil
	}
	return MountError(ctx, pod, k.c.PersistentVolumeClaims().Get)
}

// The rest of the volume manager: the storage a container's writable
// mounts are given (containerenv.VolumeSource). An emptyDir is made with
// its pod, shared by the pod's containers and their restarts, and dropped
// when the pod leaves the node (its medium, disk or Memory, goes with the
// pod either way); it is kept in memory, so a new kubelet that adopts a
// running pod finds it empty. A claim's storage is the data of the PersistentVolume
// bound to it (Config.VolumeData), which outlives the pod.

// podEmptyDirs are one pod's emptyDir volumes.
type podEmptyDirs struct {
	uid  types.UID
	vols map[string]*shell.MemoryVolume
}

// podVolume is the storage of pod's volume vol: ok is false for another
// kind of volume, or a claim not bound (yet).
func (k *Kubelet) podVolume(ctx context.Context, pod *corev1.Pod, vol *corev1.Volume) (shell.Volume, bool) {
	switch {
	case vol.EmptyDir != nil:
		return k.emptyDir(pod, vol.Name), true
	case vol.PersistentVolumeClaim != nil:
		pvc, err := k.c.PersistentVolumeClaims().Get(ctx, pod.Namespace, vol.PersistentVolumeClaim.ClaimName)
		if err != nil || pvc.Spec.VolumeName == "" {
			return nil, false
		}
		pv, err := k.c.PersistentVolumes().Get(ctx, "", pvc.Spec.VolumeName)
		if err != nil {
			return nil, false
		}
		if pv.Spec.CSI != nil {
			// What its driver published for the pod (csivolumes.go).
			return k.csiVolume(pod, vol.Name)
		}
		v, err := k.cfg.VolumeData.Volume(pv.Name, pv.UID)
		if err != nil {
			k.logger.Error("mounting a volume", "pod", pod.Namespace+"/"+pod.Name, "volume", pv.Name, "err", err)
			return nil, false
		}
		return v, true
	}
	return nil, false
}

// emptyDir is the emptyDir volume name of pod, made at first use.
func (k *Kubelet) emptyDir(pod *corev1.Pod, name string) *shell.MemoryVolume {
	key := pod.Namespace + "/" + pod.Name
	k.volMu.Lock()
	defer k.volMu.Unlock()
	if k.emptyDirs == nil {
		k.emptyDirs = map[string]*podEmptyDirs{}
	}
	dirs := k.emptyDirs[key]
	if dirs == nil || dirs.uid != pod.UID {
		dirs = &podEmptyDirs{uid: pod.UID, vols: map[string]*shell.MemoryVolume{}}
		k.emptyDirs[key] = dirs
	}
	v := dirs.vols[name]
	if v == nil {
		v = shell.NewMemoryVolume()
		dirs.vols[name] = v
	}
	return v
}

// forgetEmptyDirs drops the emptyDirs of the pod key, unless they are
// those of the pod keep (a new pod of the name): the pod left the node.
func (k *Kubelet) forgetEmptyDirs(key string, keep types.UID) {
	k.volMu.Lock()
	defer k.volMu.Unlock()
	if d := k.emptyDirs[key]; d != nil && (keep == "" || d.uid != keep) {
		delete(k.emptyDirs, key)
	}
}
