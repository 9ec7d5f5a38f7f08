package scheduler

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// MaxCustomPriorityScore is the top of a RequestedToCapacityRatio shape's
// score axis (the configuration's scale, 0 to 10); the scheduler scales it
// to MaxNodeScore.
const MaxCustomPriorityScore = 10

// scoringStrategy is NodeResourcesFit's score (nil: LeastAllocated, the
// default, which the plugin calls directly) with the
// scoring strategy of NodeResourcesFitArgs (nil: LeastAllocated over cpu
// and memory with weight 1 each, the default):
//
//   - LeastAllocated: per resource, the share left free once the pod is on
//     the node, times MaxNodeScore (spreads pods);
//   - MostAllocated: the share in use (packs pods onto few nodes);
//   - RequestedToCapacityRatio: the share in use, as a percentage, mapped
//     through the shape's broken line (utilization 0–100 → score 0–10,
//     scaled to MaxNodeScore).
//
// The resources' scores are averaged with their weights, leaving out a
// resource the node has none of, and an extended resource the pod does not
// ask for (resource_allocation.go). cpu and memory count the non-zero
// requests (a container asking nothing counts as 100m and 200Mi).
func scoringStrategy(args *configv1.NodeResourcesFitArgs) func(pod *PodInfo, node *NodeInfo) int64 {
	if args == nil || args.ScoringStrategy == nil {
		return nil
	}
	st := args.ScoringStrategy
	if st.Type == configv1.LeastAllocated && isDefaultResources(st.Resources) {
		// The default: the one function without a loop over resources,
		// which is all a decision of the default profile calls.
		return nil
	}
	r := &resourceScorer{resources: make([]resourceSpec, 0, len(st.Resources))}
	for _, res := range st.Resources {
		r.resources = append(r.resources, resourceSpec{name: corev1.ResourceName(res.Name), weight: res.Weight})
	}
	switch st.Type {
	case configv1.MostAllocated:
		r.score = mostRequestedScore
	case configv1.RequestedToCapacityRatio:
		var shape []configv1.UtilizationShapePoint
		if st.RequestedToCapacityRatio != nil {
			shape = st.RequestedToCapacityRatio.Shape
		}
		r.score = requestedToCapacityRatioScore(shape)
		r.rounded = true
	default:
		r.score = leastRequestedScore
	}
	return r.Score
}

// isDefaultResources reports whether res is the default cpu and memory
// with weight 1 each.
func isDefaultResources(res []configv1.ResourceSpec) bool {
	return len(res) == 2 && res[0] == configv1.ResourceSpec{Name: string(corev1.ResourceCPU), Weight: 1} &&
		res[1] == configv1.ResourceSpec{Name: string(corev1.ResourceMemory), Weight: 1}
}

// resourceSpec is one resource a scoring strategy weighs.
type resourceSpec struct {
	name   corev1.ResourceName
	weight int64
}

// resourceScorer is a scoring strategy: a score per resource, averaged
// with the resources' weights.
type resourceScorer struct {
	resources []resourceSpec
	score     func(requested, allocatable int64) int64
	// rounded is RequestedToCapacityRatio's averaging: resources scoring
	// 0 are left out and the mean is rounded, not truncated.
	rounded bool
}

// Score rates node for pod.
func (r *resourceScorer) Score(pod *PodInfo, node *NodeInfo) int64 {
	var nodeScore, weightSum int64
	for i := range r.resources {
		requested, allocatable := requestedAndAllocatable(pod, node, r.resources[i].name)
		if allocatable == 0 {
			continue
		}
		s := r.score(requested, allocatable)
		if r.rounded && s <= 0 {
			continue
		}
		nodeScore += s * r.resources[i].weight
		weightSum += r.resources[i].weight
	}
	if weightSum == 0 {
		return 0
	}
	if r.rounded {
		return int64(math.Round(float64(nodeScore) / float64(weightSum)))
	}
	return nodeScore / weightSum
}

// requestedAndAllocatable is what node would have requested of name with
// the pod on it, and what it can give; 0, 0 for an extended resource the
// pod does not ask for.
func requestedAndAllocatable(pod *PodInfo, node *NodeInfo, name corev1.ResourceName) (requested, allocatable int64) {
	switch name {
	case corev1.ResourceCPU:
		return node.NonZeroRequested.MilliCPU + pod.NonZeroRequests.MilliCPU, node.Allocatable.MilliCPU
	case corev1.ResourceMemory:
		return node.NonZeroRequested.Memory + pod.NonZeroRequests.Memory, node.Allocatable.Memory
	}
	podRequest := pod.Requests.Scalar[name]
	if podRequest == 0 {
		return 0, 0
	}
	return node.Requested.Scalar[name] + podRequest, node.Allocatable.Scalar[name]
}

// mostRequestedScore is requested / capacity × 100, capped at 100.
func mostRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 {
		return 0
	}
	requested = min(requested, capacity)
	return requested * MaxNodeScore / capacity
}

// requestedToCapacityRatioScore returns the score of a utilization through
// shape's broken line, its scores scaled from 0–10 to 0–MaxNodeScore;
// a node past its capacity is at 100 % utilization.
func requestedToCapacityRatioScore(shape []configv1.UtilizationShapePoint) func(requested, capacity int64) int64 {
	const maxUtilization = 100
	scale := MaxNodeScore / MaxCustomPriorityScore
	line := func(p int64) int64 {
		for i := range shape {
			if p > int64(shape[i].Utilization) {
				continue
			}
			if i == 0 {
				return int64(shape[0].Score) * scale
			}
			u0, u1 := int64(shape[i-1].Utilization), int64(shape[i].Utilization)
			s0, s1 := int64(shape[i-1].Score)*scale, int64(shape[i].Score)*scale
			return s0 + (s1-s0)*(p-u0)/(u1-u0)
		}
		return int64(shape[len(shape)-1].Score) * scale
	}
	return func(requested, capacity int64) int64 {
		if len(shape) == 0 {
			return 0
		}
		if capacity == 0 || requested > capacity {
			return line(maxUtilization)
		}
		return line(requested * maxUtilization / capacity)
	}
}
