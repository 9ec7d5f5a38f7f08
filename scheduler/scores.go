package scheduler

// MaxNodeScore is the highest score a plugin gives a node (the framework's
// MaxNodeScore).
const MaxNodeScore int64 = 100

// ScoreFunc rates how well node suits pod, 0 to MaxNodeScore (before
// normalizing, a plugin may return any count).
type ScoreFunc func(pod *PodInfo, node *NodeInfo) int64

// PreScoreFunc looks once per cycle at the nodes that passed the filters
// (feasible) and at every node (all), and keeps what Score needs in the
// pod's CycleState. It returns skip when the plugin has nothing to score
// the pod by (the framework's Skip status): then its Score and Normalize
// do not run and it adds 0 to every node.
type PreScoreFunc func(pod *PodInfo, feasible, all []*NodeInfo) (skip bool)

// ScorePlugin is a named, weighted score, as the framework's ScorePlugin
// with its ScoreExtensions.
type ScorePlugin struct {
	// Name is the plugin's name in kube-scheduler.
	Name string
	// Weight multiplies the plugin's scores in the sum.
	Weight int64
	// PreScore, if set, runs once per cycle before Score.
	PreScore PreScoreFunc
	// Score rates one node.
	Score ScoreFunc
	// Normalize, if set, rewrites the raw scores of all the feasible nodes
	// into 0..MaxNodeScore (NormalizeScore).
	Normalize func(pod *PodInfo, scores []int64)
}

// DefaultScores are the score plugins of kube-scheduler's default profile
// that kubesim has, in its order and with its weights: NodeResourcesFit
// (LeastAllocated) 1, PodTopologySpread 2, InterPodAffinity 2.
func DefaultScores() []ScorePlugin {
	return []ScorePlugin{
		{Name: "NodeResourcesFit", Weight: 1, Score: LeastAllocated},
		{Name: "PodTopologySpread", Weight: 2, PreScore: PodTopologySpreadPreScore, Score: PodTopologySpreadScore, Normalize: NormalizePodTopologySpread},
		{Name: "InterPodAffinity", Weight: 2, PreScore: InterPodAffinityPreScore, Score: InterPodAffinityScore,
			Normalize: func(_ *PodInfo, scores []int64) { NormalizeInterPodAffinity(scores) }},
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
