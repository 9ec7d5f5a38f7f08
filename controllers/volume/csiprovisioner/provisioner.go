package csiprovisioner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	csipb "github.com/container-storage-interface/spec/lib/go/csi"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/volume"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet/csi"
)

// ControllerName is the sidecar's name, as its events and the step trace
// show it.
const ControllerName = "external-provisioner"

// FSTypeParameter is the class parameter naming the volume's filesystem
// (csi.storage.k8s.io/fstype); DefaultFSType is used without it.
const (
	FSTypeParameter = "csi.storage.k8s.io/fstype"
	DefaultFSType   = "ext4"
)

// The events' reasons (the library's and the sidecar's).
const (
	Provisioning          = "Provisioning"
	ProvisioningSucceeded = "ProvisioningSucceeded"
	ProvisioningFailed    = "ProvisioningFailed"
	VolumeFailedDelete    = "VolumeFailedDelete"
)

var (
	claimGVK  = schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}
	volumeGVK = schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolume"}
)

// Config builds a Controller.
type Config struct {
	controllers.BaseConfig
	csi.SidecarConfig
}

// Controller provisions and deletes the volumes of CSI drivers. Its queue
// holds claims ("namespace/name") and volumes ("name").
type Controller struct {
	cfg        Config
	client     *client.Client
	claims     *cache.Informer[*corev1.PersistentVolumeClaim]
	volumes    *cache.Informer[*corev1.PersistentVolume]
	classes    *cache.Informer[*storagev1.StorageClass]
	recorder   *record.Recorder
	controller *controllers.Controller
}

// New checks cfg and builds the controller.
func New(cfg Config) (*Controller, error) {
	var err error
	if cfg.SidecarConfig, err = cfg.Defaulted(ControllerName); err != nil {
		return nil, err
	}
	c := &Controller{cfg: cfg, client: cfg.Client}
	ctrl, err := cfg.NewController(ControllerName, c)
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	c.recorder = record.New(record.Config{Client: cfg.Client, Component: ControllerName, Clock: cfg.Clock, Mode: cfg.Mode})
	c.claims = controllers.InformerFor(ctrl, cfg.Client.PersistentVolumeClaims())
	c.volumes = controllers.InformerFor(ctrl, cfg.Client.PersistentVolumes())
	c.classes = controllers.InformerFor(ctrl, cfg.Client.StorageClasses())
	c.claims.AddHandler(cache.Handler[*corev1.PersistentVolumeClaim]{
		OnAdd: func(p *corev1.PersistentVolumeClaim) {
			c.enqueue("ADDED", "PersistentVolumeClaim", cache.Key(&p.ObjectMeta), p)
		},
		OnUpdate: func(_, p *corev1.PersistentVolumeClaim) {
			c.enqueue("MODIFIED", "PersistentVolumeClaim", cache.Key(&p.ObjectMeta), p)
		},
	})
	c.volumes.AddHandler(cache.Handler[*corev1.PersistentVolume]{
		OnAdd:    func(pv *corev1.PersistentVolume) { c.enqueue("ADDED", "PersistentVolume", pv.Name, pv) },
		OnUpdate: func(_, pv *corev1.PersistentVolume) { c.enqueue("MODIFIED", "PersistentVolume", pv.Name, pv) },
	})
	return c, nil
}

func (c *Controller) enqueue(event, kind, key string, obj api.Object) {
	c.controller.Enqueue(key, controllers.CauseOf(event, kind, api.Meta(obj)))
}

// Controllers implements the cluster's Component.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.controller}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.controller.Run(ctx) }

// Reconcile provisions for one claim or deletes one volume; an error is
// retried with the queue's exponential back-off, as the library's
// rate-limited claim queue does.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	if strings.Contains(key, "/") {
		return controllers.Result{}, c.syncClaim(ctx, key)
	}
	return controllers.Result{}, c.syncVolume(ctx, key)
}

// VolumeName is the name of the volume provisioned for a claim (the
// sidecar's --volume-name-prefix and the claim's uid): CreateVolume is
// asked for it on every try, so a driver that made the volume without
// answering gives the same one the next time.
func VolumeName(pvc *corev1.PersistentVolumeClaim) string { return "pvc-" + string(pvc.UID) }

// driverOf is the registered driver the claim's class names, if any.
func (c *Controller) classOf(pvc *corev1.PersistentVolumeClaim) (*storagev1.StorageClass, string, bool) {
	sc, ok := c.classes.Get("", volume.ClaimClass(pvc))
	if !ok {
		return nil, "", false
	}
	ep, ok := c.cfg.Drivers.Endpoint(sc.Provisioner)
	return sc, ep, ok
}

// syncClaim is the library's provisionClaimOperation: for an unbound
// claim of a driver's class whose volume is not made yet (and, for a
// WaitForFirstConsumer class, whose node is chosen), CreateVolume and a
// PersistentVolume.
func (c *Controller) syncClaim(ctx context.Context, key string) error {
	ns, name := cache.SplitKey(key)
	pvc, ok := c.claims.Get(ns, name)
	if !ok || pvc.Spec.VolumeName != "" || pvc.DeletionTimestamp != nil {
		return nil
	}
	sc, endpoint, ok := c.classOf(pvc)
	if !ok {
		return nil // not a registered driver's: another provisioner's
	}
	if sc.VolumeBindingMode != nil && *sc.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer && pvc.Annotations[api.AnnSelectedNode] == "" {
		return nil
	}
	pvName := VolumeName(pvc)
	if _, ok := c.volumes.Get("", pvName); ok {
		return nil // made already
	}
	ref := record.Ref(pvc, claimGVK)
	if err := c.recorder.Eventf(ctx, ref, "Normal", Provisioning, "External provisioner is provisioning volume for claim %q", key); err != nil {
		return err
	}
	pv, err := c.provision(ctx, pvc, sc, endpoint, pvName)
	if err != nil {
		_ = c.recorder.Eventf(ctx, ref, "Warning", ProvisioningFailed, "failed to provision volume with StorageClass %q: %v", sc.Name, err)
		return err
	}
	if _, err := c.client.PersistentVolumes().Create(ctx, pv); err != nil && !api.IsAlreadyExists(err) {
		// The volume exists in the storage, not in the API: the retry's
		// CreateVolume finds it by name.
		_ = c.recorder.Eventf(ctx, ref, "Warning", ProvisioningFailed, "failed to provision volume with StorageClass %q: error saving PersistentVolume: %v", sc.Name, err)
		return err
	}
	return c.recorder.Eventf(ctx, ref, "Normal", ProvisioningSucceeded, "Successfully provisioned volume %s", pvName)
}

// provision calls CreateVolume and describes its answer as a
// PersistentVolume pre-bound to the claim.
func (c *Controller) provision(ctx context.Context, pvc *corev1.PersistentVolumeClaim, sc *storagev1.StorageClass, endpoint, name string) (*corev1.PersistentVolume, error) {
	fsType := DefaultFSType
	params := map[string]string{}
	for k, v := range sc.Parameters {
		if k == FSTypeParameter {
			fsType = v
			continue
		}
		if strings.HasPrefix(k, "csi.storage.k8s.io/") {
			continue // the sidecar's own parameters, not the driver's
		}
		params[k] = v
	}
	var caps []*csipb.VolumeCapability
	for _, m := range pvc.Spec.AccessModes {
		caps = append(caps, &csipb.VolumeCapability{
			AccessType: &csipb.VolumeCapability_Mount{Mount: &csipb.VolumeCapability_MountVolume{FsType: fsType, MountFlags: sc.MountOptions}},
			AccessMode: &csipb.VolumeCapability_AccessMode{Mode: AccessMode(m)}})
	}
	size := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	req := &csipb.CreateVolumeRequest{Name: name, Parameters: params, VolumeCapabilities: caps,
		CapacityRange: &csipb.CapacityRange{RequiredBytes: size.Value()}}
	conn, err := csi.Dial(endpoint)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	resp, err := csi.Call(ctx, c.caller(), "CreateVolume "+sc.Provisioner+" "+name, func(ctx context.Context) (*csipb.CreateVolumeResponse, error) {
		return conn.Controller.CreateVolume(ctx, req)
	})
	if err != nil {
		return nil, err
	}
	v := resp.GetVolume()
	if v.GetVolumeId() == "" {
		return nil, errors.New("create volume rpc returned an empty volume id")
	}
	capacity := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if v.CapacityBytes > 0 {
		capacity = *resource.NewQuantity(v.CapacityBytes, resource.BinarySI)
	}
	reclaim := corev1.PersistentVolumeReclaimDelete
	if sc.ReclaimPolicy != nil {
		reclaim = *sc.ReclaimPolicy
	}
	mode := volume.VolumeMode(pvc.Spec.VolumeMode)
	// The library's PV: pre-bound to the claim, of its class, with the
	// class's reclaim policy and mount options. No node affinity: the
	// sample driver reports no topology, its volumes are reached from
	// every node.
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{api.AnnDynamicallyProvisioned: sc.Provisioner}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{corev1.ResourceStorage: capacity},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: sc.Provisioner, VolumeHandle: v.VolumeId, FSType: fsType, VolumeAttributes: v.VolumeContext}},
			AccessModes: slices.Clone(pvc.Spec.AccessModes),
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace,
				Name: pvc.Name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion},
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              sc.Name,
			MountOptions:                  slices.Clone(sc.MountOptions),
			VolumeMode:                    &mode,
		},
	}
	return pv, nil
}

// AccessMode is the CSI access mode of a Kubernetes one.
func AccessMode(m corev1.PersistentVolumeAccessMode) csipb.VolumeCapability_AccessMode_Mode {
	switch m {
	case corev1.ReadOnlyMany:
		return csipb.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY
	case corev1.ReadWriteMany:
		return csipb.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER
	case corev1.ReadWriteOncePod:
		return csipb.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER
	default:
		return csipb.VolumeCapability_AccessMode_SINGLE_NODE_WRITER
	}
}

func (c *Controller) caller() csi.Caller {
	return csi.Caller{Clock: c.cfg.Clock, Timeout: c.cfg.Timeout, OnCall: c.cfg.OnCall}
}

// syncVolume is the library's deleteVolumeOperation: a volume this
// sidecar's drivers made, released by its claim, of the Delete policy,
// gets DeleteVolume and then goes from the API.
func (c *Controller) syncVolume(ctx context.Context, name string) error {
	pv, ok := c.volumes.Get("", name)
	if !ok || pv.Spec.CSI == nil || pv.DeletionTimestamp != nil || pv.Status.Phase != corev1.VolumeReleased ||
		pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
		return nil
	}
	driver := pv.Annotations[api.AnnDynamicallyProvisioned]
	if driver == "" || driver != pv.Spec.CSI.Driver {
		return nil
	}
	endpoint, ok := c.cfg.Drivers.Endpoint(driver)
	if !ok {
		return nil // not registered (yet): its registration queues nothing, the next change of the volume does
	}
	conn, err := csi.Dial(endpoint)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = csi.Call(ctx, c.caller(), "DeleteVolume "+driver+" "+pv.Spec.CSI.VolumeHandle, func(ctx context.Context) (*csipb.DeleteVolumeResponse, error) {
		return conn.Controller.DeleteVolume(ctx, &csipb.DeleteVolumeRequest{VolumeId: pv.Spec.CSI.VolumeHandle})
	})
	if err != nil {
		_ = c.recorder.Eventf(ctx, record.Ref(pv, volumeGVK), "Warning", VolumeFailedDelete, "%v", err)
		return fmt.Errorf("deleting volume %s: %w", pv.Name, err)
	}
	err = c.client.PersistentVolumes().Delete(ctx, "", pv.Name, nil)
	if api.IsNotFound(err) {
		return nil
	}
	return err
}
