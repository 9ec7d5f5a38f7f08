package scheduler

// CycleState is what one cycle's PreFilter and PreScore plugins found,
// for their Filter and Score halves: kube-scheduler's CycleState, with a
// field per plugin where kube-scheduler keeps a map of keys. A nil field
// means the plugin has nothing to check or score for the pod (its
// PreFilter or PreScore returned Skip), so a cycle without inter-pod
// affinity or spreading allocates nothing here.
type CycleState struct {
	interPodAffinity *interPodAffinityState
	topologySpread   *topologySpreadState
	affinityScores   affinityScoreState
	spreadScores     *spreadScoreState
}

// cloneFilterState copies the PreFilter half, so that preemption's dry
// run on one node can add and remove pods without touching the state of
// the others (CycleState.Clone).
func (s *CycleState) cloneFilterState() CycleState {
	return CycleState{interPodAffinity: s.interPodAffinity.clone(), topologySpread: s.topologySpread.clone()}
}

// addPod counts existing, put on node, in pod's PreFilter state; removePod
// uncounts it: the PreFilterExtensions (AddPod, RemovePod) preemption's
// dry run calls as it takes victims off a node and puts them back.
func (s *CycleState) addPod(pod, existing *PodInfo, node *NodeInfo) {
	s.updateWithPod(pod, existing, node, 1)
}

func (s *CycleState) removePod(pod, existing *PodInfo, node *NodeInfo) {
	s.updateWithPod(pod, existing, node, -1)
}

func (s *CycleState) updateWithPod(pod, existing *PodInfo, node *NodeInfo, delta int) {
	if s.interPodAffinity != nil {
		s.interPodAffinity.updateWithPod(pod, existing, node.Node, int64(delta))
	}
	if s.topologySpread != nil {
		s.topologySpread.updateWithPod(pod, existing, node, delta)
	}
}
