package kinds

import (
	"encoding/json"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"

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
func isCPUUtilization(m api.MetricSpec) bool {
	return m.Type == api.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == api.ResourceCPU &&
		m.Resource.Target.Type == api.UtilizationMetricType && m.Resource.Target.AverageUtilization != nil
}

// HPAToV1 converts a stored (v2) HPA to autoscaling/v1.
func HPAToV1(h *api.HorizontalPodAutoscaler) *api.HorizontalPodAutoscalerV1 {
	out := &api.HorizontalPodAutoscalerV1{
		TypeMeta:   api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: *h.ObjectMeta.DeepCopy(),
		Spec: api.HorizontalPodAutoscalerSpecV1{ScaleTargetRef: autoscalingv1.CrossVersionObjectReference(h.Spec.ScaleTargetRef), MinReplicas: h.Spec.MinReplicas,
			MaxReplicas: h.Spec.MaxReplicas},
		Status: api.HorizontalPodAutoscalerStatusV1{ObservedGeneration: h.Status.ObservedGeneration, LastScaleTime: h.Status.LastScaleTime,
			CurrentReplicas: h.Status.CurrentReplicas, DesiredReplicas: h.Status.DesiredReplicas},
	}
	var other []api.MetricSpec
	for _, m := range h.Spec.Metrics {
		if isCPUUtilization(m) && out.Spec.TargetCPUUtilizationPercentage == nil {
			out.Spec.TargetCPUUtilizationPercentage = ptrTo(*m.Resource.Target.AverageUtilization)
			continue
		}
		other = append(other, m)
	}
	var otherCurrent []api.MetricStatus
	for _, m := range h.Status.CurrentMetrics {
		if m.Type == api.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == api.ResourceCPU &&
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
func HPAFromV1(v *api.HorizontalPodAutoscalerV1) *api.HorizontalPodAutoscaler {
	h := &api.HorizontalPodAutoscaler{
		TypeMeta:   api.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: *v.ObjectMeta.DeepCopy(),
		Spec: api.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference(v.Spec.ScaleTargetRef), MinReplicas: v.Spec.MinReplicas,
			MaxReplicas: v.Spec.MaxReplicas},
		Status: api.HorizontalPodAutoscalerStatus{ObservedGeneration: v.Status.ObservedGeneration, LastScaleTime: v.Status.LastScaleTime,
			CurrentReplicas: v.Status.CurrentReplicas, DesiredReplicas: v.Status.DesiredReplicas},
	}
	if t := v.Spec.TargetCPUUtilizationPercentage; t != nil {
		h.Spec.Metrics = append(h.Spec.Metrics, api.MetricSpec{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{
			Name: api.ResourceCPU, Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: ptrTo(*t)}}})
	}
	if c := v.Status.CurrentCPUUtilizationPercentage; c != nil {
		h.Status.CurrentMetrics = append(h.Status.CurrentMetrics, api.MetricStatus{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricStatus{
			Name: api.ResourceCPU, Current: api.MetricValueStatus{AverageUtilization: ptrTo(*c)}}})
	}
	restore := func(key string, into any) {
		if s, ok := h.Annotations[key]; ok {
			_ = json.Unmarshal([]byte(s), into)
			delete(h.Annotations, key)
		}
	}
	var other []api.MetricSpec
	restore(hpaMetricsAnnotation, &other)
	h.Spec.Metrics = append(h.Spec.Metrics, other...)
	restore(hpaBehaviorAnnotation, &h.Spec.Behavior)
	restore(hpaConditionsAnnotation, &h.Status.Conditions)
	var otherCurrent []api.MetricStatus
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

// PrepareForCreate implements registry.Strategy.
func (hpaV1Strategy) PrepareForCreate(obj api.Object) {
	obj.(*api.HorizontalPodAutoscalerV1).Generation = 1
}

// PrepareForUpdate implements registry.Strategy.
func (hpaV1Strategy) PrepareForUpdate(obj, old api.Object) {
	h, o := obj.(*api.HorizontalPodAutoscalerV1), old.(*api.HorizontalPodAutoscalerV1)
	if !specEqualV1(h.Spec, o.Spec) {
		h.Generation = o.Generation + 1
	}
}

func specEqualV1(a, b api.HorizontalPodAutoscalerSpecV1) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// Default implements registry.Strategy.
func (hpaV1Strategy) Default(obj api.Object) {
	h := obj.(*api.HorizontalPodAutoscalerV1)
	if h.Spec.MinReplicas == nil {
		h.Spec.MinReplicas = ptrTo(int32(1))
	}
}

// Validate implements registry.Strategy.
func (hpaV1Strategy) Validate(obj api.Object) field.ErrorList {
	v := obj.(*api.HorizontalPodAutoscalerV1)
	errs := ValidateHPA(HPAFromV1(v))
	if t := v.Spec.TargetCPUUtilizationPercentage; t != nil && *t < 1 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "targetCPUUtilizationPercentage"), *t, "must be greater than 0"))
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (s hpaV1Strategy) ValidateUpdate(obj, _ api.Object) field.ErrorList { return s.Validate(obj) }

func hpaV1ToStored(value []byte) ([]byte, error) {
	var v api.HorizontalPodAutoscalerV1
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
	var h api.HorizontalPodAutoscaler
	if err := json.Unmarshal(value, &h); err != nil {
		return value
	}
	out, err := json.Marshal(HPAToV1(&h))
	if err != nil {
		return value
	}
	return out
}
