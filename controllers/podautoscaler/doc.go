// Package podautoscaler is the horizontal pod autoscaler controller
// (pkg/controller/podautoscaler of kube-controller-manager): every 15
// seconds of the cluster's clock it reads each HorizontalPodAutoscaler's
// target through the scale subresource, the pods' CPU and memory through
// the resource metrics API (metrics.k8s.io, served by the metrics server
// behind the aggregator), proposes a replica count per metric with the
// real replica calculator (ceil(current × usage / target), nothing within
// the 0.1 tolerance, pods without metrics counted at 100% of their request
// on a scale down and 0% on a scale up, not-ready pods at 0% on a scale
// up), stabilizes the largest proposal over the behavior's windows, limits
// the change by the scaling policies and min/max, scales the target, and
// reports status (currentMetrics, desiredReplicas, the AbleToScale,
// ScalingActive and ScalingLimited conditions) and events
// (SuccessfulRescale "New size: 6; reason: cpu resource utilization
// (percentage of request) above target").
//
// The decisions are pure functions (replicas.go, normalize.go), tested
// with the cases of the Kubernetes documentation.
//
// Left out: Object, Pods and External metrics (custom.metrics.k8s.io and
// external.metrics.k8s.io are not served; such a metric is reported as
// invalid), the tolerance field of behavior rules (alpha), scale to zero,
// the REST mapper (the target's resource is found by discovery of its
// group-version) and the shared pod informer (the pods of a selector are
// listed from the API server at each sync).
package podautoscaler
