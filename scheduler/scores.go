package scheduler

// MaxNodeScore is the highest score a plugin gives a node (the framework's
// MaxNodeScore).
const MaxNodeScore int64 = 100

// LeastAllocated is NodeResourcesFit's default scoring strategy: the share
// of the node's cpu and memory still free once the pod is on it, averaged
// with equal weights, times MaxNodeScore. Requests are the non-zero ones
// (a container asking nothing counts as 100m and 200Mi).
func LeastAllocated(pod *PodInfo, node *NodeInfo) int64 {
	cpu := leastRequestedScore(node.NonZeroRequested.MilliCPU+pod.NonZeroRequests.MilliCPU, node.Allocatable.MilliCPU)
	mem := leastRequestedScore(node.NonZeroRequested.Memory+pod.NonZeroRequests.Memory, node.Allocatable.Memory)
	return (cpu + mem) / 2
}

// leastRequestedScore is (capacity - requested) / capacity × 100, 0 for a
// node without the resource or past its capacity.
func leastRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * MaxNodeScore / capacity
}
