package kinds

import (
	"encoding/json"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// The annotations in which autoscaling/v1 keeps what it cannot say of an
// autoscaling/v2 HPA, so that a v1 round trip loses nothing (the names
// Kubernetes' conversion uses; the values here are v2 JSON).
const (
	hpaMetricsAnnotation        = "autoscaling.alpha.kubernetes.io/metrics"
	hpaBehaviorAnnotation       = "autoscaling.alpha.kubernetes.io/behavior"
	hpaConditionsAnnotation     = "autoscaling.alpha.kubernetes.io/conditions"
	hpaCurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
)

// isCPUUtilization reports whether m is the one metric v1 can say.
func isCPUUtilization(m autoscalingv2.MetricSpec) bool {
	return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU &&
		m.Resource.Target.Type == autoscalingv2.UtilizationMetricType && m.Resource.Target.AverageUtilization != nil
}

// HPAToV1 converts a stored (v2) HPA to autoscaling/v1.
func HPAToV1(h *autoscalingv2.HorizontalPodAutoscaler) *autoscalingv1.HorizontalPodAutoscaler {
	out := &autoscalingv1.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: *h.ObjectMeta.DeepCopy(),
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv1.CrossVersionObjectReference(h.Spec.ScaleTargetRef), MinReplicas: h.Spec.MinReplicas,
			MaxReplicas: h.Spec.MaxReplicas},
		Status: autoscalingv1.HorizontalPodAutoscalerStatus{ObservedGeneration: h.Status.ObservedGeneration, LastScaleTime: h.Status.LastScaleTime,
			CurrentReplicas: h.Status.CurrentReplicas, DesiredReplicas: h.Status.DesiredReplicas},
	}
	var other []autoscalingv2.MetricSpec
	for _, m := range h.Spec.Metrics {
		if isCPUUtilization(m) && out.Spec.TargetCPUUtilizationPercentage == nil {
			out.Spec.TargetCPUUtilizationPercentage = ptrTo(*m.Resource.Target.AverageUtilization)
			continue
		}
		other = append(other, m)
	}
	var otherCurrent []autoscalingv2.MetricStatus
	for _, m := range h.Status.CurrentMetrics {
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU &&
			m.Resource.Current.AverageUtilization != nil && out.Status.CurrentCPUUtilizationPercentage == nil {
			out.Status.CurrentCPUUtilizationPercentage = ptrTo(*m.Resource.Current.AverageUtilization)
			continue
		}
		otherCurrent = append(otherCurrent, m)
	}
	annotate := func(key string, v any, set bool) {
		if !set {
			return
		}
		b, _ := json.Marshal(v)
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[key] = string(b)
	}
	annotate(hpaMetricsAnnotation, other, len(other) > 0)
	annotate(hpaBehaviorAnnotation, h.Spec.Behavior, h.Spec.Behavior != nil)
	annotate(hpaConditionsAnnotation, h.Status.Conditions, len(h.Status.Conditions) > 0)
	annotate(hpaCurrentMetricsAnnotation, otherCurrent, len(otherCurrent) > 0)
	return out
}

// HPAFromV1 converts an autoscaling/v1 HPA to the stored v2 form.
func HPAFromV1(v *autoscalingv1.HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscaler {
	h := &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: *v.ObjectMeta.DeepCopy(),
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference(v.Spec.ScaleTargetRef), MinReplicas: v.Spec.MinReplicas,
			MaxReplicas: v.Spec.MaxReplicas},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{ObservedGeneration: v.Status.ObservedGeneration, LastScaleTime: v.Status.LastScaleTime,
			CurrentReplicas: v.Status.CurrentReplicas, DesiredReplicas: v.Status.DesiredReplicas},
	}
	if t := v.Spec.TargetCPUUtilizationPercentage; t != nil {
		h.Spec.Metrics = append(h.Spec.Metrics, autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptrTo(*t)}}})
	}
	if c := v.Status.CurrentCPUUtilizationPercentage; c != nil {
		h.Status.CurrentMetrics = append(h.Status.CurrentMetrics, autoscalingv2.MetricStatus{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
			Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptrTo(*c)}}})
	}
	restore := func(key string, into any) {
		if s, ok := h.Annotations[key]; ok {
			_ = json.Unmarshal([]byte(s), into)
			delete(h.Annotations, key)
		}
	}
	var other []autoscalingv2.MetricSpec
	restore(hpaMetricsAnnotation, &other)
	h.Spec.Metrics = append(h.Spec.Metrics, other...)
	restore(hpaBehaviorAnnotation, &h.Spec.Behavior)
	restore(hpaConditionsAnnotation, &h.Status.Conditions)
	var otherCurrent []autoscalingv2.MetricStatus
	restore(hpaCurrentMetricsAnnotation, &otherCurrent)
	h.Status.CurrentMetrics = append(h.Status.CurrentMetrics, otherCurrent...)
	if len(h.Annotations) == 0 {
		h.Annotations = nil
	}
	return h
}

// hpaV1Strategy: v1 has its own defaults (minReplicas only); it is
// validated in its v2 form, as kube-apiserver validates the internal type.
type hpaV1Strategy struct{ hpaStrategy }

// Default implements registry.Strategy. An HPA that names no metric,
// neither a CPU target nor others in the metrics annotation, targets 80%
// CPU: kube-apiserver defaults it in the conversion from v1 (which reads
// the annotation), so the answer to the write shows it as every later read
// does.
func (hpaV1Strategy) Default(obj api.Object) {
	h := obj.(*autoscalingv1.HorizontalPodAutoscaler)
	if h.Spec.MinReplicas == nil {
		h.Spec.MinReplicas = ptrTo(int32(1))
	}
	if h.Spec.TargetCPUUtilizationPercentage == nil && h.Annotations[hpaMetricsAnnotation] == "" {
		h.Spec.TargetCPUUtilizationPercentage = ptrTo(int32(DefaultCPUUtilization))
	}
}

// Validate implements registry.Strategy.
func (hpaV1Strategy) Validate(obj api.Object) field.ErrorList {
	v := obj.(*autoscalingv1.HorizontalPodAutoscaler)
	errs := ValidateHPA(HPAFromV1(v))
	if t := v.Spec.TargetCPUUtilizationPercentage; t != nil && *t < 1 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "targetCPUUtilizationPercentage"), *t, "must be greater than 0"))
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (s hpaV1Strategy) ValidateUpdate(obj, _ api.Object) field.ErrorList { return s.Validate(obj) }

func hpaV1ToStored(value []byte) ([]byte, error) {
	var v autoscalingv1.HorizontalPodAutoscaler
	if err := json.Unmarshal(value, &v); err != nil {
		return nil, err
	}
	h := HPAFromV1(&v)
	SetHPADefaults(h)
	return json.Marshal(h)
}

func hpaV1FromStored(value []byte) []byte {
	if value == nil {
		return nil
	}
	var h autoscalingv2.HorizontalPodAutoscaler
	if err := json.Unmarshal(value, &h); err != nil {
		return value
	}
	out, err := json.Marshal(HPAToV1(&h))
	if err != nil {
		return value
	}
	return out
}
