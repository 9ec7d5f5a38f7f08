package api

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// This file holds the autoscaling/v2 kinds (k8s.io/api/autoscaling/v2/types.go)
// and the autoscaling/v1 HorizontalPodAutoscaler that kubectl v1.32's
// `kubectl autoscale` creates (k8s.io/api/autoscaling/v1/types.go), with
// those types' protobuf field numbers. Both versions are served from one
// stored object (v2); autoscaling/v1 Scale is in coordination.go.

// AutoscalingGroupName is the autoscaling API group.
const AutoscalingGroupName = "autoscaling"

// HorizontalPodAutoscaler (autoscaling/v2) scales a workload's replicas
// to keep metrics near their targets.
type HorizontalPodAutoscaler = autoscalingv2.HorizontalPodAutoscaler

// HorizontalPodAutoscalerSpec is an HPA's desired behaviour.
type HorizontalPodAutoscalerSpec = autoscalingv2.HorizontalPodAutoscalerSpec

// CrossVersionObjectReference names an object of any group and version
// (the same in autoscaling/v1 and v2).
type CrossVersionObjectReference = autoscalingv2.CrossVersionObjectReference

// MetricSourceType says which field of a MetricSpec is set.
type MetricSourceType = autoscalingv2.MetricSourceType

// The metric source types.
const (
	ObjectMetricSourceType            MetricSourceType = "Object"
	PodsMetricSourceType              MetricSourceType = "Pods"
	ResourceMetricSourceType          MetricSourceType = "Resource"
	ContainerResourceMetricSourceType MetricSourceType = "ContainerResource"
	ExternalMetricSourceType          MetricSourceType = "External"
)

// MetricSpec is one metric to scale on. kubesim's controller computes
// Resource and ContainerResource metrics (from metrics.k8s.io); the others
// are accepted and reported as not available.
type MetricSpec = autoscalingv2.MetricSpec

// HorizontalPodAutoscalerBehavior holds the rules for each direction.
type HorizontalPodAutoscalerBehavior = autoscalingv2.HorizontalPodAutoscalerBehavior

// ScalingPolicySelect picks among the policies of one direction.
type ScalingPolicySelect = autoscalingv2.ScalingPolicySelect

// The policy selections.
const (
	MaxChangePolicySelect ScalingPolicySelect = "Max"
	MinChangePolicySelect ScalingPolicySelect = "Min"
	DisabledPolicySelect  ScalingPolicySelect = "Disabled"
)

// HPAScalingRules: a stabilization window (the controller uses the most
// cautious recommendation of that many past seconds) and policies
// limiting the change per period.
type HPAScalingRules = autoscalingv2.HPAScalingRules

// HPAScalingPolicyType is Pods or Percent.
type HPAScalingPolicyType = autoscalingv2.HPAScalingPolicyType

// The policy types.
const (
	PodsScalingPolicy    HPAScalingPolicyType = "Pods"
	PercentScalingPolicy HPAScalingPolicyType = "Percent"
)

// HPAScalingPolicy allows a change of Value pods (or percent) per
// PeriodSeconds.
type HPAScalingPolicy = autoscalingv2.HPAScalingPolicy

// ObjectMetricSource is a metric of another object.
type ObjectMetricSource = autoscalingv2.ObjectMetricSource

// PodsMetricSource is a custom metric averaged over the pods.
type PodsMetricSource = autoscalingv2.PodsMetricSource

// ResourceMetricSource is a resource (cpu, memory) of the pods, as the
// metrics server reports it.
type ResourceMetricSource = autoscalingv2.ResourceMetricSource

// ContainerResourceMetricSource is a resource of one container of each pod.
type ContainerResourceMetricSource = autoscalingv2.ContainerResourceMetricSource

// ExternalMetricSource is a metric of nothing in the cluster.
type ExternalMetricSource = autoscalingv2.ExternalMetricSource

// MetricIdentifier names a custom metric.
type MetricIdentifier = autoscalingv2.MetricIdentifier

// MetricTargetType is Utilization, Value or AverageValue.
type MetricTargetType = autoscalingv2.MetricTargetType

// The target types.
const (
	UtilizationMetricType  MetricTargetType = "Utilization"
	ValueMetricType        MetricTargetType = "Value"
	AverageValueMetricType MetricTargetType = "AverageValue"
)

// MetricTarget is the value a metric should be kept at.
type MetricTarget = autoscalingv2.MetricTarget

// HorizontalPodAutoscalerStatus is what the controller last observed.
type HorizontalPodAutoscalerStatus = autoscalingv2.HorizontalPodAutoscalerStatus

// HorizontalPodAutoscalerConditionType names a condition.
type HorizontalPodAutoscalerConditionType = autoscalingv2.HorizontalPodAutoscalerConditionType

// The conditions the controller sets.
const (
	ScalingActive  HorizontalPodAutoscalerConditionType = "ScalingActive"
	AbleToScale    HorizontalPodAutoscalerConditionType = "AbleToScale"
	ScalingLimited HorizontalPodAutoscalerConditionType = "ScalingLimited"
)

// HorizontalPodAutoscalerCondition is one condition of an HPA.
type HorizontalPodAutoscalerCondition = autoscalingv2.HorizontalPodAutoscalerCondition

// MetricStatus is the current value of one metric.
type MetricStatus = autoscalingv2.MetricStatus

// ObjectMetricStatus is the current value of an Object metric.
type ObjectMetricStatus = autoscalingv2.ObjectMetricStatus

// PodsMetricStatus is the current value of a Pods metric.
type PodsMetricStatus = autoscalingv2.PodsMetricStatus

// ResourceMetricStatus is the current value of a Resource metric.
type ResourceMetricStatus = autoscalingv2.ResourceMetricStatus

// ContainerResourceMetricStatus is the current value of a
// ContainerResource metric.
type ContainerResourceMetricStatus = autoscalingv2.ContainerResourceMetricStatus

// ExternalMetricStatus is the current value of an External metric.
type ExternalMetricStatus = autoscalingv2.ExternalMetricStatus

// MetricValueStatus is a metric's current value.
type MetricValueStatus = autoscalingv2.MetricValueStatus

// HorizontalPodAutoscalerList is a list of HPAs.
type HorizontalPodAutoscalerList = autoscalingv2.HorizontalPodAutoscalerList

// HorizontalPodAutoscalerV1 is autoscaling/v1's HorizontalPodAutoscaler:
// one CPU utilization target. What v1 cannot say of a v2 object is kept
// in annotations (autoscaling.alpha.kubernetes.io/...), as Kubernetes'
// conversion does.
type HorizontalPodAutoscalerV1 = autoscalingv1.HorizontalPodAutoscaler

// HorizontalPodAutoscalerSpecV1 is autoscaling/v1's spec.
type HorizontalPodAutoscalerSpecV1 = autoscalingv1.HorizontalPodAutoscalerSpec

// HorizontalPodAutoscalerStatusV1 is autoscaling/v1's status.
type HorizontalPodAutoscalerStatusV1 = autoscalingv1.HorizontalPodAutoscalerStatus

// HorizontalPodAutoscalerListV1 is a list of autoscaling/v1 HPAs.
type HorizontalPodAutoscalerListV1 = autoscalingv1.HorizontalPodAutoscalerList
