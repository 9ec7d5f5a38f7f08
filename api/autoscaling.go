package api

import "github.com/kubesim/kubesim/api/resource"

// This file holds the autoscaling/v2 kinds (k8s.io/api/autoscaling/v2/types.go)
// and the autoscaling/v1 HorizontalPodAutoscaler that kubectl v1.32's
// `kubectl autoscale` creates (k8s.io/api/autoscaling/v1/types.go), with
// those types' protobuf field numbers. Both versions are served from one
// stored object (v2); autoscaling/v1 Scale is in coordination.go.

// AutoscalingGroupName is the autoscaling API group.
const AutoscalingGroupName = "autoscaling"

// HorizontalPodAutoscaler (autoscaling/v2) scales a workload's replicas
// to keep metrics near their targets.
type HorizontalPodAutoscaler struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is what to scale and on which metrics.
	Spec HorizontalPodAutoscalerSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the controller last saw and decided.
	Status HorizontalPodAutoscalerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// HorizontalPodAutoscalerSpec is an HPA's desired behaviour.
type HorizontalPodAutoscalerSpec struct {
	// ScaleTargetRef names the object with a scale subresource.
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`
	// MinReplicas defaults to 1.
	MinReplicas *int32 `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`
	MaxReplicas int32  `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`
	// Metrics decide the replicas: the largest proposal wins. Empty
	// means 80% of the CPU request.
	Metrics []MetricSpec `json:"metrics,omitempty" protobuf:"bytes,4,rep,name=metrics"`
	// Behavior bounds how fast the controller scales up and down.
	Behavior *HorizontalPodAutoscalerBehavior `json:"behavior,omitempty" protobuf:"bytes,5,opt,name=behavior"`
}

// CrossVersionObjectReference names an object of any group and version
// (the same in autoscaling/v1 and v2).
type CrossVersionObjectReference struct {
	Kind       string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	Name       string `json:"name" protobuf:"bytes,2,opt,name=name"`
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
}

// MetricSourceType says which field of a MetricSpec is set.
type MetricSourceType string

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
type MetricSpec struct {
	Type              MetricSourceType               `json:"type" protobuf:"bytes,1,name=type"`
	Object            *ObjectMetricSource            `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`
	Pods              *PodsMetricSource              `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`
	Resource          *ResourceMetricSource          `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`
	ContainerResource *ContainerResourceMetricSource `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`
	External          *ExternalMetricSource          `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

// HorizontalPodAutoscalerBehavior holds the rules for each direction.
type HorizontalPodAutoscalerBehavior struct {
	ScaleUp   *HPAScalingRules `json:"scaleUp,omitempty" protobuf:"bytes,1,opt,name=scaleUp"`
	ScaleDown *HPAScalingRules `json:"scaleDown,omitempty" protobuf:"bytes,2,opt,name=scaleDown"`
}

// ScalingPolicySelect picks among the policies of one direction.
type ScalingPolicySelect string

// The policy selections.
const (
	MaxChangePolicySelect ScalingPolicySelect = "Max"
	MinChangePolicySelect ScalingPolicySelect = "Min"
	DisabledPolicySelect  ScalingPolicySelect = "Disabled"
)

// HPAScalingRules: a stabilization window (the controller uses the most
// cautious recommendation of that many past seconds) and policies
// limiting the change per period.
type HPAScalingRules struct {
	StabilizationWindowSeconds *int32               `json:"stabilizationWindowSeconds,omitempty" protobuf:"varint,3,opt,name=stabilizationWindowSeconds"`
	SelectPolicy               *ScalingPolicySelect `json:"selectPolicy,omitempty" protobuf:"bytes,1,opt,name=selectPolicy"`
	Policies                   []HPAScalingPolicy   `json:"policies,omitempty" listType:"atomic" protobuf:"bytes,2,rep,name=policies"`
	// Tolerance (alpha in Kubernetes) overrides the controller's 0.1.
	Tolerance *resource.Quantity `json:"tolerance,omitempty" protobuf:"bytes,4,opt,name=tolerance"`
}

// HPAScalingPolicyType is Pods or Percent.
type HPAScalingPolicyType string

// The policy types.
const (
	PodsScalingPolicy    HPAScalingPolicyType = "Pods"
	PercentScalingPolicy HPAScalingPolicyType = "Percent"
)

// HPAScalingPolicy allows a change of Value pods (or percent) per
// PeriodSeconds.
type HPAScalingPolicy struct {
	Type          HPAScalingPolicyType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=HPAScalingPolicyType"`
	Value         int32                `json:"value" protobuf:"varint,2,opt,name=value"`
	PeriodSeconds int32                `json:"periodSeconds" protobuf:"varint,3,opt,name=periodSeconds"`
}

// ObjectMetricSource is a metric of another object.
type ObjectMetricSource struct {
	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,1,name=describedObject"`
	Target          MetricTarget                `json:"target" protobuf:"bytes,2,name=target"`
	Metric          MetricIdentifier            `json:"metric" protobuf:"bytes,3,name=metric"`
}

// PodsMetricSource is a custom metric averaged over the pods.
type PodsMetricSource struct {
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`
	Target MetricTarget     `json:"target" protobuf:"bytes,2,name=target"`
}

// ResourceMetricSource is a resource (cpu, memory) of the pods, as the
// metrics server reports it.
type ResourceMetricSource struct {
	Name   ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
}

// ContainerResourceMetricSource is a resource of one container of each pod.
type ContainerResourceMetricSource struct {
	Name      ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	Target    MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
	Container string       `json:"container" protobuf:"bytes,3,opt,name=container"`
}

// ExternalMetricSource is a metric of nothing in the cluster.
type ExternalMetricSource struct {
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`
	Target MetricTarget     `json:"target" protobuf:"bytes,2,name=target"`
}

// MetricIdentifier names a custom metric.
type MetricIdentifier struct {
	Name     string         `json:"name" protobuf:"bytes,1,name=name"`
	Selector *LabelSelector `json:"selector,omitempty" protobuf:"bytes,2,name=selector"`
}

// MetricTargetType is Utilization, Value or AverageValue.
type MetricTargetType string

// The target types.
const (
	UtilizationMetricType  MetricTargetType = "Utilization"
	ValueMetricType        MetricTargetType = "Value"
	AverageValueMetricType MetricTargetType = "AverageValue"
)

// MetricTarget is the value a metric should be kept at.
type MetricTarget struct {
	Type         MetricTargetType   `json:"type" protobuf:"bytes,1,name=type"`
	Value        *resource.Quantity `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	AverageValue *resource.Quantity `json:"averageValue,omitempty" protobuf:"bytes,3,opt,name=averageValue"`
	// AverageUtilization is a percentage of the pods' requests.
	AverageUtilization *int32 `json:"averageUtilization,omitempty" protobuf:"bytes,4,opt,name=averageUtilization"`
}

// HorizontalPodAutoscalerStatus is what the controller last observed.
type HorizontalPodAutoscalerStatus struct {
	ObservedGeneration *int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	LastScaleTime      *Time  `json:"lastScaleTime,omitempty" protobuf:"bytes,2,opt,name=lastScaleTime"`
	CurrentReplicas    int32  `json:"currentReplicas,omitempty" protobuf:"varint,3,opt,name=currentReplicas"`
	DesiredReplicas    int32  `json:"desiredReplicas" protobuf:"varint,4,opt,name=desiredReplicas"`
	// CurrentMetrics has no omitempty: the real type prints null.
	CurrentMetrics []MetricStatus                     `json:"currentMetrics" protobuf:"bytes,5,rep,name=currentMetrics"`
	Conditions     []HorizontalPodAutoscalerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" listType:"map" protobuf:"bytes,6,rep,name=conditions"`
}

// HorizontalPodAutoscalerConditionType names a condition.
type HorizontalPodAutoscalerConditionType string

// The conditions the controller sets.
const (
	ScalingActive  HorizontalPodAutoscalerConditionType = "ScalingActive"
	AbleToScale    HorizontalPodAutoscalerConditionType = "AbleToScale"
	ScalingLimited HorizontalPodAutoscalerConditionType = "ScalingLimited"
)

// HorizontalPodAutoscalerCondition is one condition of an HPA.
type HorizontalPodAutoscalerCondition struct {
	Type               HorizontalPodAutoscalerConditionType `json:"type" protobuf:"bytes,1,name=type"`
	Status             ConditionStatus                      `json:"status" protobuf:"bytes,2,name=status"`
	LastTransitionTime Time                                 `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                               `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                               `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
	ObservedGeneration *int64                               `json:"observedGeneration,omitempty" protobuf:"varint,6,opt,name=observedGeneration"`
}

// MetricStatus is the current value of one metric.
type MetricStatus struct {
	Type              MetricSourceType               `json:"type" protobuf:"bytes,1,name=type"`
	Object            *ObjectMetricStatus            `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`
	Pods              *PodsMetricStatus              `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`
	Resource          *ResourceMetricStatus          `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`
	ContainerResource *ContainerResourceMetricStatus `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`
	External          *ExternalMetricStatus          `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

// ObjectMetricStatus is the current value of an Object metric.
type ObjectMetricStatus struct {
	Metric          MetricIdentifier            `json:"metric" protobuf:"bytes,1,name=metric"`
	Current         MetricValueStatus           `json:"current" protobuf:"bytes,2,name=current"`
	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,3,name=describedObject"`
}

// PodsMetricStatus is the current value of a Pods metric.
type PodsMetricStatus struct {
	Metric  MetricIdentifier  `json:"metric" protobuf:"bytes,1,name=metric"`
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

// ResourceMetricStatus is the current value of a Resource metric.
type ResourceMetricStatus struct {
	Name    ResourceName      `json:"name" protobuf:"bytes,1,name=name"`
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

// ContainerResourceMetricStatus is the current value of a
// ContainerResource metric.
type ContainerResourceMetricStatus struct {
	Name      ResourceName      `json:"name" protobuf:"bytes,1,name=name"`
	Current   MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
	Container string            `json:"container" protobuf:"bytes,3,opt,name=container"`
}

// ExternalMetricStatus is the current value of an External metric.
type ExternalMetricStatus struct {
	Metric  MetricIdentifier  `json:"metric" protobuf:"bytes,1,name=metric"`
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

// MetricValueStatus is a metric's current value.
type MetricValueStatus struct {
	Value              *resource.Quantity `json:"value,omitempty" protobuf:"bytes,1,opt,name=value"`
	AverageValue       *resource.Quantity `json:"averageValue,omitempty" protobuf:"bytes,2,opt,name=averageValue"`
	AverageUtilization *int32             `json:"averageUtilization,omitempty" protobuf:"bytes,3,opt,name=averageUtilization"`
}

// HorizontalPodAutoscalerList is a list of HPAs.
type HorizontalPodAutoscalerList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items    []HorizontalPodAutoscaler `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// HorizontalPodAutoscalerV1 is autoscaling/v1's HorizontalPodAutoscaler:
// one CPU utilization target. What v1 cannot say of a v2 object is kept
// in annotations (autoscaling.alpha.kubernetes.io/...), as Kubernetes'
// conversion does.
type HorizontalPodAutoscalerV1 struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       HorizontalPodAutoscalerSpecV1   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     HorizontalPodAutoscalerStatusV1 `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// HorizontalPodAutoscalerSpecV1 is autoscaling/v1's spec.
type HorizontalPodAutoscalerSpecV1 struct {
	ScaleTargetRef                 CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`
	MinReplicas                    *int32                      `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`
	MaxReplicas                    int32                       `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`
	TargetCPUUtilizationPercentage *int32                      `json:"targetCPUUtilizationPercentage,omitempty" protobuf:"varint,4,opt,name=targetCPUUtilizationPercentage"`
}

// HorizontalPodAutoscalerStatusV1 is autoscaling/v1's status.
type HorizontalPodAutoscalerStatusV1 struct {
	ObservedGeneration              *int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	LastScaleTime                   *Time  `json:"lastScaleTime,omitempty" protobuf:"bytes,2,opt,name=lastScaleTime"`
	CurrentReplicas                 int32  `json:"currentReplicas" protobuf:"varint,3,opt,name=currentReplicas"`
	DesiredReplicas                 int32  `json:"desiredReplicas" protobuf:"varint,4,opt,name=desiredReplicas"`
	CurrentCPUUtilizationPercentage *int32 `json:"currentCPUUtilizationPercentage,omitempty" protobuf:"varint,5,opt,name=currentCPUUtilizationPercentage"`
}

// HorizontalPodAutoscalerListV1 is a list of autoscaling/v1 HPAs.
type HorizontalPodAutoscalerListV1 struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items    []HorizontalPodAutoscalerV1 `json:"items" protobuf:"bytes,2,rep,name=items"`
}
