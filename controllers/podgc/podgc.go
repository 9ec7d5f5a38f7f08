package podgc

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
)

// ControllerName is the name --controllers uses.
const ControllerName = "podgc"

// Component is the controller's user agent.
const Component = "pod-garbage-collector"

// QuarantineTime is how long a node must be missing before its pods are
// orphans (the real controller's quarantineTime).
const QuarantineTime = 40 * time.Second

// What the collector writes on an orphan before deleting it.
const (
	reasonDeletionByPodGC  = "DeletionByPodGC"
	messageDeletionByPodGC = "PodGC: node no longer exists"
)

// Config builds a Controller: what every controller of the controller
// manager is built from (Client and Clock are required; the clock times
// the quarantine).
type Config = controllers.BaseConfig

// Controller is the pod garbage collector.
type Controller struct {
	client *client.Client
	clock  clock.Clock
	logger *slog.Logger
	pods   *cache.Informer[*corev1.Pod]
	nodes  *cache.Informer[*corev1.Node]
	ctrl   *controllers.Controller

	mu sync.Mutex
	// missing is when each missing node was first found missing.
	missing map[string]time.Time
}

// nodeNameIndex indexes pods by spec.nodeName.
const nodeNameIndex = "spec.nodeName"

// New builds the controller and its informers (not yet synced).
func New(cfg Config) (*Controller, error) {
	c := &Controller{client: cfg.Client, clock: cfg.Clock, missing: map[string]time.Time{}}
	ctrl, err := cfg.NewController(ControllerName, controllers.ReconcileFunc(c.reconcile))
	if err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c.logger = cfg.Logger.With("controller", ControllerName)
	c.ctrl = ctrl
	c.pods = controllers.InformerFor(ctrl, cfg.Client.Pods())
	c.nodes = controllers.InformerFor(ctrl, cfg.Client.Nodes())
	c.pods.AddIndexer(nodeNameIndex, func(p *corev1.Pod) []string { return []string{p.Spec.NodeName} })
	onPod := func(event string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			if c.candidate(p) {
				ctrl.Enqueue(cache.Key(&p.ObjectMeta), controllers.CauseOf(event, "Pod", &p.ObjectMeta))
			}
		}
	}
	c.pods.AddHandler(cache.Handler[*corev1.Pod]{OnAdd: onPod("ADDED"), OnUpdate: func(_, p *corev1.Pod) { onPod("MODIFIED")(p) }})
	onNode := func(event string) func(*corev1.Node) {
		return func(n *corev1.Node) {
			for _, p := range c.pods.ByIndex(nodeNameIndex, n.Name) {
				if c.candidate(p) || event == "DELETED" {
					ctrl.Enqueue(cache.Key(&p.ObjectMeta), controllers.CauseOf(event, "Node", &n.ObjectMeta))
				}
			}
		}
	}
	c.nodes.AddHandler(cache.Handler[*corev1.Node]{OnUpdate: func(_, n *corev1.Node) { onNode("MODIFIED")(n) }, OnDelete: onNode("DELETED")})
	return c, nil
}

// Controllers returns the controller's one loop, for the stepper.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.ctrl}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// candidate says whether pod may be the collector's: bound to a node
// its cache lacks, terminating and unscheduled, or terminating on an
// out-of-service node.
func (c *Controller) candidate(p *corev1.Pod) bool {
	if p.Spec.NodeName == "" {
		return p.DeletionTimestamp != nil
	}
	node, ok := c.nodes.Get("", p.Spec.NodeName)
	return !ok || p.DeletionTimestamp != nil && outOfService(node)
}

// outOfService: the node is not ready and an administrator marked it
// shut down for good.
func outOfService(n *corev1.Node) bool {
	ready := false
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			ready = cond.Status == corev1.ConditionTrue
		}
	}
	if ready {
		return false
	}
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeOutOfService && t.Effect == corev1.TaintEffectNoExecute {
			return true
		}
	}
	return false
}

func (c *Controller) reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, name, _ := strings.Cut(key, "/")
	pod, ok := c.pods.Get(ns, name)
	if !ok {
		return controllers.Result{}, nil
	}
	now := c.clock.Now()
	switch {
	case pod.Spec.NodeName == "":
		if pod.DeletionTimestamp == nil {
			return controllers.Result{}, nil
		}
		c.logger.Info("deleting an unscheduled terminating pod", "pod", key)
		return controllers.Result{}, c.forceDelete(ctx, pod)
	case c.nodeExists(pod.Spec.NodeName):
		if node, ok := c.nodes.Get("", pod.Spec.NodeName); ok && pod.DeletionTimestamp != nil && outOfService(node) {
			c.logger.Info("deleting a terminating pod on an out-of-service node", "pod", key, "node", node.Name)
			return controllers.Result{}, c.markFailedAndDelete(ctx, pod, nil, now)
		}
		return controllers.Result{}, nil
	}
	// The node is missing from the cache: an orphan, once the node has
	// been gone for the quarantine time and the API server agrees.
	c.mu.Lock()
	since, seen := c.missing[pod.Spec.NodeName]
	if !seen {
		since = now
		c.missing[pod.Spec.NodeName] = now
	}
	c.mu.Unlock()
	if wait := since.Add(QuarantineTime).Sub(now); wait > 0 {
		return controllers.Result{RequeueAfter: wait}, nil
	}
	if _, err := c.client.Nodes().Get(ctx, "", pod.Spec.NodeName); err == nil {
		c.forgetMissing(pod.Spec.NodeName)
		return controllers.Result{}, nil // back, or the cache was behind
	} else if !api.IsNotFound(err) {
		return controllers.Result{}, fmt.Errorf("checking node %s: %w", pod.Spec.NodeName, err)
	}
	c.logger.Info("deleting an orphaned pod", "pod", key, "node", pod.Spec.NodeName)
	cond := &corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: reasonDeletionByPodGC, Message: messageDeletionByPodGC, LastTransitionTime: metav1.NewTime(now)}
	return controllers.Result{}, c.markFailedAndDelete(ctx, pod, cond, now)
}

// nodeExists: the node is in the cache (and so no longer missing).
func (c *Controller) nodeExists(name string) bool {
	if _, ok := c.nodes.Get("", name); ok {
		c.forgetMissing(name)
		return true
	}
	return false
}

func (c *Controller) forgetMissing(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.missing, name)
}

// markFailedAndDelete is the real collector's markFailedAndDeletePod: a
// pod that has not finished is Failed (with cond, when given) before it
// is deleted with grace period 0.
func (c *Controller) markFailedAndDelete(ctx context.Context, pod *corev1.Pod, cond *corev1.PodCondition, now time.Time) error {
	if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
		status := map[string]any{"phase": corev1.PodFailed}
		if cond != nil {
			status["conditions"] = []corev1.PodCondition{*cond}
		}
		patch, err := json.Marshal(map[string]any{"status": status})
		if err != nil {
			return err
		}
		if _, err := c.client.Pods().Patch(ctx, pod.Namespace, pod.Name, client.StrategicPatch, patch, "status"); err != nil {
			if api.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("marking pod %s/%s failed: %w", pod.Namespace, pod.Name, err)
		}
	}
	return c.forceDelete(ctx, pod)
}

// forceDelete deletes pod with grace period 0: gone at once, without a
// kubelet's word.
func (c *Controller) forceDelete(ctx context.Context, pod *corev1.Pod) error {
	zero := int64(0)
	uid := pod.UID
	err := c.client.Pods().Delete(ctx, pod.Namespace, pod.Name, &metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !api.IsNotFound(err) && !api.IsConflict(err) {
		return fmt.Errorf("deleting pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}
