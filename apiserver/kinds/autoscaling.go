package kinds

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
	"github.com/kubesim/kubesim/store"
)

// --- autoscaling/v2 and autoscaling/v1 HorizontalPodAutoscalers ---

// autoscalingResources serves HorizontalPodAutoscalers at autoscaling/v2
// (the stored, preferred version) and autoscaling/v1, the version
// `kubectl autoscale` of kubectl v1.32 creates. Both share one stored
// object; v1 converts on the way in and out (autoscaling_v1.go).
func autoscalingResources(gen *schema.Generator) []*registry.Resource {
	stored := k8sschema.GroupResource{Group: api.AutoscalingGroupName, Resource: "horizontalpodautoscalers"}
	base := registry.Resource{
		Group: api.AutoscalingGroupName, Name: "horizontalpodautoscalers", SingularName: "horizontalpodautoscaler",
		Kind: "HorizontalPodAutoscaler", ListKind: "HorizontalPodAutoscalerList", ShortNames: []string{"hpa"},
		Categories: []string{"all"}, Namespaced: true, StrategicMergePatch: true, StatusSubresource: true,
		StorageGroupResource: stored, Table: hpaTable(),
	}
	v2 := base
	v2.Version = "v2"
	v2.New = func() api.Object { return &autoscalingv2.HorizontalPodAutoscaler{} }
	v2.Strategy = hpaStrategy{}
	v2.Schema = gen.FromGoType(reflect.TypeOf(autoscalingv2.HorizontalPodAutoscaler{}))
	v1 := base
	v1.Version = "v1"
	v1.New = func() api.Object { return &autoscalingv1.HorizontalPodAutoscaler{} }
	v1.Strategy = hpaV1Strategy{}
	v1.Schema = gen.FromGoType(reflect.TypeOf(autoscalingv1.HorizontalPodAutoscaler{}))
	v1.Table = hpaV1Table()
	// autoscaling/v1 HPAs are stored as v2 and read back as v1.
	v1.ToStored, v1.FromStored = hpaV1ToStored, hpaV1FromStored
	v1.DecorateStorage = func(st store.Interface) store.Interface {
		return store.Converting{Interface: st, ToStored: hpaV1ToStored, FromStored: hpaV1FromStored}
	}
	return []*registry.Resource{&v2, &v1}
}

// DefaultCPUUtilization is the target of an HPA that names no metric.
const DefaultCPUUtilization = 80

// The HPA's behavior limits (pkg/apis/autoscaling/validation).
const (
	maxPeriodSeconds              = 1800
	maxStabilizationWindowSeconds = 3600
)

// DefaultScaleUpRules are autoscaling/v2's scale-up defaults: no
// stabilization, and the larger of +100% or +4 pods each 15 seconds.
func DefaultScaleUpRules() autoscalingv2.HPAScalingRules {
	sel := autoscalingv2.MaxChangePolicySelect
	return autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptrTo(int32(0)), SelectPolicy: &sel,
		Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}}
}

// DefaultScaleDownRules: a 300 second window, then down to any size
// (-100%) each 15 seconds.
func DefaultScaleDownRules() autoscalingv2.HPAScalingRules {
	sel := autoscalingv2.MaxChangePolicySelect
	return autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptrTo(int32(300)), SelectPolicy: &sel,
		Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}}
}

func ptrTo[T any](v T) *T { return &v }

// fillRules fills the unset fields of r from def (GenerateHPAScale*Rules).
func fillRules(r *autoscalingv2.HPAScalingRules, def autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if r == nil {
		return &def
	}
	if r.StabilizationWindowSeconds == nil {
		r.StabilizationWindowSeconds = def.StabilizationWindowSeconds
	}
	if r.SelectPolicy == nil {
		r.SelectPolicy = def.SelectPolicy
	}
	if len(r.Policies) == 0 {
		r.Policies = def.Policies
	}
	return r
}

// SetHPADefaults is SetDefaults_HorizontalPodAutoscaler (autoscaling/v2):
// minReplicas 1, 80% CPU when no metric is named, and a behavior given in
// part completed from the defaults (an absent one stays absent: the
// controller then uses the defaults).
func SetHPADefaults(h *autoscalingv2.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		h.Spec.MinReplicas = ptrTo(int32(1))
	}
	if len(h.Spec.Metrics) == 0 {
		h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptrTo(int32(DefaultCPUUtilization))}}}}
	}
	if b := h.Spec.Behavior; b != nil {
		b.ScaleUp = fillRules(b.ScaleUp, DefaultScaleUpRules())
		b.ScaleDown = fillRules(b.ScaleDown, DefaultScaleDownRules())
	}
}

type hpaStrategy struct{ registry.DefaultStrategy }

// Default implements registry.Strategy.
func (hpaStrategy) Default(obj api.Object) {
	SetHPADefaults(obj.(*autoscalingv2.HorizontalPodAutoscaler))
}

// Validate implements registry.Strategy (ValidateHorizontalPodAutoscaler).
func (hpaStrategy) Validate(obj api.Object) field.ErrorList {
	return ValidateHPA(obj.(*autoscalingv2.HorizontalPodAutoscaler))
}

// ValidateUpdate implements registry.Strategy.
func (hpaStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return ValidateHPA(obj.(*autoscalingv2.HorizontalPodAutoscaler))
}

// ValidateHPA checks an autoscaling/v2 HPA with Kubernetes' wording
// (pkg/apis/autoscaling/validation).
func ValidateHPA(h *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	var errs field.ErrorList
	spec, p := &h.Spec, field.NewPath("spec")
	if spec.MinReplicas != nil && *spec.MinReplicas < 1 {
		errs = append(errs, field.Invalid(p.Child("minReplicas"), *spec.MinReplicas, "must be greater than or equal to 1"))
	}
	if spec.MaxReplicas < 1 {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), spec.MaxReplicas, "must be greater than 0"))
	}
	if spec.MinReplicas != nil && spec.MaxReplicas < *spec.MinReplicas {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	errs = append(errs, validateCrossVersionRef(spec.ScaleTargetRef, p.Child("scaleTargetRef"))...)
	for i, m := range spec.Metrics {
		errs = append(errs, validateMetricSpec(m, p.Child("metrics").Index(i))...)
	}
	if b := spec.Behavior; b != nil {
		errs = append(errs, validateScalingRules(b.ScaleUp, p.Child("behavior", "scaleUp"))...)
		errs = append(errs, validateScalingRules(b.ScaleDown, p.Child("behavior", "scaleDown"))...)
	}
	if h.Status.CurrentReplicas < 0 {
		errs = append(errs, field.Invalid(field.NewPath("status", "currentReplicas"), h.Status.CurrentReplicas, "must be greater than or equal to 0"))
	}
	if h.Status.DesiredReplicas < 0 {
		errs = append(errs, field.Invalid(field.NewPath("status", "desiredReplicas"), h.Status.DesiredReplicas, "must be greater than or equal to 0"))
	}
	return errs
}

func validateCrossVersionRef(ref autoscalingv2.CrossVersionObjectReference, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct{ name, value string }{{"kind", ref.Kind}, {"name", ref.Name}} {
		if f.value == "" {
			errs = append(errs, field.Required(p.Child(f.name), ""))
			continue
		}
		for _, msg := range IsValidPathSegmentName(f.value) {
			errs = append(errs, field.Invalid(p.Child(f.name), f.value, msg))
		}
	}
	return errs
}

var validMetricSourceTypes = []string{"ContainerResource", "External", "Object", "Pods", "Resource"}

func validateMetricSpec(m autoscalingv2.MetricSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m.Type == "" {
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric source type"))
	}
	present := map[string]bool{}
	first := ""
	note := func(name string, set bool, validate func() field.ErrorList) {
		if !set {
			return
		}
		present[name] = true
		if first == "" {
			first = name
			errs = append(errs, validate()...)
		}
	}
	note("object", m.Object != nil, func() field.ErrorList {
		e := validateCrossVersionRef(m.Object.DescribedObject, p.Child("object", "describedObject"))
		e = append(e, validateMetricIdentifier(m.Object.Metric, p.Child("object", "metric"))...)
		e = append(e, validateMetricTarget(m.Object.Target, p.Child("object", "target"))...)
		if m.Object.Target.Value == nil && m.Object.Target.AverageValue == nil {
			e = append(e, field.Required(p.Child("object", "target", "averageValue"), "must set either a target value or averageValue"))
		}
		return e
	})
	note("pods", m.Pods != nil, func() field.ErrorList {
		e := validateMetricIdentifier(m.Pods.Metric, p.Child("pods", "metric"))
		e = append(e, validateMetricTarget(m.Pods.Target, p.Child("pods", "target"))...)
		if m.Pods.Target.AverageValue == nil {
			e = append(e, field.Required(p.Child("pods", "target", "averageValue"), "must specify a positive target averageValue"))
		}
		return e
	})
	note("resource", m.Resource != nil, func() field.ErrorList {
		e := field.ErrorList{}
		if m.Resource.Name == "" {
			e = append(e, field.Required(p.Child("resource", "name"), "must specify a resource name"))
		}
		return append(e, validateResourceTarget(m.Resource.Target, p.Child("resource", "target"))...)
	})
	note("containerResource", m.ContainerResource != nil, func() field.ErrorList {
		e := field.ErrorList{}
		if m.ContainerResource.Name == "" {
			e = append(e, field.Required(p.Child("containerResource", "name"), "must specify a resource name"))
		}
		if m.ContainerResource.Container == "" {
			e = append(e, field.Required(p.Child("containerResource", "container"), "must specify a container"))
		}
		return append(e, validateResourceTarget(m.ContainerResource.Target, p.Child("containerResource", "target"))...)
	})
	note("external", m.External != nil, func() field.ErrorList {
		e := validateMetricIdentifier(m.External.Metric, p.Child("external", "metric"))
		e = append(e, validateMetricTarget(m.External.Target, p.Child("external", "target"))...)
		if m.External.Target.Value == nil && m.External.Target.AverageValue == nil {
			e = append(e, field.Required(p.Child("external", "target", "averageValue"), "must set either a target value for metric or a per-pod target"))
		}
		return e
	})
	expected := ""
	switch m.Type {
	case autoscalingv2.ObjectMetricSourceType, autoscalingv2.PodsMetricSourceType, autoscalingv2.ResourceMetricSourceType, autoscalingv2.ExternalMetricSourceType:
		expected = strings.ToLower(string(m.Type))
	case autoscalingv2.ContainerResourceMetricSourceType:
		expected = "containerResource"
	default:
		if m.Type != "" {
			errs = append(errs, field.NotSupported(p.Child("type"), m.Type, validMetricSourceTypes))
		}
	}
	if expected != "" && !present[expected] {
		errs = append(errs, field.Required(p.Child(expected), "must populate information for the given metric source"))
	}
	for _, name := range []string{"object", "pods", "resource", "containerResource", "external"} {
		if present[name] && name != expected && len(present) > 1 {
			errs = append(errs, field.Forbidden(p.Child(name), "must populate the given metric source only"))
		}
	}
	return errs
}

func validateResourceTarget(t autoscalingv2.MetricTarget, p *field.Path) field.ErrorList {
	errs := validateMetricTarget(t, p)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		errs = append(errs, field.Required(p.Child("averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		errs = append(errs, field.Forbidden(p.Child("averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

func validateMetricTarget(t autoscalingv2.MetricTarget, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.Type == "" {
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric target type"))
	}
	if t.Type != autoscalingv2.UtilizationMetricType && t.Type != autoscalingv2.ValueMetricType && t.Type != autoscalingv2.AverageValueMetricType {
		errs = append(errs, field.Invalid(p.Child("type"), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		errs = append(errs, field.Invalid(p.Child("value"), t.Value.String(), "must be positive"))
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		errs = append(errs, field.Invalid(p.Child("averageValue"), t.AverageValue.String(), "must be positive"))
	}
	if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
		errs = append(errs, field.Invalid(p.Child("averageUtilization"), *t.AverageUtilization, "must be greater than 0"))
	}
	return errs
}

func validateMetricIdentifier(id autoscalingv2.MetricIdentifier, p *field.Path) field.ErrorList {
	if id.Name == "" {
		return field.ErrorList{field.Required(p.Child("name"), "must specify a metric name")}
	}
	var errs field.ErrorList
	for _, msg := range IsValidPathSegmentName(id.Name) {
		errs = append(errs, field.Invalid(p.Child("name"), id.Name, msg))
	}
	return errs
}

func validateScalingRules(r *autoscalingv2.HPAScalingRules, p *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	if w := r.StabilizationWindowSeconds; w != nil && *w < 0 {
		errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), *w, "must be greater than or equal to zero"))
	}
	if w := r.StabilizationWindowSeconds; w != nil && *w > maxStabilizationWindowSeconds {
		errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), *w, fmt.Sprintf("must be less than or equal to %v", maxStabilizationWindowSeconds)))
	}
	if s := r.SelectPolicy; s != nil && *s != autoscalingv2.MaxChangePolicySelect && *s != autoscalingv2.MinChangePolicySelect && *s != autoscalingv2.DisabledPolicySelect {
		errs = append(errs, field.NotSupported(p.Child("selectPolicy"), *s, []string{"Disabled", "Max", "Min"}))
	}
	if len(r.Policies) == 0 {
		errs = append(errs, field.Required(p.Child("policies"), "must specify at least one Policy"))
	}
	for i, pol := range r.Policies {
		pp := p.Child("policies").Index(i)
		if pol.Type != autoscalingv2.PodsScalingPolicy && pol.Type != autoscalingv2.PercentScalingPolicy {
			errs = append(errs, field.NotSupported(pp.Child("type"), pol.Type, []string{"Percent", "Pods"}))
		}
		if pol.Value <= 0 {
			errs = append(errs, field.Invalid(pp.Child("value"), pol.Value, "must be greater than zero"))
		}
		if pol.PeriodSeconds <= 0 {
			errs = append(errs, field.Invalid(pp.Child("periodSeconds"), pol.PeriodSeconds, "must be greater than zero"))
		}
		if pol.PeriodSeconds > maxPeriodSeconds {
			errs = append(errs, field.Invalid(pp.Child("periodSeconds"), pol.PeriodSeconds, fmt.Sprintf("must be less than or equal to %v", maxPeriodSeconds)))
		}
	}
	return errs
}

// hpaTable is kubectl's HPA table: NAME REFERENCE TARGETS MINPODS
// MAXPODS REPLICAS AGE (printHorizontalPodAutoscaler).
func hpaTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{registry.NameColumn,
			{Name: "Reference", Type: "string", Description: "Reference is the reference to the target object being scaled."},
			{Name: "Targets", Type: "string", Description: "Metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used)."},
			{Name: "MinPods", Type: "string", Description: "MinReplicas is the lower limit for the number of replicas to which the autoscaler can scale down."},
			{Name: "MaxPods", Type: "integer", Description: "MaxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up."},
			{Name: "Replicas", Type: "integer", Description: "CurrentReplicas is the current number of replicas of pods managed by this autoscaler."},
			registry.AgeColumn},
		Cells: func(obj api.Object, now time.Time) []any {
			return hpaCells(obj.(*autoscalingv2.HorizontalPodAutoscaler), now)
		},
	}
}

// hpaV1Table prints a v1 HPA as its v2 form, as kube-apiserver does.
func hpaV1Table() *registry.Table {
	t := hpaTable()
	t.Cells = func(obj api.Object, now time.Time) []any {
		return hpaCells(HPAFromV1(obj.(*autoscalingv1.HorizontalPodAutoscaler)), now)
	}
	return t
}

func hpaCells(h *autoscalingv2.HorizontalPodAutoscaler, now time.Time) []any {
	minPods := "<unset>"
	if h.Spec.MinReplicas != nil {
		minPods = fmt.Sprint(*h.Spec.MinReplicas)
	}
	ref := h.Spec.ScaleTargetRef.Kind + "/" + h.Spec.ScaleTargetRef.Name
	return []any{h.Name, ref, FormatHPAMetrics(h.Spec.Metrics, h.Status.CurrentMetrics), minPods,
		int64(h.Spec.MaxReplicas), int64(h.Status.CurrentReplicas), registry.HumanDuration(now.Sub(h.CreationTimestamp.Time))}
}

// FormatHPAMetrics is the TARGETS column: "cpu: 30%/50%" per metric (the
// status matched by index), at most two, then "+ N more...".
func FormatHPAMetrics(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	var list []string
	for i, s := range specs {
		var st *autoscalingv2.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		list = append(list, formatMetric(s, st))
	}
	if len(list) > 2 {
		return strings.Join(list[:2], ", ") + fmt.Sprintf(" + %d more...", len(list)-2)
	}
	return strings.Join(list, ", ")
}

func formatMetric(s autoscalingv2.MetricSpec, st *autoscalingv2.MetricStatus) string {
	unknown := "<unknown>"
	resource := func(name corev1.ResourceName, t autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
		if t.AverageValue != nil {
			c := unknown
			if cur != nil && cur.AverageValue != nil {
				c = cur.AverageValue.String()
			}
			return fmt.Sprintf("%s: %s/%s", name, c, t.AverageValue.String())
		}
		c, target := unknown, "<auto>"
		if cur != nil && cur.AverageUtilization != nil {
			c = fmt.Sprintf("%d%%", *cur.AverageUtilization)
		}
		if t.AverageUtilization != nil {
			target = fmt.Sprintf("%d%%", *t.AverageUtilization)
		}
		return fmt.Sprintf("%s: %s/%s", name, c, target)
	}
	switch {
	case s.Type == autoscalingv2.ResourceMetricSourceType && s.Resource != nil:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.Resource != nil {
			cur = &st.Resource.Current
		}
		return resource(s.Resource.Name, s.Resource.Target, cur)
	case s.Type == autoscalingv2.ContainerResourceMetricSourceType && s.ContainerResource != nil:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.ContainerResource != nil {
			cur = &st.ContainerResource.Current
		}
		return resource(s.ContainerResource.Name, s.ContainerResource.Target, cur)
	case s.Type == autoscalingv2.PodsMetricSourceType && s.Pods != nil && s.Pods.Target.AverageValue != nil:
		c := unknown
		if st != nil && st.Pods != nil && st.Pods.Current.AverageValue != nil {
			c = st.Pods.Current.AverageValue.String()
		}
		return fmt.Sprintf("%s/%s", c, s.Pods.Target.AverageValue.String())
	case s.Type == autoscalingv2.ObjectMetricSourceType && s.Object != nil:
		return targetValue(s.Object.Target, objectCurrent(st))
	case s.Type == autoscalingv2.ExternalMetricSourceType && s.External != nil:
		return targetValue(s.External.Target, externalCurrent(st))
	}
	return "<unknown type>"
}

func objectCurrent(st *autoscalingv2.MetricStatus) *autoscalingv2.MetricValueStatus {
	if st == nil || st.Object == nil {
		return nil
	}
	return &st.Object.Current
}

func externalCurrent(st *autoscalingv2.MetricStatus) *autoscalingv2.MetricValueStatus {
	if st == nil || st.External == nil {
		return nil
	}
	return &st.External.Current
}

func targetValue(t autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	c := "<unknown>"
	if t.AverageValue != nil {
		if cur != nil && cur.AverageValue != nil {
			c = cur.AverageValue.String()
		}
		return fmt.Sprintf("%s/%s (avg)", c, t.AverageValue.String())
	}
	if cur != nil && cur.Value != nil {
		c = cur.Value.String()
	}
	v := "<unknown>"
	if t.Value != nil {
		v = t.Value.String()
	}
	return fmt.Sprintf("%s/%s", c, v)
}
