package metricsserver

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The few fields of the kubelet's Summary API
// (k8s.io/kubelet/pkg/apis/stats/v1alpha1) the metrics server reads,
// decoded from the kubelet's JSON.

type summary struct {
	Node nodeStats  `json:"node"`
	Pods []podStats `json:"pods"`
}

type nodeStats struct {
	NodeName string       `json:"nodeName"`
	CPU      *cpuStats    `json:"cpu,omitempty"`
	Memory   *memoryStats `json:"memory,omitempty"`
}

type podStats struct {
	PodRef     podReference     `json:"podRef"`
	Containers []containerStats `json:"containers"`
}

type podReference struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

type containerStats struct {
	Name   string       `json:"name"`
	CPU    *cpuStats    `json:"cpu,omitempty"`
	Memory *memoryStats `json:"memory,omitempty"`
}

type cpuStats struct {
	Time           metav1.Time `json:"time"`
	UsageNanoCores *uint64     `json:"usageNanoCores,omitempty"`
}

type memoryStats struct {
	Time            metav1.Time `json:"time"`
	WorkingSetBytes *uint64     `json:"workingSetBytes,omitempty"`
}
