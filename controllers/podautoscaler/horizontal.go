package podautoscaler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the name in --controllers and the stepper.
const ControllerName = "horizontalpodautoscaling"

// Component signs the controller's events.
const Component = "horizontal-pod-autoscaler"

// DefaultSyncPeriod is --horizontal-pod-autoscaler-sync-period.
const DefaultSyncPeriod = 15 * time.Second

// GroupVersionKind is what the events point at.
var GroupVersionKind = schema.GroupVersionKind{Group: api.AutoscalingGroupName, Version: "v2", Kind: "HorizontalPodAutoscaler"}

// Config configures the controller.
type Config struct {
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (kube-controller-manager's SharedInformerFactory; nil:
	// private ones).
	Informers *cache.Factory
	Clock     clock.Clock
	Mode      runmode.Mode
	// SyncPeriod is how often each HPA is reconciled (DefaultSyncPeriod).
	SyncPeriod time.Duration
	// DownscaleStabilization is the window of HPAs without behavior.
	DownscaleStabilization time.Duration
	// Calculator holds the tolerance and readiness periods
	// (DefaultCalculator when zero).
	Calculator Calculator
	Logger     *slog.Logger
}

// HorizontalController is the HPA controller.
type HorizontalController struct {
	cfg        Config
	recorder   *record.Recorder
	hpas       *cache.Informer[*autoscalingv2.HorizontalPodAutoscaler]
	hpaClient  *client.Resource[*autoscalingv2.HorizontalPodAutoscaler]
	metrics    *client.Resource[*metricsv1beta1.PodMetrics]
	controller *controllers.Controller

	mu      sync.Mutex
	history map[string]*history
}

// HPAInfo is the autoscaling/v2 resource.
var HPAInfo = client.ResourceInfo{Group: api.AutoscalingGroupName, Version: "v2", Resource: "horizontalpodautoscalers", Namespaced: true}

// PodMetricsInfo is the resource metrics API's pods.
var podMetricsInfo = client.ResourceInfo{Group: api.MetricsGroupName, Version: "v1beta1", Resource: "pods", Namespaced: true}

// New builds the controller and its informers.
func New(cfg Config) (*HorizontalController, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("podautoscaler: Client and Clock are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.SyncPeriod <= 0 {
		cfg.SyncPeriod = DefaultSyncPeriod
	}
	if cfg.DownscaleStabilization <= 0 {
		cfg.DownscaleStabilization = DefaultDownscaleStabilization
	}
	if cfg.Calculator == (Calculator{}) {
		cfg.Calculator = DefaultCalculator()
	}
	hpaClient := client.For(cfg.Client, HPAInfo, func() *autoscalingv2.HorizontalPodAutoscaler { return &autoscalingv2.HorizontalPodAutoscaler{} })
	c := &HorizontalController{
		cfg:       cfg,
		recorder:  record.New(record.Config{Client: cfg.Client, Component: Component, Clock: cfg.Clock, Mode: cfg.Mode}),
		hpaClient: hpaClient,
		metrics:   client.For(cfg.Client, podMetricsInfo, func() *metricsv1beta1.PodMetrics { return &metricsv1beta1.PodMetrics{} }),
		history:   map[string]*history{},
	}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: c,
		Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger, Periodic: true})
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	c.hpas = controllers.InformerFor(ctrl, hpaClient)
	enqueue := func(event string, h *autoscalingv2.HorizontalPodAutoscaler) {
		c.controller.Enqueue(h.Namespace+"/"+h.Name, controllers.CauseOf(event, "HorizontalPodAutoscaler", &h.ObjectMeta))
	}
	c.hpas.AddHandler(cache.Handler[*autoscalingv2.HorizontalPodAutoscaler]{
		OnAdd: func(h *autoscalingv2.HorizontalPodAutoscaler) { enqueue("ADDED", h) },
		// A status write of our own changes nothing to decide; a new
		// spec is looked at at once. (An HPA has no metadata.generation
		// to tell them apart: kube-apiserver sets none for it.)
		OnUpdate: func(old, h *autoscalingv2.HorizontalPodAutoscaler) {
			if !equality.Semantic.DeepEqual(old.Spec, h.Spec) {
				enqueue("MODIFIED", h)
			}
		},
		OnDelete: func(h *autoscalingv2.HorizontalPodAutoscaler) {
			c.mu.Lock()
			delete(c.history, h.Namespace+"/"+h.Name)
			c.mu.Unlock()
		},
	})
	return c, nil
}

// Controllers implements the cluster's Component.
func (c *HorizontalController) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.controller}
}

// Run runs the loop until ctx ends.
func (c *HorizontalController) Run(ctx context.Context) { c.controller.Run(ctx) }

// Reconcile implements controllers.Reconciler: one sync of one HPA, then
// again after the sync period.
func (c *HorizontalController) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, name := cache.SplitKey(key)
	h, ok := c.hpas.Get(ns, name)
	if !ok {
		return controllers.Result{}, nil
	}
	err := c.reconcile(ctx, h.DeepCopy())
	if err != nil {
		c.cfg.Logger.Info("horizontal pod autoscaler", "hpa", key, "err", err)
	}
	// Errors are reported in the status and events; the next try is the
	// next sync, as in Kubernetes.
	return controllers.Result{RequeueAfter: c.cfg.SyncPeriod}, nil
}

func (c *HorizontalController) now() metav1.Time {
	return metav1.NewTime(c.cfg.Clock.Now().UTC().Truncate(time.Second))
}

func (c *HorizontalController) event(ctx context.Context, h *autoscalingv2.HorizontalPodAutoscaler, typ, reason, format string, args ...any) {
	if err := c.recorder.Eventf(ctx, record.Ref(h, GroupVersionKind), typ, reason, format, args...); err != nil {
		c.cfg.Logger.Info("recording an event", "err", err)
	}
}

// setCondition sets a condition; its transition time moves only when
// its status changes.
func (c *HorizontalController) setCondition(h *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType, cond condition) {
	for i := range h.Status.Conditions {
		existing := &h.Status.Conditions[i]
		if existing.Type != t {
			continue
		}
		if existing.Status != cond.status {
			existing.LastTransitionTime = c.now()
		}
		existing.Status, existing.Reason, existing.Message = cond.status, cond.reason, cond.message
		return
	}
	h.Status.Conditions = append(h.Status.Conditions, autoscalingv2.HorizontalPodAutoscalerCondition{Type: t, Status: cond.status,
		LastTransitionTime: c.now(), Reason: cond.reason, Message: cond.message})
}

// history of an HPA (under c.mu).
func (c *HorizontalController) historyOf(key string) *history {
	if c.history[key] == nil {
		c.history[key] = &history{}
	}
	return c.history[key]
}

// reconcile is reconcileAutoscaler.
func (c *HorizontalController) reconcile(ctx context.Context, h *autoscalingv2.HorizontalPodAutoscaler) error {
	original := h.Status.DeepCopy()
	key := h.Namespace + "/" + h.Name
	ref := h.Spec.ScaleTargetRef.Kind + "/" + h.Spec.ScaleTargetRef.Name
	scalePath, scale, err := c.getScale(ctx, h)
	if err != nil {
		c.event(ctx, h, corev1.EventTypeWarning, "FailedGetScale", "%v", err)
		c.setCondition(h, autoscalingv2.AbleToScale, condition{corev1.ConditionFalse, "FailedGetScale", fmt.Sprintf("the HPA controller was unable to get the target's current scale: %v", err)})
		c.writeStatus(ctx, h, original)
		return fmt.Errorf("failed to query scale subresource for %s: %w", ref, err)
	}
	c.setCondition(h, autoscalingv2.AbleToScale, condition{corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale"})
	current := scale.Spec.Replicas
	minReplicas := int32(1)
	if h.Spec.MinReplicas != nil {
		minReplicas = *h.Spec.MinReplicas
	}

	// The workqueue never gives one key to two workers at once: the
	// history of this HPA is this reconcile's alone.
	c.mu.Lock()
	hist := c.historyOf(key)
	c.mu.Unlock()
	now := c.cfg.Clock.Now()
	if len(hist.recommendations) == 0 {
		// recordInitialRecommendation: the current size counts as a
		// recommendation, so a fresh HPA does not scale down at once.
		hist.recommendations = append(hist.recommendations, recommendation{current, now})
	}

	var desired int32
	var reason string
	var statuses []autoscalingv2.MetricStatus
	rescale := true
	switch {
	case current == 0 && minReplicas != 0:
		rescale = false
		c.setCondition(h, autoscalingv2.ScalingActive, condition{corev1.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero"})
	case current > h.Spec.MaxReplicas:
		reason, desired = "Current number of replicas above Spec.MaxReplicas", h.Spec.MaxReplicas
	case current < minReplicas:
		reason, desired = "Current number of replicas below Spec.MinReplicas", minReplicas
	default:
		proposal, metricName, st, err := c.computeReplicasForMetrics(ctx, h, scale, now)
		statuses = st
		if err != nil && proposal == -1 {
			h.Status.CurrentReplicas = current
			h.Status.CurrentMetrics = statuses
			c.writeStatus(ctx, h, original)
			return fmt.Errorf("failed to compute desired number of replicas based on listed metrics for %s: %w", ref, err)
		}
		desired = proposal
		switch {
		case desired > current:
			reason = metricName + " above target"
		case desired < current:
			reason = "All metrics below target"
		}
		var n normalized
		if h.Spec.Behavior == nil {
			n = hist.Normalize(now, c.cfg.DownscaleStabilization, current, desired, minReplicas, h.Spec.MaxReplicas)
		} else {
			n = hist.NormalizeWithBehavior(now, h.Spec.Behavior.ScaleUp, h.Spec.Behavior.ScaleDown, current, desired, minReplicas, h.Spec.MaxReplicas)
		}
		c.setCondition(h, autoscalingv2.AbleToScale, n.ableToScale)
		c.setCondition(h, autoscalingv2.ScalingLimited, n.scalingLimited)
		desired = n.replicas
		rescale = desired != current
	}

	if rescale {
		body := fmt.Sprintf(`{"spec":{"replicas":%d}}`, desired)
		if _, err := client.Dynamic(c.cfg.Client, scalePath.info).Patch(ctx, h.Namespace, scalePath.name, client.MergePatch, []byte(body), "scale"); err != nil {
			c.event(ctx, h, corev1.EventTypeWarning, "FailedRescale", "New size: %d; reason: %s; error: %v", desired, reason, err)
			c.setCondition(h, autoscalingv2.AbleToScale, condition{corev1.ConditionFalse, "FailedUpdateScale", fmt.Sprintf("the HPA controller was unable to update the target scale: %v", err)})
			h.Status.CurrentReplicas, h.Status.CurrentMetrics = current, statuses
			c.writeStatus(ctx, h, original)
			return fmt.Errorf("failed to rescale %s: %w", ref, err)
		}
		c.setCondition(h, autoscalingv2.AbleToScale, condition{corev1.ConditionTrue, "SucceededRescale", fmt.Sprintf("the HPA controller was able to update the target scale to %d", desired)})
		c.event(ctx, h, corev1.EventTypeNormal, "SuccessfulRescale", "New size: %d; reason: %s", desired, reason)
		hist.recordScale(now, h.Spec.Behavior, current, desired)
		t := c.now()
		h.Status.LastScaleTime = &t
	} else {
		desired = current
	}
	h.Status.CurrentReplicas, h.Status.DesiredReplicas, h.Status.CurrentMetrics = current, desired, statuses
	h.Status.ObservedGeneration = &h.Generation
	c.writeStatus(ctx, h, original)
	return nil
}

// writeStatus writes the status if it changed.
func (c *HorizontalController) writeStatus(ctx context.Context, h *autoscalingv2.HorizontalPodAutoscaler, original *autoscalingv2.HorizontalPodAutoscalerStatus) {
	if equality.Semantic.DeepEqual(original, &h.Status) {
		return
	}
	if _, err := c.hpaClient.UpdateStatus(ctx, h); err != nil {
		c.cfg.Logger.Info("updating an HPA's status", "hpa", h.Namespace+"/"+h.Name, "err", err)
	}
}

// scaleTarget is where the target's scale subresource is.
type scaleTarget struct {
	info client.ResourceInfo
	name string
}

// getScale finds the target's resource by discovery of its group-version
// and reads its scale subresource.
func (c *HorizontalController) getScale(ctx context.Context, h *autoscalingv2.HorizontalPodAutoscaler) (scaleTarget, *autoscalingv1.Scale, error) {
	ref := h.Spec.ScaleTargetRef
	gv := ref.APIVersion
	if gv == "" {
		gv = "v1"
	}
	path := "/apis/" + gv
	if gv == "v1" {
		path = "/api/v1"
	}
	data, err := c.cfg.Client.RawGet(ctx, path)
	if err != nil {
		return scaleTarget{}, nil, err
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(data, &list); err != nil {
		return scaleTarget{}, nil, err
	}
	group, version, found := strings.Cut(gv, "/")
	if !found {
		group, version = "", gv
	}
	var target scaleTarget
	for _, r := range list.APIResources {
		if r.Kind == ref.Kind && !strings.Contains(r.Name, "/") {
			target = scaleTarget{info: client.ResourceInfo{Group: group, Version: version, Resource: r.Name, Namespaced: r.Namespaced}, name: ref.Name}
		}
	}
	if target.info.Resource == "" {
		return scaleTarget{}, nil, fmt.Errorf("unable to determine resource for scale target reference: no matches for kind %q in group %q", ref.Kind, group)
	}
	base := "/apis/" + gv
	if group == "" {
		base = "/api/" + version
	}
	data, err = c.cfg.Client.RawGet(ctx, base+"/namespaces/"+h.Namespace+"/"+target.info.Resource+"/"+ref.Name+"/scale")
	if err != nil {
		return scaleTarget{}, nil, err
	}
	var scale autoscalingv1.Scale
	if err := json.Unmarshal(data, &scale); err != nil {
		return scaleTarget{}, nil, err
	}
	return target, &scale, nil
}

// computeReplicasForMetrics proposes a replica count per metric and
// keeps the largest; -1 with an error when no metric gave one.
func (c *HorizontalController) computeReplicasForMetrics(ctx context.Context, h *autoscalingv2.HorizontalPodAutoscaler, scale *autoscalingv1.Scale, now time.Time) (int32, string, []autoscalingv2.MetricStatus, error) {
	selector, err := labels.Parse(scale.Status.Selector)
	if scale.Status.Selector == "" || err != nil {
		msg := "selector is required"
		if err != nil {
			msg = fmt.Sprintf("couldn't convert selector into a corresponding internal selector object: %v", err)
		}
		c.event(ctx, h, corev1.EventTypeWarning, "InvalidSelector", "%s", msg)
		c.setCondition(h, autoscalingv2.ScalingActive, condition{corev1.ConditionFalse, "InvalidSelector", "the HPA target's scale is missing a selector"})
		return -1, "", nil, errors.New(msg)
	}
	statuses := make([]autoscalingv2.MetricStatus, len(h.Spec.Metrics))
	replicas, name := int32(-1), ""
	var invalid int
	var firstErr error
	var firstCond condition
	for i, spec := range h.Spec.Metrics {
		proposal, metricName, status, cond, err := c.computeMetric(ctx, h, scale.Spec.Replicas, spec, selector, now)
		if err != nil {
			if invalid == 0 {
				firstErr, firstCond = err, cond
			}
			invalid++
			continue
		}
		statuses[i] = status
		if replicas == -1 || proposal > replicas {
			replicas, name = proposal, metricName
		}
	}
	if invalid > 0 && (invalid >= len(h.Spec.Metrics) || replicas < scale.Spec.Replicas) {
		// No usable metric, or a scale down decided without some of
		// them: do nothing rather than risk the wrong size.
		c.setCondition(h, autoscalingv2.ScalingActive, firstCond)
		c.event(ctx, h, corev1.EventTypeWarning, "FailedComputeMetricsReplicas", "invalid metrics (%v invalid out of %v), first error is: %v", invalid, len(h.Spec.Metrics), firstErr)
		return -1, "", statuses, fmt.Errorf("invalid metrics (%v invalid out of %v), first error is: %w", invalid, len(h.Spec.Metrics), firstErr)
	}
	c.setCondition(h, autoscalingv2.ScalingActive, condition{corev1.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from " + name})
	return replicas, name, statuses, nil
}

// computeMetric is computeReplicasForMetric for one metric.
func (c *HorizontalController) computeMetric(ctx context.Context, h *autoscalingv2.HorizontalPodAutoscaler, current int32, spec autoscalingv2.MetricSpec,
	selector labels.Selector, now time.Time) (int32, string, autoscalingv2.MetricStatus, condition, error) {
	var name corev1.ResourceName
	var target autoscalingv2.MetricTarget
	var container string
	switch {
	case spec.Type == autoscalingv2.ResourceMetricSourceType && spec.Resource != nil:
		name, target = spec.Resource.Name, spec.Resource.Target
	case spec.Type == autoscalingv2.ContainerResourceMetricSourceType && spec.ContainerResource != nil:
		name, target, container = spec.ContainerResource.Name, spec.ContainerResource.Target, spec.ContainerResource.Container
	default:
		err := fmt.Errorf("unknown metric source type %q", spec.Type)
		if spec.Type == autoscalingv2.ObjectMetricSourceType || spec.Type == autoscalingv2.PodsMetricSourceType || spec.Type == autoscalingv2.ExternalMetricSourceType {
			err = fmt.Errorf("unable to get %s metrics: the custom and external metrics APIs are not served by kubesim", strings.ToLower(string(spec.Type)))
		}
		cond := c.unableToCompute(ctx, h, "FailedGet"+string(spec.Type)+"Metric", err)
		return 0, "", autoscalingv2.MetricStatus{}, cond, fmt.Errorf("failed to get %s metric value: %w", strings.ToLower(string(spec.Type)), err)
	}
	pods, err := c.podsOf(ctx, h.Namespace, selector)
	if err != nil {
		return 0, "", autoscalingv2.MetricStatus{}, c.unableToCompute(ctx, h, "FailedGetResourceMetric", err), err
	}
	metrics, err := c.podMetrics(ctx, h.Namespace, selector, name, container)
	failed := func(err error) (int32, string, autoscalingv2.MetricStatus, condition, error) {
		reason := "FailedGetResourceMetric"
		if container != "" {
			reason = "FailedGetContainerResourceMetric"
		}
		cond := c.unableToCompute(ctx, h, reason, err)
		return 0, "", autoscalingv2.MetricStatus{}, cond, fmt.Errorf("failed to get %s resource metric value: %w", name, err)
	}
	current2 := func(v autoscalingv2.MetricValueStatus) autoscalingv2.MetricStatus {
		if container != "" {
			return autoscalingv2.MetricStatus{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricStatus{Name: name, Container: container, Current: v}}
		}
		return autoscalingv2.MetricStatus{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{Name: name, Current: v}}
	}
	if target.AverageValue != nil {
		if err != nil {
			return failed(fmt.Errorf("failed to get %s usage: %w", name, err))
		}
		replicas, avg, err := c.cfg.Calculator.RawResourceReplicas(current, target.AverageValue.MilliValue(), name, pods, metrics, now)
		if err != nil {
			return failed(fmt.Errorf("failed to get %s usage: %w", name, err))
		}
		return replicas, fmt.Sprintf("%s resource", name), current2(autoscalingv2.MetricValueStatus{AverageValue: resource.NewMilliQuantity(avg, resource.DecimalSI)}), condition{}, nil
	}
	if target.AverageUtilization == nil {
		return failed(errors.New("invalid resource metric source: neither a utilization target nor a value target was set"))
	}
	if err != nil {
		return failed(fmt.Errorf("failed to get %s utilization: %w", name, err))
	}
	replicas, utilization, raw, err := c.cfg.Calculator.ResourceReplicas(current, *target.AverageUtilization, name, container, pods, metrics, now)
	if err != nil {
		return failed(fmt.Errorf("failed to get %s utilization: %w", name, err))
	}
	metricName := fmt.Sprintf("%s resource utilization (percentage of request)", name)
	if container != "" {
		metricName = fmt.Sprintf("%s container resource utilization (percentage of request)", name)
	}
	return replicas, metricName, current2(autoscalingv2.MetricValueStatus{AverageUtilization: &utilization,
		AverageValue: resource.NewMilliQuantity(raw, resource.DecimalSI)}), condition{}, nil
}

// unableToCompute records the event and returns the ScalingActive
// condition of a metric that could not be computed.
func (c *HorizontalController) unableToCompute(ctx context.Context, h *autoscalingv2.HorizontalPodAutoscaler, reason string, err error) condition {
	c.event(ctx, h, corev1.EventTypeWarning, reason, "%v", err)
	return condition{corev1.ConditionFalse, reason, fmt.Sprintf("the HPA was unable to compute the replica count: %v", err)}
}

// podsOf lists the target's pods. The real controller reads them from
// the shared pod informer; kubesim's controllers each have their own
// informers, and a cluster-wide pod cache only for HPAs would cost every
// cluster (the 10,000-pod benchmark) memory, so it asks the API server,
// once per metric per sync, and only for the pods of the selector.
func (c *HorizontalController) podsOf(ctx context.Context, ns string, selector labels.Selector) ([]*corev1.Pod, error) {
	list, err := c.cfg.Client.Pods().List(ctx, ns, client.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// podMetrics reads the pods' usage of one resource from metrics.k8s.io
// (through the aggregator, to the metrics server), in milli-units.
func (c *HorizontalController) podMetrics(ctx context.Context, ns string, selector labels.Selector, name corev1.ResourceName, container string) (PodMetricsInfo, error) {
	list, err := c.metrics.List(ctx, ns, client.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return nil, fmt.Errorf("unable to get metrics for resource %s: unable to fetch metrics from resource metrics API: %w", name, err)
	}
	if len(list.Items) == 0 {
		return nil, fmt.Errorf("unable to get metrics for resource %s: %w", name, errNoMetrics)
	}
	out := PodMetricsInfo{}
	for _, m := range list.Items {
		var sum int64
		missing := len(m.Containers) == 0
		for _, ct := range m.Containers {
			if container != "" && ct.Name != container {
				continue
			}
			q, ok := ct.Usage[name]
			if !ok {
				missing = true
				break
			}
			sum += q.MilliValue()
		}
		if !missing {
			out[m.Name] = PodMetric{Timestamp: m.Timestamp.Time, Window: m.Window.Duration, Value: sum}
		}
	}
	return out, nil
}
