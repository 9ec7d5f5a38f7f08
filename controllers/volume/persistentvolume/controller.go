package persistentvolume

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/volume"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet/volumedata"
)

// ControllerName is the name --controllers uses.
const ControllerName = "persistentvolume-binder"

// Component signs the controller's events, as in Kubernetes.
const Component = "persistentvolume-controller"

// Provisioner is the simulated provisioner's name: the default
// StorageClass's provisioner, whose volumes this controller makes.
const Provisioner = "kubesim.io/hostpath"

// The reasons of the events the controller records (pkg/controller/volume/
// events).
const (
	ProvisioningFailed    = "ProvisioningFailed"
	ProvisioningSucceeded = "ProvisioningSucceeded"
	ExternalProvisioning  = "ExternalProvisioning"
	WaitForFirstConsumer  = "WaitForFirstConsumer"
	FailedBinding         = "FailedBinding"
	ClaimLost             = "ClaimLost"
	VolumeFailedRecycle   = "VolumeFailedRecycle"
)

var (
	claimGVK  = schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}
	volumeGVK = schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolume"}
)

// Config builds a Controller: the client, informers, clock and mode every
// controller of the controller manager is given, and where the volumes
// keep their data.
type Config struct {
	controllers.BaseConfig
	// VolumeData is where the volumes keep what is written to them; the
	// controller removes a volume's data once the volume is gone (nil:
	// nothing to remove).
	VolumeData *volumedata.Store
}

// Controller binds claims to volumes, provisions volumes for the
// simulated provisioner's classes, keeps the phases, and reclaims released
// volumes. One queue holds both kinds: a claim's key is "namespace/name",
// a volume's (cluster-scoped) just its name.
type Controller struct {
	client     *client.Client
	clock      clock.Clock
	claims     *cache.Informer[*corev1.PersistentVolumeClaim]
	volumes    *cache.Informer[*corev1.PersistentVolume]
	classes    *cache.Informer[*storagev1.StorageClass]
	nodes      *cache.Informer[*corev1.Node]
	recorder   *record.Recorder
	controller *controllers.Controller
	data       *volumedata.Store
}

// New checks cfg and builds the controller.
func New(cfg Config) (*Controller, error) {
	c := &Controller{client: cfg.Client, clock: cfg.Clock, data: cfg.VolumeData}
	ctrl, err := cfg.NewController(ControllerName, c)
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	c.recorder = record.New(record.Config{Client: cfg.Client, Component: Component, Clock: cfg.Clock, Mode: cfg.Mode})
	c.claims = controllers.InformerFor(ctrl, cfg.Client.PersistentVolumeClaims())
	c.volumes = controllers.InformerFor(ctrl, cfg.Client.PersistentVolumes())
	c.classes = controllers.InformerFor(ctrl, cfg.Client.StorageClasses())
	// The node the scheduler chose for a claim narrows the volumes that fit.
	c.nodes = controllers.InformerFor(ctrl, cfg.Client.Nodes())
	c.claims.AddHandler(cache.Handler[*corev1.PersistentVolumeClaim]{
		OnAdd:    func(p *corev1.PersistentVolumeClaim) { c.enqueueClaim("ADDED", p) },
		OnUpdate: func(_, p *corev1.PersistentVolumeClaim) { c.enqueueClaim("MODIFIED", p) },
		OnDelete: func(p *corev1.PersistentVolumeClaim) {
			c.enqueueClaim("DELETED", p)
			// Its volume is released.
			if p.Spec.VolumeName != "" {
				c.controller.Enqueue(p.Spec.VolumeName, controllers.CauseOf("DELETED", "PersistentVolumeClaim", &p.ObjectMeta))
			}
		},
	})
	c.volumes.AddHandler(cache.Handler[*corev1.PersistentVolume]{
		OnAdd:    func(pv *corev1.PersistentVolume) { c.enqueueVolume("ADDED", pv) },
		OnUpdate: func(_, pv *corev1.PersistentVolume) { c.enqueueVolume("MODIFIED", pv) },
		OnDelete: func(pv *corev1.PersistentVolume) { c.enqueueVolume("DELETED", pv) },
	})
	// A class created after its claims lets them be provisioned.
	c.classes.AddHandler(cache.Handler[*storagev1.StorageClass]{
		OnAdd: func(sc *storagev1.StorageClass) { c.enqueueUnbound("ADDED", "StorageClass", &sc.ObjectMeta, sc.Name) },
	})
	return c, nil
}

func (c *Controller) enqueueClaim(event string, p *corev1.PersistentVolumeClaim) {
	c.controller.Enqueue(cache.Key(&p.ObjectMeta), controllers.CauseOf(event, "PersistentVolumeClaim", &p.ObjectMeta))
}

// enqueueVolume queues the volume, and the claim it names (binding goes
// on there); a free volume may suit any unbound claim of its class.
func (c *Controller) enqueueVolume(event string, pv *corev1.PersistentVolume) {
	cause := controllers.CauseOf(event, "PersistentVolume", &pv.ObjectMeta)
	if event != "DELETED" || c.data != nil {
		// A volume gone is looked at once more: its data goes too.
		c.controller.Enqueue(pv.Name, cause)
	}
	if r := pv.Spec.ClaimRef; r != nil {
		if _, ok := c.claims.Get(r.Namespace, r.Name); ok {
			c.controller.Enqueue(r.Namespace+"/"+r.Name, cause)
		}
	} else if event != "DELETED" {
		c.enqueueUnbound(event, "PersistentVolume", &pv.ObjectMeta, pv.Spec.StorageClassName)
	}
}

// enqueueUnbound queues the unbound claims of a class.
func (c *Controller) enqueueUnbound(event, kind string, m *metav1.ObjectMeta, class string) {
	for _, p := range c.claims.List() {
		if p.Spec.VolumeName == "" && volume.ClaimClass(p) == class {
			c.controller.Enqueue(cache.Key(&p.ObjectMeta), controllers.CauseOf(event, kind, m))
		}
	}
}

// Controllers implements the cluster's Component.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.controller}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.controller.Run(ctx) }

// Reconcile syncs one claim ("ns/name") or one volume ("name").
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	if strings.Contains(key, "/") {
		ns, name := cache.SplitKey(key)
		return controllers.Result{}, c.syncClaim(ctx, ns, name)
	}
	return controllers.Result{}, c.syncVolume(ctx, key)
}

// syncClaim is syncUnboundClaim / syncBoundClaim.
func (c *Controller) syncClaim(ctx context.Context, ns, name string) error {
	pvc, ok := c.claims.Get(ns, name)
	if !ok {
		return nil
	}
	if pvc.Spec.VolumeName != "" {
		return c.syncBoundClaim(ctx, pvc)
	}
	var node *corev1.Node
	if n := pvc.Annotations[api.AnnSelectedNode]; n != "" {
		node, ok = c.nodes.Get("", n)
		if !ok {
			node = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{corev1.LabelHostname: n}}}
		}
	}
	class := volume.ClaimClass(pvc)
	sc, found := c.classes.Get("", class)
	if found && node == nil && sc.VolumeBindingMode != nil && *sc.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer {
		// The scheduler picks the node first, then marks the claim.
		return c.event(ctx, pvc, "Normal", WaitForFirstConsumer, "waiting for first consumer to be created before binding")
	}
	if pv := volume.FindBestMatch(pvc, c.volumes.List(), node); pv != nil {
		return c.bind(ctx, pvc, pv)
	}
	switch {
	case class == "":
		return c.event(ctx, pvc, "Normal", FailedBinding, "no persistent volumes available for this claim and no storage class is set")
	case !found:
		return c.event(ctx, pvc, "Warning", ProvisioningFailed, `storageclass.storage.k8s.io "`+class+`" not found`)
	case sc.Provisioner != Provisioner:
		return c.event(ctx, pvc, "Normal", ExternalProvisioning, "Waiting for a volume to be created either by the external provisioner '"+
			sc.Provisioner+"' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.")
	}
	pv := ProvisionedVolume(pvc, sc, Provisioner)
	if _, err := c.client.PersistentVolumes().Create(ctx, pv); err != nil {
		if api.IsAlreadyExists(err) {
			return nil // made already; the cache has not caught up
		}
		_ = c.event(ctx, pvc, "Warning", ProvisioningFailed, err.Error())
		return err
	}
	return c.event(ctx, pvc, "Normal", ProvisioningSucceeded, "Successfully provisioned volume "+pv.Name+" using "+Provisioner)
}

// syncBoundClaim keeps a claim that names its volume: bound while the
// volume holds it, Lost once the volume is gone.
func (c *Controller) syncBoundClaim(ctx context.Context, pvc *corev1.PersistentVolumeClaim) error {
	pv, ok := c.volumes.Get("", pvc.Spec.VolumeName)
	if !ok {
		if pvc.Status.Phase == corev1.ClaimBound || pvc.Annotations[api.AnnBindCompleted] != "" {
			if pvc.Status.Phase == corev1.ClaimLost {
				return nil
			}
			upd := pvc.DeepCopy()
			upd.Status.Phase = corev1.ClaimLost
			if _, err := c.client.PersistentVolumeClaims().UpdateStatus(ctx, upd); err != nil {
				return err
			}
			return c.event(ctx, pvc, "Warning", ClaimLost, "Bound claim has lost its PersistentVolume. Data on the volume is lost!")
		}
		return nil
	}
	if pv.Spec.ClaimRef != nil && !volume.IsPreBoundTo(pv, pvc) {
		return c.event(ctx, pvc, "Warning", FailedBinding, "volume \""+pv.Name+"\" already bound to a different claim.")
	}
	return c.bind(ctx, pvc, pv)
}

// bind writes both halves of a binding, each only if it differs: the
// volume's claimRef and phase, then the claim's volumeName, annotations
// and phase (bindVolumeToClaim, updateVolumePhase, bindClaimToVolume,
// updateClaimStatus).
func (c *Controller) bind(ctx context.Context, pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) error {
	if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID == "" {
		upd := pv.DeepCopy()
		upd.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace,
			Name: pvc.Name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion}
		if pv.Spec.ClaimRef == nil {
			setAnnotation(&upd.ObjectMeta, api.AnnBoundByController, "yes")
		}
		var err error
		if pv, err = c.client.PersistentVolumes().Update(ctx, upd); err != nil {
			return err
		}
	}
	if pv.Status.Phase != corev1.VolumeBound {
		if err := c.setVolumePhase(ctx, pv, corev1.VolumeBound, "", ""); err != nil {
			return err
		}
	}
	if pvc.Spec.VolumeName != pv.Name || pvc.Annotations[api.AnnBindCompleted] != "yes" {
		upd := pvc.DeepCopy()
		if upd.Spec.VolumeName != pv.Name {
			upd.Spec.VolumeName = pv.Name
			setAnnotation(&upd.ObjectMeta, api.AnnBoundByController, "yes")
		}
		setAnnotation(&upd.ObjectMeta, api.AnnBindCompleted, "yes")
		if p := pv.Annotations[api.AnnDynamicallyProvisioned]; p != "" {
			setAnnotation(&upd.ObjectMeta, api.AnnStorageProvisioner, p)
			setAnnotation(&upd.ObjectMeta, api.AnnBetaStorageProvisioner, p)
		}
		var err error
		if pvc, err = c.client.PersistentVolumeClaims().Update(ctx, upd); err != nil {
			return err
		}
	}
	want := ClaimStatus(pv)
	if pvc.Status.Phase != want.Phase || !equality.Semantic.DeepEqual(pvc.Status.AccessModes, want.AccessModes) || !sameCapacity(pvc.Status.Capacity, want.Capacity) {
		upd := pvc.DeepCopy()
		upd.Status.Phase, upd.Status.AccessModes, upd.Status.Capacity = want.Phase, want.AccessModes, want.Capacity
		if _, err := c.client.PersistentVolumeClaims().UpdateStatus(ctx, upd); err != nil {
			return err
		}
	}
	return nil
}

func sameCapacity(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.Cmp(w) != 0 {
			return false
		}
	}
	return true
}

// syncVolume keeps a volume's phase and reclaims it once its claim is
// gone: Delete removes it, Retain leaves it Released for an administrator.
func (c *Controller) syncVolume(ctx context.Context, name string) error {
	pv, ok := c.volumes.Get("", name)
	if err := c.removeData(name, pv); err != nil {
		return err
	}
	if !ok {
		return nil
	}
	var claim *corev1.PersistentVolumeClaim
	if r := pv.Spec.ClaimRef; r != nil {
		if p, ok := c.claims.Get(r.Namespace, r.Name); ok {
			claim = p
		}
	}
	phase := VolumePhase(pv, claim)
	if phase == corev1.VolumeReleased {
		switch pv.Spec.PersistentVolumeReclaimPolicy {
		case corev1.PersistentVolumeReclaimDelete:
			if pv.Status.Phase != corev1.VolumeReleased {
				if err := c.setVolumePhase(ctx, pv, corev1.VolumeReleased, "", ""); err != nil {
					return err
				}
			}
			if pv.DeletionTimestamp != nil {
				return nil // on its way already
			}
			if p := pv.Annotations[api.AnnDynamicallyProvisioned]; p != "" && p != Provisioner {
				// An external provisioner's volume: it deletes the
				// storage, then the volume (csiprovisioner).
				return nil
			}
			err := c.client.PersistentVolumes().Delete(ctx, "", pv.Name, nil)
			if api.IsNotFound(err) {
				return nil
			}
			return err
		case corev1.PersistentVolumeReclaimRecycle:
			if pv.Status.Phase == corev1.VolumeFailed {
				return nil
			}
			if err := c.setVolumePhase(ctx, pv, corev1.VolumeFailed, VolumeFailedRecycle, "No recycler plugin found for the volume!"); err != nil {
				return err
			}
			return c.recorder.Eventf(ctx, record.Ref(pv, volumeGVK), "Warning", VolumeFailedRecycle, "No recycler plugin found for the volume!")
		}
	}
	if pv.Status.Phase == phase || (pv.Status.Phase == corev1.VolumeFailed && phase == corev1.VolumeReleased) {
		return nil
	}
	return c.setVolumePhase(ctx, pv, phase, "", "")
}

func (c *Controller) setVolumePhase(ctx context.Context, pv *corev1.PersistentVolume, phase corev1.PersistentVolumePhase, reason, msg string) error {
	upd := pv.DeepCopy()
	now := metav1.NewTime(c.clock.Now().UTC().Truncate(1e9))
	upd.Status.Phase, upd.Status.Reason, upd.Status.Message, upd.Status.LastPhaseTransitionTime = phase, reason, msg, &now
	_, err := c.client.PersistentVolumes().UpdateStatus(ctx, upd)
	return err
}

func (c *Controller) event(ctx context.Context, pvc *corev1.PersistentVolumeClaim, typ, reason, msg string) error {
	return c.recorder.Eventf(ctx, record.Ref(pvc, claimGVK), typ, reason, "%s", msg)
}

func setAnnotation(m *metav1.ObjectMeta, k, v string) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[k] = v
}

// removeData removes the data of the volumes named name that are gone:
// every one when pv is nil, else those of another uid (an earlier
// volume of that name). For a volume reclaimed by its Delete policy this
// is the provisioner deleting the storage; for one an administrator
// deleted by hand, nothing could reach its data any more.
func (c *Controller) removeData(name string, pv *corev1.PersistentVolume) error {
	if c.data == nil {
		return nil
	}
	held, err := c.data.Volumes()
	if err != nil {
		return fmt.Errorf("listing the volumes' data: %w", err)
	}
	for _, v := range held {
		if v[0] != name || pv != nil && string(pv.UID) == v[1] {
			continue
		}
		if err := c.data.Delete(v[0], types.UID(v[1])); err != nil {
			return fmt.Errorf("removing the data of volume %s: %w", name, err)
		}
	}
	return nil
}
