package protection

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// The names --controllers uses.
const (
	PVCControllerName = "pvc-protection"
	PVControllerName  = "pv-protection"
)

// Config builds either controller.
type Config struct {
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (kube-controller-manager's SharedInformerFactory; nil:
	// private ones).
	Informers *cache.Factory
	Clock     clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode   runmode.Mode
	Logger *slog.Logger
}

func (cfg *Config) check(name string) error {
	if cfg.Client == nil || cfg.Clock == nil {
		return errors.New(name + ": Client and Clock are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// PodUsesClaim reports whether pod keeps claim name in use: a scheduled
// pod that has not finished and mounts it (the kubelet refuses to start a
// pod on a claim being deleted, so an unscheduled pod holds nothing).
func PodUsesClaim(pod *api.Pod, name string) bool {
	if pod.Spec.NodeName == "" || pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
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
func ClaimInUse(pvc *api.PersistentVolumeClaim, pods []*api.Pod) bool {
	for _, p := range pods {
		if p.Namespace == pvc.Namespace && PodUsesClaim(p, pvc.Name) {
			return true
		}
	}
	return false
}

// VolumeInUse reports whether a volume is still bound to a claim.
func VolumeInUse(pv *api.PersistentVolume) bool { return pv.Status.Phase == api.VolumeBound }

// removeFinalizer returns a copy of m's finalizers without f.
func removeFinalizer(fs []string, f string) []string {
	return slices.DeleteFunc(slices.Clone(fs), func(x string) bool { return x == f })
}

// PVCProtection takes kubernetes.io/pvc-protection off a claim being
// deleted once no pod uses it (pkg/controller/volume/pvcprotection).
type PVCProtection struct {
	client     *client.Client
	claims     *cache.Informer[*api.PersistentVolumeClaim]
	pods       *cache.Informer[*api.Pod]
	controller *controllers.Controller
}

// NewPVCProtection builds the pvc-protection controller.
func NewPVCProtection(cfg Config) (*PVCProtection, error) {
	if err := cfg.check(PVCControllerName); err != nil {
		return nil, err
	}
	c := &PVCProtection{client: cfg.Client,
		claims: cache.For(cfg.Informers, cfg.Client.PersistentVolumeClaims(), "", client.ListOptions{}, cfg.Logger),
		pods:   cache.For(cfg.Informers, cfg.Client.Pods(), "", client.ListOptions{}, cfg.Logger)}
	ctrl, err := controllers.New(controllers.Config{Name: PVCControllerName, Reconciler: c,
		Sources: []controllers.Source{c.claims, c.pods}, Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	c.claims.AddHandler(controllers.EnqueueBeingDeleted[*api.PersistentVolumeClaim](ctrl, "PersistentVolumeClaim"))
	// A pod that stops or goes frees its claims.
	c.pods.AddHandler(cache.Handler[*api.Pod]{
		OnUpdate: func(_, p *api.Pod) { c.enqueuePodClaims("MODIFIED", p) },
		OnDelete: func(p *api.Pod) { c.enqueuePodClaims("DELETED", p) },
	})
	return c, nil
}

func (c *PVCProtection) enqueuePodClaims(event string, p *api.Pod) {
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
	volumes    *cache.Informer[*api.PersistentVolume]
	controller *controllers.Controller
}

// NewPVProtection builds the pv-protection controller.
func NewPVProtection(cfg Config) (*PVProtection, error) {
	if err := cfg.check(PVControllerName); err != nil {
		return nil, err
	}
	c := &PVProtection{client: cfg.Client,
		volumes: cache.For(cfg.Informers, cfg.Client.PersistentVolumes(), "", client.ListOptions{}, cfg.Logger)}
	ctrl, err := controllers.New(controllers.Config{Name: PVControllerName, Reconciler: c,
		Sources: []controllers.Source{c.volumes}, Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	c.volumes.AddHandler(controllers.EnqueueBeingDeleted[*api.PersistentVolume](ctrl, "PersistentVolume"))
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
