package api

import (
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// This file holds the metrics.k8s.io/v1beta1 kinds
// (k8s.io/metrics/pkg/apis/metrics/v1beta1/types.go) that the metrics
// server (package metricsserver) serves and the HPA controller reads.
// They are served as JSON only, so they carry no protobuf tags.

// MetricsGroupName is the resource metrics API group.
const MetricsGroupName = "metrics.k8s.io"

// NodeMetrics is the resource usage of a node.
type NodeMetrics = metricsv1beta1.NodeMetrics

// NodeMetricsList is a list of NodeMetrics.
type NodeMetricsList = metricsv1beta1.NodeMetricsList

// PodMetrics is the resource usage of a pod's containers.
type PodMetrics = metricsv1beta1.PodMetrics

// PodMetricsList is a list of PodMetrics.
type PodMetricsList = metricsv1beta1.PodMetricsList

// ContainerMetrics is the usage of one container.
type ContainerMetrics = metricsv1beta1.ContainerMetrics
