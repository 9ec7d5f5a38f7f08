package kubelet

import (
	"context"
	"fmt"
	"slices"
	"time"

	csipb "github.com/container-storage-interface/spec/lib/go/csi"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet/csi"
)

// The kubelet's plugin manager and its CSI handler (kubelet/csi): a
// driver that puts a registration socket in the node's plugins_registry
// is asked for its info, checked, asked NodeGetInfo, and entered in the
// node's CSINode (drivers[]: name, nodeID, topologyKeys, allocatable
// count); when its socket goes, it leaves the CSINode again.
// Left out: the node's csi.volume.kubernetes.io/nodeid annotation and the
// topology labels the real handler also writes to the Node.

// CSIConfig turns on the kubelet's CSI side.
type CSIConfig struct {
	// RootDir is the node's kubelet directory (/var/lib/kubelet): the
	// drivers' registration sockets are in its plugins_registry, the
	// staging paths under plugins/kubernetes.io/csi, the pods' volumes
	// under pods (required).
	RootDir string
	// Drivers is where the kubelet notes the drivers registered with
	// it, for the cluster's sidecars (required).
	Drivers *csi.Drivers
	// ScanInterval is how often plugins_registry is read again
	// (DefaultPluginScanInterval).
	ScanInterval time.Duration
	// OnCall, when set, is told of each gRPC call, as
	// "NodeStageVolume example.csi.kubesim.io pvc-…": the step trace.
	OnCall func(call string)
}

// DefaultPluginScanInterval is how often the plugin watcher reads its
// directory (the real one is told by fsnotify at once; its reconciler
// runs every second).
const DefaultPluginScanInterval = time.Second

// CSITimeout is the kubelet's deadline for a CSI call (csiTimeout).
const CSITimeout = 2 * time.Minute

// newPluginLoop is the plugin manager's loop: one key, scanned every
// ScanInterval. nil without Config.CSI.
func (k *Kubelet) newPluginLoop() (*controllers.Controller, error) {
	if k.cfg.CSI == nil {
		return nil, nil
	}
	c, err := controllers.New(controllers.Config{Name: "kubelet/" + k.cfg.NodeName + "/plugins",
		Reconciler: controllers.ReconcileFunc(k.syncPlugins), Clock: k.cfg.Clock, Mode: k.cfg.Mode, Logger: k.logger, Periodic: true})
	if err != nil {
		return nil, err
	}
	c.Enqueue(csi.RegistryDir, controllers.Cause{Event: "kubelet started"})
	return c, nil
}

// csiCaller makes the kubelet's CSI calls.
func (k *Kubelet) csiCaller() csi.Caller {
	return csi.Caller{Clock: k.cfg.Clock, Timeout: CSITimeout, OnCall: k.cfg.CSI.OnCall}
}

// syncPlugins is one scan of plugins_registry, and a retry of the
// unmounts that failed.
func (k *Kubelet) syncPlugins(ctx context.Context, _ string) (controllers.Result, error) {
	if k.Stopped() {
		return controllers.Result{}, nil
	}
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	if k.node == nil {
		// The node registers first: a CSINode is owned by its Node.
		return controllers.Result{RequeueAfter: k.cfg.CSI.ScanInterval}, nil
	}
	if err := k.csiWatcher.Scan(ctx, csiHandler{k}); err != nil {
		k.logger.Info("plugin registration failed", "err", err)
	}
	k.retryCSIUnmounts(ctx)
	return controllers.Result{RequeueAfter: k.cfg.CSI.ScanInterval}, nil
}

// csiHandler is the kubelet's CSI RegistrationHandler.
type csiHandler struct{ k *Kubelet }

// RegisterPlugin asks the driver for its node info and enters it in the
// CSINode; the driver is usable once that is written.
func (h csiHandler) RegisterPlugin(ctx context.Context, p csi.Plugin) error {
	k := h.k
	conn, err := csi.Dial(p.Endpoint)
	if err != nil {
		return err
	}
	defer conn.Close()
	info, err := csi.Call(ctx, k.csiCaller(), "NodeGetInfo "+p.Name, func(ctx context.Context) (*csipb.NodeGetInfoResponse, error) {
		return conn.Node.NodeGetInfo(ctx, &csipb.NodeGetInfoRequest{})
	})
	if err != nil {
		return fmt.Errorf("kubernetes.io/csi: RegisterPlugin failed to get node info: %w", err)
	}
	if info.NodeId == "" {
		return fmt.Errorf("kubernetes.io/csi: RegisterPlugin failed: driver %s gave an empty node id", p.Name)
	}
	k.cfg.CSI.Drivers.Add(p.Name, k.cfg.NodeName, p.Endpoint)
	entry := storagev1.CSINodeDriver{Name: p.Name, NodeID: info.NodeId}
	if seg := info.GetAccessibleTopology().GetSegments(); len(seg) > 0 {
		for key := range seg {
			entry.TopologyKeys = append(entry.TopologyKeys, key)
		}
		slices.Sort(entry.TopologyKeys)
	}
	if info.MaxVolumesPerNode > 0 {
		n := int32(info.MaxVolumesPerNode)
		entry.Allocatable = &storagev1.VolumeNodeResources{Count: &n}
	}
	if err := k.updateCSINode(ctx, func(drivers []storagev1.CSINodeDriver) []storagev1.CSINodeDriver {
		drivers = slices.DeleteFunc(drivers, func(d storagev1.CSINodeDriver) bool { return d.Name == p.Name })
		return append(drivers, entry)
	}); err != nil {
		k.cfg.CSI.Drivers.Remove(p.Name, k.cfg.NodeName)
		return fmt.Errorf("error updating CSINode object with CSI driver node info: %w", err)
	}
	k.logger.Info("CSI driver registered", "driver", p.Name, "endpoint", p.Endpoint)
	return nil
}

// DeRegisterPlugin takes the driver out of the CSINode.
func (h csiHandler) DeRegisterPlugin(ctx context.Context, p csi.Plugin) {
	k := h.k
	k.cfg.CSI.Drivers.Remove(p.Name, k.cfg.NodeName)
	if err := k.updateCSINode(ctx, func(drivers []storagev1.CSINodeDriver) []storagev1.CSINodeDriver {
		return slices.DeleteFunc(drivers, func(d storagev1.CSINodeDriver) bool { return d.Name == p.Name })
	}); err != nil {
		k.logger.Info("cannot take a CSI driver out of the CSINode", "driver", p.Name, "err", err)
		return
	}
	k.logger.Info("CSI driver deregistered", "driver", p.Name)
}

// updateCSINode writes the node's CSINode with its drivers changed by
// change, making it (owned by the Node, so that it goes with it) when
// missing; a conflict is read again and retried, as the nodeinfomanager's
// retry does.
func (k *Kubelet) updateCSINode(ctx context.Context, change func([]storagev1.CSINodeDriver) []storagev1.CSINodeDriver) error {
	for range 5 {
		cur, err := k.c.CSINodes().Get(ctx, "", k.cfg.NodeName)
		if api.IsNotFound(err) {
			node, err := k.c.Nodes().Get(ctx, "", k.cfg.NodeName)
			if err != nil {
				return err
			}
			obj := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: k.cfg.NodeName,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}}},
				Spec: storagev1.CSINodeSpec{Drivers: change(nil)}}
			if _, err = k.c.CSINodes().Create(ctx, obj); api.IsAlreadyExists(err) {
				continue
			}
			return err
		}
		if err != nil {
			return err
		}
		obj := cur.DeepCopy()
		obj.Spec.Drivers = change(obj.Spec.Drivers)
		if _, err = k.c.CSINodes().Update(ctx, obj); api.IsConflict(err) {
			continue
		}
		return err
	}
	return fmt.Errorf("CSINode %s: too many conflicts", k.cfg.NodeName)
}
