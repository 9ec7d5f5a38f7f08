package scheduler

// MaxNodeScore is the highest score a plugin gives a node (the framework's
// MaxNodeScore).
const MaxNodeScore int64 = 100

// ScoreFunc rates how well node suits pod, 0 to MaxNodeScore (before
// normalizing, a plugin may return any count).
type ScoreFunc func(pod *PodInfo, node *NodeInfo) int64

// ScorePlugin is a named, weighted score, as the framework's ScorePlugin
// with its ScoreExtensions.
type ScorePlugin struct {
	// Name is the plugin's name in kube-scheduler.
	Name string
	// Weight multiplies the plugin's scores in the sum.
	Weight int64
	// Score rates one node.
	Score ScoreFunc
	// Normalize, if set, rewrites the raw scores of all the feasible nodes
	// into 0..MaxNodeScore (NormalizeScore).
	Normalize func(scores []int64)
}

// DefaultScores are NodeResourcesFit (LeastAllocated) and SelectorSpread,
// weight 1 each as in the profiles that had both.
func DefaultScores() []ScorePlugin {
	return []ScorePlugin{
		{Name: "NodeResourcesFit", Weight: 1, Score: LeastAllocated},
		{Name: "SelectorSpread", Weight: 1, Score: SpreadCount, Normalize: NormalizeSpread},
	}
}

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

// SpreadCount is the raw spreading score: how many pods of the pod's
// controller the node already has. NormalizeSpread turns it around.
func SpreadCount(pod *PodInfo, node *NodeInfo) int64 {
	return node.PodsOfOwner(pod.OwnerUID)
}

// NormalizeSpread is SelectorSpread's NormalizeScore: the node with the
// most pods of the controller scores 0, a node with none MaxNodeScore,
// linearly between; when no node has any, all score MaxNodeScore.
func NormalizeSpread(scores []int64) {
	var most int64
	for _, s := range scores {
		most = max(most, s)
	}
	for i, s := range scores {
		if most == 0 {
			scores[i] = MaxNodeScore
		} else {
			scores[i] = MaxNodeScore * (most - s) / most
		}
	}
}
