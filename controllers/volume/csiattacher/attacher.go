package csiattacher

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	csipb "github.com/container-storage-interface/spec/lib/go/csi"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet/csi"
)

// ControllerName is the sidecar's name in the step trace.
const ControllerName = "external-attacher"

// desiredKey is the queue's key of the attach/detach pass; every other
// key is a VolumeAttachment's name.
const desiredKey = "attach-detach"

// Finalizer is the attacher's finalizer on a VolumeAttachment of driver.
func Finalizer(driver string) string {
	return "external-attacher/" + strings.ReplaceAll(driver, "/", "-")
}

// Config builds a Controller.
type Config struct {
	controllers.BaseConfig
	csi.SidecarConfig
}

// Controller creates, answers and deletes VolumeAttachments.
type Controller struct {
	cfg         Config
	client      *client.Client
	pods        *cache.Informer[*corev1.Pod]
	claims      *cache.Informer[*corev1.PersistentVolumeClaim]
	volumes     *cache.Informer[*corev1.PersistentVolume]
	drivers     *cache.Informer[*storagev1.CSIDriver]
	nodes       *cache.Informer[*storagev1.CSINode]
	attachments *cache.Informer[*storagev1.VolumeAttachment]
	controller  *controllers.Controller
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
	c.pods = controllers.InformerFor(ctrl, cfg.Client.Pods())
	c.claims = controllers.InformerFor(ctrl, cfg.Client.PersistentVolumeClaims())
	c.volumes = controllers.InformerFor(ctrl, cfg.Client.PersistentVolumes())
	c.drivers = controllers.InformerFor(ctrl, cfg.Client.CSIDrivers())
	c.nodes = controllers.InformerFor(ctrl, cfg.Client.CSINodes())
	c.attachments = controllers.InformerFor(ctrl, cfg.Client.VolumeAttachments())
	pass := func(event, kind string, m *metav1.ObjectMeta) {
		c.controller.Enqueue(desiredKey, controllers.CauseOf(event, kind, m))
	}
	c.pods.AddHandler(cache.Handler[*corev1.Pod]{
		OnAdd:    func(p *corev1.Pod) { pass("ADDED", "Pod", &p.ObjectMeta) },
		OnUpdate: func(_, p *corev1.Pod) { pass("MODIFIED", "Pod", &p.ObjectMeta) },
		OnDelete: func(p *corev1.Pod) { pass("DELETED", "Pod", &p.ObjectMeta) },
	})
	c.claims.AddHandler(cache.Handler[*corev1.PersistentVolumeClaim]{
		OnUpdate: func(_, p *corev1.PersistentVolumeClaim) { pass("MODIFIED", "PersistentVolumeClaim", &p.ObjectMeta) },
	})
	c.drivers.AddHandler(cache.Handler[*storagev1.CSIDriver]{
		OnAdd: func(d *storagev1.CSIDriver) { pass("ADDED", "CSIDriver", &d.ObjectMeta) },
	})
	c.nodes.AddHandler(cache.Handler[*storagev1.CSINode]{
		OnAdd:    func(n *storagev1.CSINode) { c.enqueueAll("ADDED", &n.ObjectMeta) },
		OnUpdate: func(_, n *storagev1.CSINode) { c.enqueueAll("MODIFIED", &n.ObjectMeta) },
	})
	c.attachments.AddHandler(cache.Handler[*storagev1.VolumeAttachment]{
		OnAdd: func(va *storagev1.VolumeAttachment) {
			c.controller.Enqueue(va.Name, controllers.CauseOf("ADDED", "VolumeAttachment", &va.ObjectMeta))
		},
		OnUpdate: func(_, va *storagev1.VolumeAttachment) {
			c.controller.Enqueue(va.Name, controllers.CauseOf("MODIFIED", "VolumeAttachment", &va.ObjectMeta))
		},
	})
	return c, nil
}

// enqueueAll queues the attachments not attached yet: a driver that
// registers on a node lets them be published.
func (c *Controller) enqueueAll(event string, m *metav1.ObjectMeta) {
	for _, va := range c.attachments.List() {
		if !va.Status.Attached {
			c.controller.Enqueue(va.Name, controllers.CauseOf(event, "CSINode", m))
		}
	}
}

// Controllers implements the cluster's Component.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.controller}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.controller.Run(ctx) }

// Reconcile runs the attach/detach pass or answers one attachment;
// errors are retried with back-off.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	if key == desiredKey {
		return controllers.Result{}, c.syncDesired(ctx)
	}
	return controllers.Result{}, c.syncAttachment(ctx, key)
}

// attachRequired is the driver's CSIDriver's attachRequired; true without
// a CSIDriver, as the attach/detach controller assumes.
func (c *Controller) attachRequired(driver string) bool {
	d, ok := c.drivers.Get("", driver)
	return !ok || d.Spec.AttachRequired == nil || *d.Spec.AttachRequired
}

// desired are the attachments the scheduled pods need: for each pod bound
// to a node and not finished, each claim of a CSI volume whose driver
// attaches.
func (c *Controller) desired() map[string]*storagev1.VolumeAttachment {
	out := map[string]*storagev1.VolumeAttachment{}
	for _, pod := range c.pods.List() {
		if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, v := range pod.Spec.Volumes {
			if v.PersistentVolumeClaim == nil {
				continue
			}
			pvc, ok := c.claims.Get(pod.Namespace, v.PersistentVolumeClaim.ClaimName)
			if !ok || pvc.Spec.VolumeName == "" {
				continue
			}
			pv, ok := c.volumes.Get("", pvc.Spec.VolumeName)
			if !ok || pv.Spec.CSI == nil || !c.attachRequired(pv.Spec.CSI.Driver) {
				continue
			}
			name := csi.AttachmentName(pv.Spec.CSI.VolumeHandle, pv.Spec.CSI.Driver, pod.Spec.NodeName)
			pvName := pv.Name
			out[name] = &storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: storagev1.VolumeAttachmentSpec{Attacher: pv.Spec.CSI.Driver, NodeName: pod.Spec.NodeName,
					Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pvName}}}
		}
	}
	return out
}

// syncDesired is the attach/detach controller's reconciler: it creates
// the attachments the pods need and deletes those no pod needs.
func (c *Controller) syncDesired(ctx context.Context) error {
	want := c.desired()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if _, ok := c.attachments.Get("", name); ok {
			continue
		}
		if _, err := c.client.VolumeAttachments().Create(ctx, want[name]); err != nil && !api.IsAlreadyExists(err) {
			errs = append(errs, err)
		}
	}
	for _, va := range c.attachments.List() {
		if _, ok := want[va.Name]; ok || va.DeletionTimestamp != nil || va.Spec.Source.PersistentVolumeName == nil {
			continue
		}
		if err := c.client.VolumeAttachments().Delete(ctx, "", va.Name, nil); err != nil && !api.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// syncAttachment is the external-attacher's: ControllerPublishVolume for
// an attachment not attached yet, ControllerUnpublishVolume for one being
// deleted.
func (c *Controller) syncAttachment(ctx context.Context, name string) error {
	va, ok := c.attachments.Get("", name)
	if !ok || va.Spec.Source.PersistentVolumeName == nil {
		return nil
	}
	endpoint, ok := c.cfg.Drivers.Endpoint(va.Spec.Attacher)
	if !ok {
		return nil // not a registered driver's (yet)
	}
	fin := Finalizer(va.Spec.Attacher)
	if va.DeletionTimestamp != nil {
		if !slices.Contains(va.Finalizers, fin) {
			return nil
		}
		return c.detach(ctx, va, endpoint, fin)
	}
	if va.Status.Attached {
		return nil
	}
	pv, ok := c.volumes.Get("", *va.Spec.Source.PersistentVolumeName)
	if !ok || pv.Spec.CSI == nil {
		return nil
	}
	if !slices.Contains(va.Finalizers, fin) {
		// Held until the volume is unpublished.
		upd := va.DeepCopy()
		upd.Finalizers = append(upd.Finalizers, fin)
		var err error
		if va, err = c.client.VolumeAttachments().Update(ctx, upd); err != nil {
			return err
		}
	}
	nodeID := ""
	if n, ok := c.nodes.Get("", va.Spec.NodeName); ok {
		for _, d := range n.Spec.Drivers {
			if d.Name == va.Spec.Attacher {
				nodeID = d.NodeID
			}
		}
	}
	if nodeID == "" {
		return c.attachError(ctx, va, "node \""+va.Spec.NodeName+"\" has no NodeID annotation")
	}
	conn, err := csi.Dial(endpoint)
	if err != nil {
		return err
	}
	defer conn.Close()
	src := pv.Spec.CSI
	resp, err := csi.Call(ctx, c.caller(), "ControllerPublishVolume "+va.Spec.Attacher+" "+pv.Name+" "+va.Spec.NodeName, func(ctx context.Context) (*csipb.ControllerPublishVolumeResponse, error) {
		return conn.Controller.ControllerPublishVolume(ctx, &csipb.ControllerPublishVolumeRequest{VolumeId: src.VolumeHandle, NodeId: nodeID,
			Readonly: src.ReadOnly, VolumeContext: src.VolumeAttributes, VolumeCapability: &csipb.VolumeCapability{
				AccessType: &csipb.VolumeCapability_Mount{Mount: &csipb.VolumeCapability_MountVolume{FsType: src.FSType}},
				AccessMode: &csipb.VolumeCapability_AccessMode{Mode: csipb.VolumeCapability_AccessMode_SINGLE_NODE_WRITER}}})
	})
	if err != nil {
		_ = c.attachError(ctx, va, err.Error())
		return err
	}
	upd := va.DeepCopy()
	upd.Status = storagev1.VolumeAttachmentStatus{Attached: true, AttachmentMetadata: resp.PublishContext}
	_, err = c.client.VolumeAttachments().UpdateStatus(ctx, upd)
	return err
}

// attachError records why the attach failed (status.attachError), and
// fails the sync so that it is retried.
func (c *Controller) attachError(ctx context.Context, va *storagev1.VolumeAttachment, msg string) error {
	upd := va.DeepCopy()
	upd.Status.AttachError = &storagev1.VolumeError{Time: metav1.NewTime(c.cfg.Clock.Now().UTC().Truncate(time.Second)), Message: msg}
	if _, err := c.client.VolumeAttachments().UpdateStatus(ctx, upd); err != nil {
		return err
	}
	return errors.New(msg)
}

// detach unpublishes the volume from the node and lets the attachment go.
func (c *Controller) detach(ctx context.Context, va *storagev1.VolumeAttachment, endpoint, fin string) error {
	pvName := *va.Spec.Source.PersistentVolumeName
	handle := ""
	if pv, ok := c.volumes.Get("", pvName); ok && pv.Spec.CSI != nil {
		handle = pv.Spec.CSI.VolumeHandle
	}
	if handle != "" && va.Status.Attached {
		nodeID := va.Spec.NodeName
		if n, ok := c.nodes.Get("", va.Spec.NodeName); ok {
			for _, d := range n.Spec.Drivers {
				if d.Name == va.Spec.Attacher {
					nodeID = d.NodeID
				}
			}
		}
		conn, err := csi.Dial(endpoint)
		if err != nil {
			return err
		}
		defer conn.Close()
		_, err = csi.Call(ctx, c.caller(), "ControllerUnpublishVolume "+va.Spec.Attacher+" "+pvName+" "+va.Spec.NodeName, func(ctx context.Context) (*csipb.ControllerUnpublishVolumeResponse, error) {
			return conn.Controller.ControllerUnpublishVolume(ctx, &csipb.ControllerUnpublishVolumeRequest{VolumeId: handle, NodeId: nodeID})
		})
		if err != nil {
			upd := va.DeepCopy()
			upd.Status.DetachError = &storagev1.VolumeError{Time: metav1.NewTime(c.cfg.Clock.Now().UTC().Truncate(time.Second)), Message: err.Error()}
			_, _ = c.client.VolumeAttachments().UpdateStatus(ctx, upd)
			return err
		}
	}
	upd := va.DeepCopy()
	upd.Finalizers = slices.DeleteFunc(upd.Finalizers, func(f string) bool { return f == fin })
	_, err := c.client.VolumeAttachments().Update(ctx, upd)
	if api.IsNotFound(err) {
		return nil
	}
	return err
}

func (c *Controller) caller() csi.Caller {
	return csi.Caller{Clock: c.cfg.Clock, Timeout: c.cfg.Timeout, OnCall: c.cfg.OnCall}
}
