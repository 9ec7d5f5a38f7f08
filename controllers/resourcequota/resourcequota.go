package resourcequota

import (
	"context"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/quota"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
)

// ControllerName is the name --controllers uses.
const ControllerName = "resourcequota"

// ResyncPeriod is how often every quota is recounted (the real
// controller's full resync).
const ResyncPeriod = 5 * time.Minute

// Config builds a Controller: the client, informers, clock and mode every
// controller of the controller manager is given.
type Config = controllers.BaseConfig

// Controller keeps every quota's status.
type Controller struct {
	client     *client.Client
	quotas     *cache.Informer[*corev1.ResourceQuota]
	pods       *cache.Informer[*corev1.Pod]
	services   *cache.Informer[*corev1.Service]
	configMaps *cache.Informer[*corev1.ConfigMap]
	secrets    *cache.Informer[*corev1.Secret]
	controller *controllers.Controller
}

// New checks cfg and builds the controller.
func New(cfg Config) (*Controller, error) {
	c := &Controller{client: cfg.Client}
	ctrl, err := cfg.NewController(ControllerName, c)
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	// The quotas are the keys; the objects they count refill them.
	c.quotas = controllers.InformerFor(ctrl, cfg.Client.ResourceQuotas())
	c.pods = controllers.InformerFor(ctrl, cfg.Client.Pods())
	c.services = controllers.InformerFor(ctrl, cfg.Client.Services())
	c.configMaps = controllers.InformerFor(ctrl, cfg.Client.ConfigMaps())
	c.secrets = controllers.InformerFor(ctrl, cfg.Client.Secrets())
	c.quotas.AddHandler(controllers.EnqueueObject[*corev1.ResourceQuota](ctrl, "ResourceQuota"))
	c.pods.AddHandler(replenish[*corev1.Pod](c, "Pod"))
	c.services.AddHandler(replenish[*corev1.Service](c, "Service"))
	c.configMaps.AddHandler(replenish[*corev1.ConfigMap](c, "ConfigMap"))
	c.secrets.AddHandler(replenish[*corev1.Secret](c, "Secret"))
	return c, nil
}

// replenish queues the quotas of the object's namespace when it comes,
// changes or goes.
func replenish[T api.Object](c *Controller, kind string) cache.Handler[T] {
	enqueue := func(event string, o T) {
		m := api.Meta(o)
		for _, q := range c.quotas.List() {
			if q.Namespace == m.Namespace {
				c.controller.Enqueue(cache.Key(&q.ObjectMeta), controllers.CauseOf(event, kind, m))
			}
		}
	}
	return cache.Handler[T]{
		OnAdd:    func(o T) { enqueue("ADDED", o) },
		OnUpdate: func(_, o T) { enqueue("MODIFIED", o) },
		OnDelete: func(o T) { enqueue("DELETED", o) },
	}
}

// Controllers implements the cluster's Component.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.controller}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.controller.Run(ctx) }

// Reconcile recounts one quota.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, name := cache.SplitKey(key)
	q, ok := c.quotas.Get(ns, name)
	if !ok {
		return controllers.Result{}, nil
	}
	objects := map[schema.GroupResource][]api.Object{}
	// Every quota is recounted after ResyncPeriod anyway: the admission
	// plugin may have charged a create that failed after it (the real
	// controller's full resync makes up for the same).
	res := controllers.Result{RequeueAfter: ResyncPeriod}
	for _, gr := range ResourcesOf(q.Spec.Hard) {
		list, err := c.list(ctx, ns, gr)
		if err != nil {
			return controllers.Result{}, err
		}
		objects[gr] = list
	}
	status := corev1.ResourceQuotaStatus{Hard: q.Spec.Hard, Used: Used(q, objects)}
	if equalStatus(status, q.Status) {
		return res, nil
	}
	upd := q.DeepCopy()
	upd.Status = status
	_, err := c.client.ResourceQuotas().UpdateStatus(ctx, upd)
	return res, err
}

// equalStatus compares quantities by value (1000m is 1).
func equalStatus(a, b corev1.ResourceQuotaStatus) bool {
	same := func(x, y corev1.ResourceList) bool {
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || v.Cmp(w) != 0 || v.String() != w.String() {
				return false
			}
		}
		return true
	}
	return same(a.Hard, b.Hard) && same(a.Used, b.Used)
}

// list reads the namespace's objects of gr: from an informer for the
// resources watched here, else through the API.
func (c *Controller) list(ctx context.Context, ns string, gr schema.GroupResource) (out []api.Object, err error) {
	inNS := func(objs []api.Object) []api.Object {
		var kept []api.Object
		for _, o := range objs {
			if api.Meta(o).Namespace == ns {
				kept = append(kept, o)
			}
		}
		return kept
	}
	if gr.Group == "" {
		switch gr.Resource {
		case "pods":
			return inNS(objectsOf(c.pods.List())), nil
		case "services":
			return inNS(objectsOf(c.services.List())), nil
		case "configmaps":
			return inNS(objectsOf(c.configMaps.List())), nil
		case "secrets":
			return inNS(objectsOf(c.secrets.List())), nil
		case "resourcequotas":
			return inNS(objectsOf(c.quotas.List())), nil
		}
	}
	l, err := client.Dynamic(c.client, client.ResourceInfo{Group: gr.Group, Version: "v1", Resource: gr.Resource, Namespaced: true}).
		List(ctx, ns, client.ListOptions{})
	if api.IsNotFound(err) {
		return nil, nil // not served (yet): nothing to count
	}
	if err != nil {
		return nil, err
	}
	for _, o := range l.Items {
		out = append(out, o)
	}
	return out, nil
}

func objectsOf[T api.Object](items []T) []api.Object {
	out := make([]api.Object, len(items))
	for i, o := range items {
		out[i] = o
	}
	return out
}

// ResourcesOf names the resources whose objects a quota's hard names
// count: pods for pods, cpu, requests.* and limits.*; services for
// services.*; count/deployments.apps for deployments of group apps...
func ResourcesOf(hard corev1.ResourceList) []schema.GroupResource {
	seen := map[schema.GroupResource]bool{}
	var out []schema.GroupResource
	for _, name := range quota.Names(hard) {
		gr, ok := resourceOf(name)
		if ok && !seen[gr] {
			seen[gr] = true
			out = append(out, gr)
		}
	}
	return out
}

func resourceOf(name corev1.ResourceName) (schema.GroupResource, bool) {
	n := string(name)
	if rest, ok := strings.CutPrefix(n, "count/"); ok {
		res, group, _ := strings.Cut(rest, ".")
		return schema.GroupResource{Group: group, Resource: res}, true
	}
	switch {
	case n == "pods" || n == "cpu" || n == "memory" || strings.HasPrefix(n, "limits.") ||
		(strings.HasPrefix(n, "requests.") && n != string(corev1.ResourceRequestsStorage)):
		return schema.GroupResource{Resource: "pods"}, true
	case n == "services" || strings.HasPrefix(n, "services."):
		return schema.GroupResource{Resource: "services"}, true
	case n == "persistentvolumeclaims" || n == string(corev1.ResourceRequestsStorage):
		return schema.GroupResource{Resource: "persistentvolumeclaims"}, true
	case n == "configmaps" || n == "secrets" || n == "resourcequotas" || n == "replicationcontrollers":
		return schema.GroupResource{Resource: n}, true
	}
	return schema.GroupResource{}, false
}

// Used is the quota's status.used: for every hard name, the sum of the
// usage of the objects the quota covers (zero when none).
func Used(q *corev1.ResourceQuota, objects map[schema.GroupResource][]api.Object) corev1.ResourceList {
	used := corev1.ResourceList{}
	for name := range q.Spec.Hard {
		used[name] = *resource.NewQuantity(0, resource.DecimalSI)
	}
	for gr, objs := range objects {
		for _, o := range objs {
			if !quota.Matches(q, o) {
				continue
			}
			for name, v := range quota.Usage(gr, o) {
				if cur, ok := used[name]; ok {
					cur.Add(v)
					used[name] = cur
				}
			}
		}
	}
	// A sum of zero prints in the format of the cap (0, not 0m).
	for name, v := range used {
		if v.IsZero() {
			used[name] = *resource.NewQuantity(0, q.Spec.Hard[name].Format)
		}
	}
	return used
}
