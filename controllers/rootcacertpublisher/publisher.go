package rootcacertpublisher

import (
	"context"
	"fmt"
	"log/slog"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName names the loop in traces and logs.
const ControllerName = "root-ca-cert-publisher"

// ConfigMapName and DataKey are where the CA is published.
const (
	ConfigMapName = "kube-root-ca.crt"
	DataKey       = "ca.crt"
	// descriptionAnnotation says what the ConfigMap is for, in the real
	// controller's words.
	descriptionAnnotation = "kubernetes.io/description"
	description           = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."
)

// Config builds a Controller.
type Config struct {
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (kube-controller-manager's SharedInformerFactory; nil:
	// private ones).
	Informers *cache.Factory
	Clock     clock.Clock
	Mode      runmode.Mode
	// RootCA is the PEM CA bundle to publish. Empty (a cluster without
	// TLS, as in step mode) leaves the loop idle.
	RootCA []byte
	Logger *slog.Logger
}

// Controller publishes the root CA in every namespace.
type Controller struct {
	cfg        Config
	namespaces *cache.Informer[*corev1.Namespace]
	configMaps *cache.Informer[*corev1.ConfigMap]
	ctrl       *controllers.Controller
}

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, fmt.Errorf("rootcacertpublisher: Client and Clock are required")
	}
	c := &Controller{cfg: cfg}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: c,
		Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c.ctrl = ctrl
	c.namespaces = controllers.InformerFor(ctrl, cfg.Client.Namespaces())
	// Only the ConfigMaps named kube-root-ca.crt are this controller's
	// business.
	c.configMaps = controllers.FilteredInformerFor(ctrl, cfg.Client.ConfigMaps(), "",
		client.ListOptions{FieldSelector: "metadata.name=" + ConfigMapName})
	if len(cfg.RootCA) == 0 {
		return c, nil
	}
	c.namespaces.AddHandler(cache.Handler[*corev1.Namespace]{
		OnAdd: func(ns *corev1.Namespace) {
			ctrl.Enqueue(ns.Name, controllers.CauseOf("ADDED", "Namespace", &ns.ObjectMeta))
		},
	})
	enqueueCM := func(event string) func(*corev1.ConfigMap) {
		return func(cm *corev1.ConfigMap) {
			ctrl.Enqueue(cm.Namespace, controllers.CauseOf(event, "ConfigMap", &cm.ObjectMeta))
		}
	}
	c.configMaps.AddHandler(cache.Handler[*corev1.ConfigMap]{
		OnUpdate: func(_, cm *corev1.ConfigMap) {
			if !c.current(cm) {
				enqueueCM("MODIFIED")(cm)
			}
		},
		OnDelete: enqueueCM("DELETED"),
	})
	return c, nil
}

// Controllers returns the loop, for the stepper.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.ctrl}
}

// Run runs the loop until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// current reports whether cm holds the CA as published.
func (c *Controller) current(cm *corev1.ConfigMap) bool {
	return cm.Data[DataKey] == string(c.cfg.RootCA) && cm.Annotations[descriptionAnnotation] == description
}

// Reconcile implements controllers.Reconciler: key is a namespace name.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, ok := c.namespaces.Get("", key)
	if !ok || ns.Status.Phase == corev1.NamespaceTerminating || ns.DeletionTimestamp != nil {
		return controllers.Result{}, nil
	}
	cms := c.cfg.Client.ConfigMaps()
	cached, ok := c.configMaps.Get(key, ConfigMapName)
	if !ok {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Namespace: key, Annotations: map[string]string{descriptionAnnotation: description}},
			Data:       map[string]string{DataKey: string(c.cfg.RootCA)},
		}
		_, err := cms.Create(ctx, cm)
		if api.IsAlreadyExists(err) || (err != nil && api.IsForbidden(err)) {
			return controllers.Result{}, nil
		}
		return controllers.Result{}, err
	}
	if c.current(cached) {
		return controllers.Result{}, nil
	}
	cm := cached.DeepCopy()
	cm.Data = map[string]string{DataKey: string(c.cfg.RootCA)}
	cm.Annotations = maps.Clone(cm.Annotations)
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[descriptionAnnotation] = description
	_, err := cms.Update(ctx, cm)
	if api.IsNotFound(err) {
		return controllers.Result{Requeue: true}, nil
	}
	return controllers.Result{}, err
}
