package kubelet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	csipb "github.com/container-storage-interface/spec/lib/go/csi"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/kubelet/csi"
	"github.com/kubesim/kubesim/kubelet/shell"
	"github.com/kubesim/kubesim/kubelet/volumedata"
)

// The kubelet's CSI volume plugin (pkg/volume/csi): before a pod's
// containers start, each of its claims whose volume is a CSI driver's is
// attached (the kubelet waits for the VolumeAttachment the external
// attacher marks attached, when the driver's CSIDriver asks for attach),
// staged once per node (NodeStageVolume into a global path, when the
// driver has STAGE_UNSTAGE_VOLUME) and published into the pod's volume
// directory (NodePublishVolume); the containers are given the published
// directory. After the pod ends: NodeUnpublishVolume, then
// NodeUnstageVolume once no pod of the node uses the volume. A call that
// fails is the pod's FailedMount event in the kubelet's words and the
// pod worker tries again after its back-off; an unmount that fails is
// tried again by the plugin loop.

// attachPollInterval is how often the pod worker looks again for its
// volume's attachment (the kubelet's WaitForAttach polls).
const attachPollInterval = time.Second

// csiMount is one CSI volume of one pod on this node.
type csiMount struct {
	pod            string
	pv             string
	driver, handle string
	// staging is the volume's global path ("" when the driver does not
	// stage); target the pod's, once published.
	staging, target string
	published       bool
}

// podCSIMounts are one pod's CSI volumes, by the pod's volume name.
type podCSIMounts struct {
	uid    types.UID
	mounts map[string]*csiMount
}

// stagingPath is where a volume is staged on the node.
func (k *Kubelet) stagingPath(driver, handle string) string {
	sum := sha256.Sum256([]byte(handle))
	return filepath.Join(k.cfg.CSI.RootDir, "plugins", "kubernetes.io", "csi", driver, hex.EncodeToString(sum[:]), "globalmount")
}

// targetPath is where a pod's volume is published.
func (k *Kubelet) targetPath(uid types.UID, pv string) string {
	return filepath.Join(k.cfg.CSI.RootDir, "pods", string(uid), "volumes", "kubernetes.io~csi", pv, "mount")
}

// mountCSIVolumes attaches, stages and publishes the pod's CSI volumes
// not mounted yet. msg is the FailedMount message; wait says the pod
// waits for an attachment (no event: the attacher is at work). Called
// with stateMu held.
func (k *Kubelet) mountCSIVolumes(ctx context.Context, pod *corev1.Pod) (msg string, wait bool, err error) {
	if k.cfg.CSI == nil {
		return "", false, nil
	}
	key := pod.Namespace + "/" + pod.Name
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil || k.csiMounted(key, pod.UID, v.Name) {
			continue
		}
		pvc, err := k.c.PersistentVolumeClaims().Get(ctx, pod.Namespace, v.PersistentVolumeClaim.ClaimName)
		if err != nil {
			return "", false, err
		}
		pv, err := k.c.PersistentVolumes().Get(ctx, "", pvc.Spec.VolumeName)
		if err != nil {
			return "", false, err
		}
		if pv.Spec.CSI == nil {
			continue
		}
		msg, wait, err := k.mountCSIVolume(ctx, pod, &v, pv)
		if msg != "" || wait || err != nil {
			return msg, wait, err
		}
	}
	return "", false, nil
}

// mountCSIVolume mounts one volume of pod.
func (k *Kubelet) mountCSIVolume(ctx context.Context, pod *corev1.Pod, vol *corev1.Volume, pv *corev1.PersistentVolume) (string, bool, error) {
	src := pv.Spec.CSI
	endpoint, ok := k.cfg.CSI.Drivers.NodeEndpoint(src.Driver, k.cfg.NodeName)
	if !ok {
		return fmt.Sprintf("MountVolume.MountDevice failed for volume %q : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name %s not found in the list of registered CSI drivers",
			pv.Name, src.Driver), false, nil
	}
	publishContext, attached, err := k.attachment(ctx, pv)
	if err != nil || !attached {
		return "", !attached && err == nil, err
	}
	conn, err := csi.Dial(endpoint)
	if err != nil {
		return "", false, err
	}
	defer conn.Close()
	call := k.csiCaller()
	what := src.Driver + " " + pv.Name
	capResp, err := csi.Call(ctx, call, "NodeGetCapabilities "+src.Driver, func(ctx context.Context) (*csipb.NodeGetCapabilitiesResponse, error) {
		return conn.Node.NodeGetCapabilities(ctx, &csipb.NodeGetCapabilitiesRequest{})
	})
	if err != nil {
		return fmt.Sprintf("MountVolume.MountDevice failed for volume %q : %v", pv.Name, err), false, nil
	}
	stages := slices.ContainsFunc(capResp.Capabilities, func(c *csipb.NodeServiceCapability) bool {
		return c.GetRpc().GetType() == csipb.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME
	})
	capability := &csipb.VolumeCapability{
		AccessType: &csipb.VolumeCapability_Mount{Mount: &csipb.VolumeCapability_MountVolume{FsType: src.FSType, MountFlags: pv.Spec.MountOptions}},
		AccessMode: &csipb.VolumeCapability_AccessMode{Mode: csiAccessMode(pv.Spec.AccessModes)}}
	key := pod.Namespace + "/" + pod.Name
	m := &csiMount{pod: key, pv: pv.Name, driver: src.Driver, handle: src.VolumeHandle}
	if stages {
		m.staging = k.stagingPath(src.Driver, src.VolumeHandle)
		if err := os.MkdirAll(filepath.Dir(m.staging), 0o750); err != nil {
			return "", false, err
		}
		_, err := csi.Call(ctx, call, "NodeStageVolume "+what, func(ctx context.Context) (*csipb.NodeStageVolumeResponse, error) {
			return conn.Node.NodeStageVolume(ctx, &csipb.NodeStageVolumeRequest{VolumeId: src.VolumeHandle, PublishContext: publishContext,
				StagingTargetPath: m.staging, VolumeCapability: capability, VolumeContext: src.VolumeAttributes})
		})
		if err != nil {
			// Unstaged again when the pod goes, should the driver have
			// done part of it.
			k.noteCSIMount(pod.UID, vol.Name, m)
			return fmt.Sprintf("MountVolume.MountDevice failed for volume %q : %v", pv.Name, err), false, nil
		}
	}
	k.noteCSIMount(pod.UID, vol.Name, m)
	target := k.targetPath(pod.UID, pv.Name)
	if err := os.MkdirAll(filepath.Dir(target), 0o750); err != nil {
		return "", false, err
	}
	readOnly := src.ReadOnly || vol.PersistentVolumeClaim.ReadOnly
	_, err = csi.Call(ctx, call, "NodePublishVolume "+what+" "+key, func(ctx context.Context) (*csipb.NodePublishVolumeResponse, error) {
		return conn.Node.NodePublishVolume(ctx, &csipb.NodePublishVolumeRequest{VolumeId: src.VolumeHandle, PublishContext: publishContext,
			StagingTargetPath: m.staging, TargetPath: target, VolumeCapability: capability, Readonly: readOnly, VolumeContext: src.VolumeAttributes})
	})
	k.volMu.Lock()
	m.target = target
	m.published = err == nil
	k.volMu.Unlock()
	if err != nil {
		return fmt.Sprintf("MountVolume.SetUp failed for volume %q : %v", pv.Name, err), false, nil
	}
	return "", false, nil
}

// attachment is the volume's attachment to this node: attached is true
// when the driver's CSIDriver says attach is not required, or once the
// VolumeAttachment is marked attached; the publish context is the
// attacher's metadata.
func (k *Kubelet) attachment(ctx context.Context, pv *corev1.PersistentVolume) (map[string]string, bool, error) {
	d, err := k.c.CSIDrivers().Get(ctx, "", pv.Spec.CSI.Driver)
	switch {
	case err == nil && d.Spec.AttachRequired != nil && !*d.Spec.AttachRequired:
		return nil, true, nil
	case err != nil && !api.IsNotFound(err):
		return nil, false, err
	}
	// No CSIDriver, or one that asks for attach: the attacher's work.
	va, err := k.c.VolumeAttachments().Get(ctx, "", csi.AttachmentName(pv.Spec.CSI.VolumeHandle, pv.Spec.CSI.Driver, k.cfg.NodeName))
	if api.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return va.Status.AttachmentMetadata, va.Status.Attached, nil
}

// csiAccessMode is the CSI access mode of a volume's first mode.
func csiAccessMode(modes []corev1.PersistentVolumeAccessMode) csipb.VolumeCapability_AccessMode_Mode {
	if len(modes) == 0 {
		return csipb.VolumeCapability_AccessMode_SINGLE_NODE_WRITER
	}
	switch modes[0] {
	case corev1.ReadOnlyMany:
		return csipb.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY
	case corev1.ReadWriteMany:
		return csipb.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER
	case corev1.ReadWriteOncePod:
		return csipb.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER
	}
	return csipb.VolumeCapability_AccessMode_SINGLE_NODE_WRITER
}

// noteCSIMount records m as pod uid's volume name.
func (k *Kubelet) noteCSIMount(uid types.UID, name string, m *csiMount) {
	k.volMu.Lock()
	defer k.volMu.Unlock()
	if k.csiMounts == nil {
		k.csiMounts = map[string]*podCSIMounts{}
	}
	p := k.csiMounts[m.pod]
	if p == nil || p.uid != uid {
		p = &podCSIMounts{uid: uid, mounts: map[string]*csiMount{}}
		k.csiMounts[m.pod] = p
	}
	p.mounts[name] = m
}

// csiMounted reports whether pod key (uid) has its volume name published.
func (k *Kubelet) csiMounted(key string, uid types.UID, name string) bool {
	k.volMu.Lock()
	defer k.volMu.Unlock()
	p := k.csiMounts[key]
	return p != nil && p.uid == uid && p.mounts[name] != nil && p.mounts[name].published
}

// csiVolume is the published directory of pod's volume name, if it is a
// CSI volume this kubelet published.
func (k *Kubelet) csiVolume(pod *corev1.Pod, name string) (shell.Volume, bool) {
	k.volMu.Lock()
	defer k.volMu.Unlock()
	p := k.csiMounts[pod.Namespace+"/"+pod.Name]
	if p == nil || p.uid != pod.UID || p.mounts[name] == nil || !p.mounts[name].published {
		return nil, false
	}
	return volumedata.Dir(p.mounts[name].target), true
}

// unmountCSIVolumes unpublishes and unstages the CSI volumes of pod key,
// unless they are those of the pod keep (a new pod of the name): its
// pod ended or left the node. Called with stateMu held.
func (k *Kubelet) unmountCSIVolumes(ctx context.Context, key string, keep types.UID) {
	if k.cfg.CSI == nil {
		return
	}
	k.volMu.Lock()
	p := k.csiMounts[key]
	if p == nil || (keep != "" && p.uid == keep) {
		k.volMu.Unlock()
		return
	}
	delete(k.csiMounts, key)
	var ms []*csiMount
	for _, name := range slices.Sorted(maps.Keys(p.mounts)) {
		ms = append(ms, p.mounts[name])
	}
	k.volMu.Unlock()
	for _, m := range ms {
		k.unmountCSI(ctx, m)
	}
}

// unmountCSI is NodeUnpublishVolume, then NodeUnstageVolume when no other
// pod of the node uses the staging path; after a failure m waits in
// csiUnmounts for the plugin loop's next try.
func (k *Kubelet) unmountCSI(ctx context.Context, m *csiMount) {
	if err := k.tryUnmountCSI(ctx, m); err != nil {
		k.logger.Info("unmounting a CSI volume failed", "pod", m.pod, "volume", m.pv, "err", err)
		k.volMu.Lock()
		k.csiUnmounts = append(k.csiUnmounts, m)
		k.volMu.Unlock()
	}
}

func (k *Kubelet) tryUnmountCSI(ctx context.Context, m *csiMount) error {
	endpoint, ok := k.cfg.CSI.Drivers.NodeEndpoint(m.driver, k.cfg.NodeName)
	if !ok {
		return fmt.Errorf("driver name %s not found in the list of registered CSI drivers", m.driver)
	}
	conn, err := csi.Dial(endpoint)
	if err != nil {
		return err
	}
	defer conn.Close()
	call := k.csiCaller()
	what := m.driver + " " + m.pv
	if m.target != "" {
		_, err := csi.Call(ctx, call, "NodeUnpublishVolume "+what+" "+m.pod, func(ctx context.Context) (*csipb.NodeUnpublishVolumeResponse, error) {
			return conn.Node.NodeUnpublishVolume(ctx, &csipb.NodeUnpublishVolumeRequest{VolumeId: m.handle, TargetPath: m.target})
		})
		if err != nil {
			return fmt.Errorf("UnmountVolume.TearDown failed for volume %q : %w", m.pv, err)
		}
		// The pod's volume directory goes with the publication.
		_ = os.RemoveAll(filepath.Dir(m.target))
		m.target, m.published = "", false
	}
	if m.staging == "" || k.stagingInUse(m.staging) {
		return nil
	}
	_, err = csi.Call(ctx, call, "NodeUnstageVolume "+what, func(ctx context.Context) (*csipb.NodeUnstageVolumeResponse, error) {
		return conn.Node.NodeUnstageVolume(ctx, &csipb.NodeUnstageVolumeRequest{VolumeId: m.handle, StagingTargetPath: m.staging})
	})
	if err != nil {
		return fmt.Errorf("UnmountDevice failed for volume %q : %w", m.pv, err)
	}
	_ = os.RemoveAll(filepath.Dir(m.staging))
	return nil
}

// stagingInUse reports whether a pod of the node still has a volume
// staged at path.
func (k *Kubelet) stagingInUse(path string) bool {
	k.volMu.Lock()
	defer k.volMu.Unlock()
	for _, p := range k.csiMounts {
		for _, m := range p.mounts {
			if m.staging == path {
				return true
			}
		}
	}
	return false
}

// retryCSIUnmounts tries the failed unmounts again. Called with stateMu
// held.
func (k *Kubelet) retryCSIUnmounts(ctx context.Context) {
	k.volMu.Lock()
	ms := k.csiUnmounts
	k.csiUnmounts = nil
	k.volMu.Unlock()
	for _, m := range ms {
		k.unmountCSI(ctx, m)
	}
}

// CSIMountsInUse counts the CSI volumes published or staged for pods,
// and those still to unmount: what a test checks is given back.
func (k *Kubelet) CSIMountsInUse() int {
	k.volMu.Lock()
	defer k.volMu.Unlock()
	n := len(k.csiUnmounts)
	for _, p := range k.csiMounts {
		n += len(p.mounts)
	}
	return n
}
