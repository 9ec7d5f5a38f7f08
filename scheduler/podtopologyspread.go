package scheduler

import (
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
)

// PodTopologySpread is kube-scheduler's PodTopologySpread plugin
// (pkg/scheduler/framework/plugins/podtopologyspread): a pod's
// topologySpreadConstraints ask that the pods matching a selector be
// spread evenly over the domains of a topology key. The skew of a domain
// is how many more matching pods it would hold, with the pod, than the
// domain that holds fewest (the global minimum, taken as 0 while there
// are fewer eligible domains than minDomains).
//
// Filter (whenUnsatisfiable: DoNotSchedule): a node without the
// constraint's topology label is rejected, as is one where the skew would
// pass maxSkew. The eligible domains are those of the nodes that have
// every constraint's label and pass the constraint's nodeAffinityPolicy
// (Honor by default: the pod's nodeSelector and required node affinity)
// and nodeTaintsPolicy (Ignore by default; Honor leaves out nodes with
// NoSchedule or NoExecute taints the pod does not tolerate); only pods of
// the pod's namespace count, and not those being deleted.
//
// Score (whenUnsatisfiable: ScheduleAnyway): a node gets, per
// constraint, the matching pods of its domain times log(domains+2) plus
// maxSkew-1, and the sums are turned around so that the emptiest node
// scores MaxNodeScore.
//
// matchLabelKeys adds the pod's own values of those labels to the
// selector (so a Deployment's constraint counts only the pods of its
// current ReplicaSet with pod-template-hash).
//
// A pod without constraints of its own gets the system defaults of the
// default profile (defaultingType System): ScheduleAnyway over hostname
// (maxSkew 3) and zone (maxSkew 5). kube-scheduler applies them with a
// selector made of the Services, ReplicationControllers, ReplicaSets and
// StatefulSets that select the pod; kubesim counts the pods of the same
// controller instead (the pods a ReplicaSet or StatefulSet owns are those
// its selector matches), so that the default spreading costs a map look-up
// per node, and a pod without a controller is not spread.
const (
	// ErrReasonConstraintsNotMatch is the reason for a node where the skew
	// would pass maxSkew.
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	// ErrReasonNodeLabelNotMatch is the reason for a node without a
	// constraint's topology label.
	ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + " (missing required label)"
)

// SystemDefaultConstraints are the default profile's spreading for pods
// without constraints (PodTopologySpreadArgs with defaultingType System).
func SystemDefaultConstraints() []corev1.TopologySpreadConstraint {
	return []corev1.TopologySpreadConstraint{
		{TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 3},
		{TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 5},
	}
}

// topologySpreadConstraint is a parsed constraint with its defaults
// applied.
type topologySpreadConstraint struct {
	MaxSkew            int32
	TopologyKey        string
	Selector           labels.Selector
	MinDomains         int32
	NodeAffinityPolicy corev1.NodeInclusionPolicy
	NodeTaintsPolicy   corev1.NodeInclusionPolicy
	// ownerUID is set for a system default constraint: the pods counted
	// are those of this controller (see PodTopologySpread).
	ownerUID string
}

// matches reports whether p counts for the constraint: in namespace ns,
// not being deleted, selected (countPodsMatchSelector). An empty selector
// counts no pod, as in Kubernetes.
func (c *topologySpreadConstraint) matches(p *PodInfo, ns string) bool {
	if p.Pod.DeletionTimestamp != nil || p.Pod.Namespace != ns {
		return false
	}
	if c.ownerUID != "" {
		return p.OwnerUID == c.ownerUID
	}
	return !c.Selector.Empty() && c.Selector.Matches(labels.Set(p.Pod.Labels))
}

// countOnNode counts the node's pods that match the constraint.
func (c *topologySpreadConstraint) countOnNode(ni *NodeInfo, ns string) int {
	if c.ownerUID != "" {
		// The per-controller counts the node keeps (they include pods
		// being deleted, which Kubernetes leaves out: a pod's deletion
		// is seen soon after).
		return int(ni.PodsOfOwner(c.ownerUID))
	}
	if c.Selector.Empty() {
		return 0
	}
	n := 0
	for _, p := range ni.Pods {
		if c.matches(p, ns) {
			n++
		}
	}
	return n
}

// includesNode is matchNodeInclusionPolicies: whether the node's domain
// is eligible for the pod under the constraint's policies.
func (c *topologySpreadConstraint) includesNode(pod *corev1.Pod, node *corev1.Node) bool {
	if c.NodeAffinityPolicy != corev1.NodeInclusionPolicyIgnore && !api.PodMatchesNodeAffinity(&pod.Spec, node) {
		return false
	}
	if c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		for i := range node.Spec.Taints {
			t := &node.Spec.Taints[i]
			if (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) &&
				!TolerationsTolerateTaint(pod.Spec.Tolerations, t) {
				return false
			}
		}
	}
	return true
}

// nodeHasAllTopologyKeys is nodeLabelsMatchSpreadConstraints.
func nodeHasAllTopologyKeys(node *NodeInfo, cs []topologySpreadConstraint) bool {
	for i := range cs {
		if _, ok := node.Label(cs[i].TopologyKey); !ok {
			return false
		}
	}
	return true
}

// spreadConstraints returns the pod's constraints with whenUnsatisfiable
// action, parsed, or the default constraints for action when the pod has
// no constraints at all and a controller: defaults, or the system
// defaults when defaults is nil (defaultingType System).
func spreadConstraints(pod *PodInfo, action corev1.UnsatisfiableConstraintAction, defaults []corev1.TopologySpreadConstraint) []topologySpreadConstraint {
	given := pod.Pod.Spec.TopologySpreadConstraints
	defaulted := len(given) == 0
	if defaulted {
		if pod.OwnerUID == "" {
			return nil
		}
		given = defaults
		if given == nil {
			given = SystemDefaultConstraints()
		}
	}
	var out []topologySpreadConstraint
	for i := range given {
		c := &given[i]
		if c.WhenUnsatisfiable != action {
			continue
		}
		tsc := topologySpreadConstraint{
			MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey, MinDomains: 1,
			NodeAffinityPolicy: corev1.NodeInclusionPolicyHonor, NodeTaintsPolicy: corev1.NodeInclusionPolicyIgnore,
		}
		if defaulted {
			tsc.ownerUID = pod.OwnerUID
		} else {
			sel, err := api.LabelSelectorAsSelector(c.LabelSelector)
			if err != nil {
				sel = labels.Nothing() // validation keeps such pods out
			}
			tsc.Selector = withMatchLabelKeys(sel, c.MatchLabelKeys, pod.Pod.Labels)
		}
		if c.MinDomains != nil {
			tsc.MinDomains = *c.MinDomains
		}
		if c.NodeAffinityPolicy != nil {
			tsc.NodeAffinityPolicy = *c.NodeAffinityPolicy
		}
		if c.NodeTaintsPolicy != nil {
			tsc.NodeTaintsPolicy = *c.NodeTaintsPolicy
		}
		out = append(out, tsc)
	}
	return out
}

// withMatchLabelKeys adds key=value to sel for each of keys the pod has a
// label of (mergeLabelSetWithSelector).
func withMatchLabelKeys(sel labels.Selector, keys []string, podLabels map[string]string) labels.Selector {
	for _, k := range keys {
		v, ok := podLabels[k]
		if !ok {
			continue
		}
		if r, err := labels.NewRequirement(k, labels.Equals, []string{v}); err == nil {
			sel = sel.Add(*r)
		}
	}
	return sel
}

// topologySpreadState is PodTopologySpread's PreFilter state.
type topologySpreadState struct {
	constraints []topologySpreadConstraint
	// counts[i] counts the matching pods per eligible domain of
	// constraints[i], empty domains included.
	counts []map[string]int
	// mins[i] is the smallest of counts[i] (MaxInt32 with no domain),
	// the global minimum (criticalPaths).
	mins []int
}

func (s *topologySpreadState) clone() *topologySpreadState {
	if s == nil {
		return nil
	}
	c := &topologySpreadState{constraints: s.constraints, counts: make([]map[string]int, len(s.counts)), mins: append([]int(nil), s.mins...)}
	for i, m := range s.counts {
		c.counts[i] = make(map[string]int, len(m))
		for k, v := range m {
			c.counts[i][k] = v
		}
	}
	return c
}

func (s *topologySpreadState) updateMin(i int) {
	m := math.MaxInt32
	for _, n := range s.counts[i] {
		m = min(m, n)
	}
	s.mins[i] = m
}

// updateWithPod counts (delta 1) or uncounts (-1) existing on node for
// preemption's dry run (the plugin's AddPod and RemovePod).
func (s *topologySpreadState) updateWithPod(pod, existing *PodInfo, node *NodeInfo, delta int) {
	if existing.Pod.Namespace != pod.Pod.Namespace || !nodeHasAllTopologyKeys(node, s.constraints) {
		return
	}
	for i := range s.constraints {
		c := &s.constraints[i]
		if !c.matches(existing, pod.Pod.Namespace) || !c.includesNode(pod.Pod, node.Node) {
			continue
		}
		v, _ := node.Label(c.TopologyKey)
		s.counts[i][v] += delta
		s.updateMin(i)
	}
}

// PodTopologySpreadPreFilter counts the matching pods of every eligible
// domain of the pod's DoNotSchedule constraints; no state (every node
// passes) when it has none.
func PodTopologySpreadPreFilter(pod *PodInfo, nodes []*NodeInfo) string {
	return podTopologySpreadPreFilter(pod, nodes, nil)
}

func podTopologySpreadPreFilter(pod *PodInfo, nodes []*NodeInfo, defaults []corev1.TopologySpreadConstraint) string {
	pod.state.topologySpread = nil
	cs := spreadConstraints(pod, corev1.DoNotSchedule, defaults)
	if len(cs) == 0 {
		return ""
	}
	s := &topologySpreadState{constraints: cs, counts: make([]map[string]int, len(cs)), mins: make([]int, len(cs))}
	for i := range cs {
		s.counts[i] = map[string]int{}
	}
	for _, ni := range nodes {
		if !nodeHasAllTopologyKeys(ni, cs) {
			continue
		}
		for i := range cs {
			if !cs[i].includesNode(pod.Pod, ni.Node) {
				continue
			}
			v, _ := ni.Label(cs[i].TopologyKey)
			s.counts[i][v] += cs[i].countOnNode(ni, pod.Pod.Namespace)
		}
	}
	for i := range cs {
		s.updateMin(i)
	}
	pod.state.topologySpread = s
	return ""
}

// PodTopologySpreadFilter is the plugin's Filter: for each constraint, the
// node has the topology label, and the skew of its domain with the pod
// (one more pod if the pod matches its own selector) stays within
// maxSkew.
func PodTopologySpreadFilter(pod *PodInfo, node *NodeInfo) []string {
	s := pod.state.topologySpread
	if s == nil {
		return nil
	}
	for i := range s.constraints {
		c := &s.constraints[i]
		v, ok := node.Label(c.TopologyKey)
		if !ok {
			return []string{ErrReasonNodeLabelNotMatch}
		}
		minMatch := s.mins[i]
		if len(s.counts[i]) < int(c.MinDomains) {
			// Fewer eligible domains than minDomains: the missing ones
			// count as empty.
			minMatch = 0
		}
		self := 0
		// A default constraint (ownerUID) selects the pod's own
		// controller's pods, the pod among them.
		if c.ownerUID != "" || c.Selector.Matches(labels.Set(pod.Pod.Labels)) {
			self = 1
		}
		if s.counts[i][v]+self-minMatch > int(c.MaxSkew) {
			return []string{ErrReasonConstraintsNotMatch}
		}
	}
	return nil
}

// spreadScoreState is PodTopologySpread's PreScore state.
type spreadScoreState struct {
	constraints []topologySpreadConstraint
	// requireAll: nodes without every topology label are left out of the
	// scoring (they score 0). Not so for the system defaults, so that
	// nodes without a zone label are still spread over by hostname.
	requireAll bool
	// counts[i] counts the matching pods per domain of constraints[i]
	// that a feasible node is in (hostname is counted per node in Score).
	counts []map[string]int64
	// weights[i] is log(domains+2): the pods of a constraint with few
	// domains are not watered down by one with many.
	weights []float64
	// labelled[i] reports whether a feasible node has constraints[i]'s
	// label: when none has (a cluster without zones under the system
	// defaults), no node scores for it and it is not looked at again.
	labelled []bool
}

// invalidScore marks a node left out of PodTopologySpread's scoring until
// NormalizePodTopologySpread gives it 0.
const invalidScore = -1

// PodTopologySpreadPreScore counts the matching pods of the domains of the
// feasible nodes (over all nodes) for the pod's ScheduleAnyway
// constraints, or the system defaults; it skips the plugin when there are
// none.
func PodTopologySpreadPreScore(pod *PodInfo, feasible, all []*NodeInfo) (skip bool) {
	return podTopologySpreadPreScore(pod, feasible, all, nil)
}

func podTopologySpreadPreScore(pod *PodInfo, feasible, all []*NodeInfo, defaults []corev1.TopologySpreadConstraint) (skip bool) {
	pod.state.spreadScores = nil
	cs := spreadConstraints(pod, corev1.ScheduleAnyway, defaults)
	if len(cs) == 0 || len(feasible) == 0 {
		return true
	}
	s := &spreadScoreState{constraints: cs, requireAll: len(pod.Pod.Spec.TopologySpreadConstraints) > 0,
		counts: make([]map[string]int64, len(cs)), weights: make([]float64, len(cs)), labelled: make([]bool, len(cs))}
	sizes := make([]int, len(cs))
	unlabelled := make([]bool, len(cs))
	for i := range cs {
		s.counts[i] = map[string]int64{}
	}
	scored := 0
	for _, ni := range feasible {
		if s.requireAll && !nodeHasAllTopologyKeys(ni, cs) {
			continue
		}
		scored++
		for i := range cs {
			if cs[i].TopologyKey == corev1.LabelHostname {
				s.labelled[i] = true // Score looks at the label itself
				continue
			}
			v, ok := ni.Label(cs[i].TopologyKey)
			if !ok {
				// Without the label: the node is in the "" domain,
				// which counts once among the domains.
				if !unlabelled[i] {
					unlabelled[i] = true
					if _, ok := s.counts[i][""]; !ok {
						s.counts[i][""] = 0
						sizes[i]++
					}
				}
				continue
			}
			s.labelled[i] = true
			if _, ok := s.counts[i][v]; !ok {
				s.counts[i][v] = 0
				sizes[i]++
			}
		}
	}
	for i := range cs {
		size := sizes[i]
		if cs[i].TopologyKey == corev1.LabelHostname {
			size = scored
		}
		s.weights[i] = math.Log(float64(size + 2))
	}
	// Count the pods of those domains over every node. A node without the
	// label is skipped: its "" domain is one Score never reads (it reads
	// the domains of nodes that have the label), though kube-scheduler
	// counts it all the same.
	counted := false
	for i := range cs {
		counted = counted || (s.labelled[i] && cs[i].TopologyKey != corev1.LabelHostname)
	}
	for _, ni := range all {
		if !counted {
			break
		}
		if s.requireAll && !nodeHasAllTopologyKeys(ni, cs) {
			continue
		}
		for i := range cs {
			c := &cs[i]
			if c.TopologyKey == corev1.LabelHostname || !s.labelled[i] {
				continue
			}
			v, ok := ni.Label(c.TopologyKey)
			if !ok {
				continue
			}
			if _, wanted := s.counts[i][v]; !wanted || !c.includesNode(pod.Pod, ni.Node) {
				continue
			}
			s.counts[i][v] += int64(c.countOnNode(ni, pod.Pod.Namespace))
		}
	}
	pod.state.spreadScores = s
	return false
}

// PodTopologySpreadScore is the node's raw score: per constraint whose
// label it has, the matching pods of its domain times the constraint's
// weight, plus maxSkew-1 (which waters small skews down); invalidScore
// for a node left out.
func PodTopologySpreadScore(pod *PodInfo, node *NodeInfo) int64 {
	s := pod.state.spreadScores
	if s == nil {
		return 0
	}
	if s.requireAll && !nodeHasAllTopologyKeys(node, s.constraints) {
		return invalidScore
	}
	var score float64
	for i := range s.constraints {
		c := &s.constraints[i]
		if !s.labelled[i] {
			continue
		}
		v, ok := node.Label(c.TopologyKey)
		if !ok {
			continue
		}
		var n int64
		if c.TopologyKey == corev1.LabelHostname {
			n = int64(c.countOnNode(node, pod.Pod.Namespace))
		} else {
			n = s.counts[i][v]
		}
		score += float64(n)*s.weights[i] + float64(c.MaxSkew-1)
	}
	return int64(math.Round(score))
}

// NormalizePodTopologySpread turns the raw scores around: MaxNodeScore ×
// (max + min - score) / max, so the node with the fewest matching pods
// scores highest; all MaxNodeScore when the highest is 0; a node left
// out scores 0. Without state the plugin was skipped and every node keeps
// 0.
func NormalizePodTopologySpread(pod *PodInfo, scores []int64) {
	if pod.state.spreadScores == nil {
		return
	}
	lo, hi := int64(math.MaxInt64), int64(0)
	for _, s := range scores {
		if s == invalidScore {
			continue
		}
		lo, hi = min(lo, s), max(hi, s)
	}
	for i, s := range scores {
		switch {
		case s == invalidScore:
			scores[i] = 0
		case hi == 0:
			scores[i] = MaxNodeScore
		default:
			scores[i] = MaxNodeScore * (hi + lo - s) / hi
		}
	}
}
