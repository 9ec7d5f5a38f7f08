package protection

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
)

// The names --controllers uses.
const (
	PVCControllerName = "pvc-protection"
	PVControllerName  = "pv-protection"
)

// Config builds either controller: the client, informers, clock and
// mode every controller of the controller manager is given.
type Config = controllers.BaseConfig

// PodUsesClaim reports whether pod keeps claim name in use: a scheduled
// pod that has not finished and mounts it (the kubelet refuses to start a
// pod on a claim being deleted, so an unscheduled pod holds nothing).
func PodUsesClaim(pod *corev1.Pod, name string) bool {
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == name {
			return true
		}
	}
	return false
}

// ClaimInUse reports whether any of pods (of the claim's namespace) uses it.
func ClaimInUse(pvc *corev1.PersistentVolumeClaim, pods []*corev1.Pod) bool {
	for _, p := range pods {
		if p.Namespace == pvc.Namespace && PodUsesClaim(p, pvc.Name) {
			return true
		}
	}
	return false
}

// VolumeInUse reports whether a volume is still bound to a claim.
func VolumeInUse(pv *corev1.PersistentVolume) bool { return pv.Status.Phase == corev1.VolumeBound }

// removeFinalizer returns a copy of m's finalizers without f.
func removeFinalizer(fs []string, f string) []string {
	return slices.DeleteFunc(slices.Clone(fs), func(x string) bool { return x == f })
}

// PVCProtection takes kubernetes.io/pvc-protection off a claim being
// deleted once no pod uses it (pkg/controller/volume/pvcprotection).
type PVCProtection struct {
	client     *client.Client
	claims     *cache.Informer[*corev1.PersistentVolumeClaim]
	pods       *cache.Informer[*corev1.Pod]
	controller *controllers.Controller
}

// NewPVCProtection builds the pvc-protection controller.
func NewPVCProtection(cfg Config) (*PVCProtection, error) {
	c := &PVCProtection{client: cfg.Client}
	ctrl, err := cfg.NewController(PVCControllerName, c)
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	c.claims = controllers.InformerFor(ctrl, cfg.Client.PersistentVolumeClaims())
	c.pods = controllers.InformerFor(ctrl, cfg.Client.Pods())
	c.claims.AddHandler(controllers.EnqueueBeingDeleted[*corev1.PersistentVolumeClaim](ctrl, "PersistentVolumeClaim"))
	// A pod that stops or goes frees its claims.
	c.pods.AddHandler(cache.Handler[*corev1.Pod]{
		OnUpdate: func(_, p *corev1.Pod) { c.enqueuePodClaims("MODIFIED", p) },
		OnDelete: func(p *corev1.Pod) { c.enqueuePodClaims("DELETED", p) },
	})
	return c, nil
}

func (c *PVCProtection) enqueuePodClaims(event string, p *corev1.Pod) {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		if pvc, ok := c.claims.Get(p.Namespace, v.PersistentVolumeClaim.ClaimName); ok && pvc.DeletionTimestamp != nil {
			c.controller.Enqueue(cache.Key(&pvc.ObjectMeta), controllers.CauseOf(event, "Pod", &p.ObjectMeta))
		}
	}
}

// Controllers implements the cluster's Component.
func (c *PVCProtection) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.controller}
}

// Run runs the controller until ctx ends (live mode).
func (c *PVCProtection) Run(ctx context.Context) { c.controller.Run(ctx) }

// Reconcile frees one claim being deleted if no pod uses it.
func (c *PVCProtection) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, name := cache.SplitKey(key)
	pvc, ok := c.claims.Get(ns, name)
	if !ok || pvc.DeletionTimestamp == nil || !slices.Contains(pvc.Finalizers, api.PVCProtectionFinalizer) {
		return controllers.Result{}, nil
	}
	if ClaimInUse(pvc, c.pods.ByIndex(cache.NamespaceIndex, ns)) {
		return controllers.Result{}, nil
	}
	upd := pvc.DeepCopy()
	upd.Finalizers = removeFinalizer(upd.Finalizers, api.PVCProtectionFinalizer)
	_, err := c.client.PersistentVolumeClaims().Update(ctx, upd)
	if api.IsNotFound(err) {
		return controllers.Result{}, nil
	}
	return controllers.Result{}, err
}

// PVProtection takes kubernetes.io/pv-protection off a volume being
// deleted once no claim is bound to it (pkg/controller/volume/pvprotection).
type PVProtection struct {
	client     *client.Client
	volumes    *cache.Informer[*corev1.PersistentVolume]
	controller *controllers.Controller
}

// NewPVProtection builds the pv-protection controller.
func NewPVProtection(cfg Config) (*PVProtection, error) {
	c := &PVProtection{client: cfg.Client}
	ctrl, err := cfg.NewController(PVControllerName, c)
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	c.volumes = controllers.InformerFor(ctrl, cfg.Client.PersistentVolumes())
	c.volumes.AddHandler(controllers.EnqueueBeingDeleted[*corev1.PersistentVolume](ctrl, "PersistentVolume"))
	return c, nil
}

// Controllers implements the cluster's Component.
func (c *PVProtection) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.controller}
}

// Run runs the controller until ctx ends (live mode).
func (c *PVProtection) Run(ctx context.Context) { c.controller.Run(ctx) }

// Reconcile frees one volume being deleted if it is not bound.
func (c *PVProtection) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	pv, ok := c.volumes.Get("", key)
	if !ok || pv.DeletionTimestamp == nil || !slices.Contains(pv.Finalizers, api.PVProtectionFinalizer) || VolumeInUse(pv) {
		return controllers.Result{}, nil
	}
	upd := pv.DeepCopy()
	upd.Finalizers = removeFinalizer(upd.Finalizers, api.PVProtectionFinalizer)
	_, err := c.client.PersistentVolumes().Update(ctx, upd)
	if api.IsNotFound(err) {
		return controllers.Result{}, nil
	}
	return controllers.Result{}, err
}
