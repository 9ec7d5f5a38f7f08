package api

// This file holds the metrics.k8s.io/v1beta1 kinds
// (k8s.io/metrics/pkg/apis/metrics/v1beta1/types.go) that the metrics
// server (package metricsserver) serves and the HPA controller reads.
// They are served as JSON only, so they carry no protobuf tags.

// MetricsGroupName is the resource metrics API group.
const MetricsGroupName = "metrics.k8s.io"

// NodeMetrics is the resource usage of a node.
type NodeMetrics struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Timestamp is when the usage was sampled; Window is the interval the
	// usage was computed over ([Timestamp-Window, Timestamp]).
	Timestamp Time         `json:"timestamp"`
	Window    Duration     `json:"window"`
	Usage     ResourceList `json:"usage"`
}

// NodeMetricsList is a list of NodeMetrics.
type NodeMetricsList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []NodeMetrics `json:"items"`
}

// PodMetrics is the resource usage of a pod's containers.
type PodMetrics struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Timestamp  Time               `json:"timestamp"`
	Window     Duration           `json:"window"`
	Containers []ContainerMetrics `json:"containers"`
}

// PodMetricsList is a list of PodMetrics.
type PodMetricsList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []PodMetrics `json:"items"`
}

// ContainerMetrics is the usage of one container.
type ContainerMetrics struct {
	Name  string       `json:"name"`
	Usage ResourceList `json:"usage"`
}
