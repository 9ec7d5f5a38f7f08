package kubelet

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Summary API's types (k8s.io/kubelet/pkg/apis/stats/v1alpha1), the
// few fields the metrics server reads, with their real JSON names.

// Summary is the answer of GET /stats/summary.
type Summary struct {
	Node NodeStats  `json:"node"`
	Pods []PodStats `json:"pods"`
}

// NodeStats is the usage of the whole node.
type NodeStats struct {
	NodeName  string       `json:"nodeName"`
	StartTime metav1.Time  `json:"startTime"`
	CPU       *CPUStats    `json:"cpu,omitempty"`
	Memory    *MemoryStats `json:"memory,omitempty"`
}

// PodStats is the usage of one pod and its containers.
type PodStats struct {
	PodRef     PodReference     `json:"podRef"`
	StartTime  metav1.Time      `json:"startTime"`
	Containers []ContainerStats `json:"containers"`
	CPU        *CPUStats        `json:"cpu,omitempty"`
	Memory     *MemoryStats     `json:"memory,omitempty"`
}

// PodReference names a pod.
type PodReference struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	UID       string `json:"uid"`
}

// ContainerStats is the usage of one running container.
type ContainerStats struct {
	Name      string       `json:"name"`
	StartTime metav1.Time  `json:"startTime"`
	CPU       *CPUStats    `json:"cpu,omitempty"`
	Memory    *MemoryStats `json:"memory,omitempty"`
}

// CPUStats: UsageNanoCores is the rate (1e9 is one core),
// UsageCoreNanoSeconds the cumulative use since start.
type CPUStats struct {
	Time                 metav1.Time `json:"time"`
	UsageNanoCores       *uint64     `json:"usageNanoCores,omitempty"`
	UsageCoreNanoSeconds *uint64     `json:"usageCoreNanoSeconds,omitempty"`
}

// MemoryStats: WorkingSetBytes is what the metrics server reports.
type MemoryStats struct {
	Time            metav1.Time `json:"time"`
	AvailableBytes  *uint64     `json:"availableBytes,omitempty"`
	UsageBytes      *uint64     `json:"usageBytes,omitempty"`
	WorkingSetBytes *uint64     `json:"workingSetBytes,omitempty"`
	RSSBytes        *uint64     `json:"rssBytes,omitempty"`
}

// StatsSummary is the node's Summary API answer (usage.go).
func (k *Kubelet) StatsSummary() Summary {
	k.mu.Lock()
	inf := k.loops.pods
	k.mu.Unlock()
	now := k.cfg.Clock.Now()
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	return k.summary(now, inf.Get)
}
