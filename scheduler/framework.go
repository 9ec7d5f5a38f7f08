package scheduler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	configv1 "k8s.io/kube-scheduler/config/v1"
)

// Framework is one scheduling profile: the filters and scores a decision
// runs. It holds no state, so one Framework may serve many decisions.
type Framework struct {
	// Filters run in order; the first to reject a node decides its reason.
	Filters []FilterPlugin
	// Scores are summed, each times its weight.
	Scores []ScorePlugin
	// PercentageOfNodesToScore is the profile's percentageOfNodesToScore
	// (KubeSchedulerProfile, overriding KubeSchedulerConfiguration's): the
	// share of the nodes a cycle looks for feasible ones among, 0 to 100.
	// 0 is kube-scheduler's adaptive default (NumFeasibleNodesToFind);
	// 100 filters and scores every node. Clusters of fewer than
	// MinFeasibleNodesToFind nodes are filtered whole whatever it says.
	PercentageOfNodesToScore int32
	// PreemptionArgs are DefaultPreemption's: how many candidate nodes
	// preemption's dry run looks for (nil: MinCandidateNodesPercentage
	// and MinCandidateNodesAbsolute).
	PreemptionArgs *configv1.DefaultPreemptionArgs
}

// The bounds of percentageOfNodesToScore, kube-scheduler's constants in
// pkg/scheduler/schedule_one.go.
const (
	// MinFeasibleNodesToFind is minFeasibleNodesToFind: a cluster with
	// fewer nodes is filtered whole, and a larger one is searched until at
	// least this many feasible nodes are found (or every node was tried).
	MinFeasibleNodesToFind = 100
	// MinFeasibleNodesPercentageToFind is
	// minFeasibleNodesPercentageToFind, the floor of the adaptive
	// percentage.
	MinFeasibleNodesPercentageToFind = 5
)

// NumFeasibleNodesToFind is how many feasible nodes a cycle over
// numAllNodes nodes looks for before it stops filtering (kube-scheduler's
// numFeasibleNodesToFind in pkg/scheduler/schedule_one.go): every node in
// a cluster of fewer than MinFeasibleNodesToFind (and so of 100 or fewer,
// given the floor below); otherwise the configured
// percentage of the nodes or, when none is configured, 50 % less one point
// per 125 nodes (42 % at 1,000 nodes, 10 % at 5,000) but at least
// MinFeasibleNodesPercentageToFind; and never fewer than
// MinFeasibleNodesToFind. Scoring a sample is what lets kube-scheduler keep
// its rate in clusters of thousands of nodes: the nodes it finds are good
// enough, and the next cycle starts where this one stopped, so that every
// node gets its turn.
func (f *Framework) NumFeasibleNodesToFind(numAllNodes int) int {
	if numAllNodes < MinFeasibleNodesToFind {
		return numAllNodes
	}
	percentage := int(f.PercentageOfNodesToScore)
	if percentage == 0 {
		percentage = max(50-numAllNodes/125, MinFeasibleNodesPercentageToFind)
	}
	return max(numAllNodes*min(percentage, 100)/100, MinFeasibleNodesToFind)
}

// ValidatePercentageOfNodesToScore is the check kube-scheduler's
// configuration validation makes of percentageOfNodesToScore.
func ValidatePercentageOfNodesToScore(p int32) error {
	if p < 0 || p > 100 {
		return fmt.Errorf("percentageOfNodesToScore: Invalid value: %d: not in valid range [0-100]", p)
	}
	return nil
}

// DefaultFramework is the default profile: DefaultFilters and
// DefaultScores.
func DefaultFramework() *Framework {
	return &Framework{Filters: DefaultFilters(), Scores: DefaultScores()}
}

// NodeResult is what one node got in a decision: rejected by a filter (with
// its reasons) or scored.
type NodeResult struct {
	// Node is the node's name.
	Node string
	// Filter is the plugin that rejected the node, "" when it passed.
	Filter string
	// Reasons are the rejecting filter's reasons.
	Reasons []string
	// Score is the weighted sum of the score plugins, for a node that
	// passed, and of the extenders' scores.
	Score int64
	// Extender is the extender that refused the node (its urlPrefix),
	// when Filter is ExtenderName.
	Extender string
	// ExtenderScore is the extenders' part of Score: each one's score
	// times its weight times MaxNodeScore/MaxExtenderPriority.
	ExtenderScore int64
}

// Feasible reports whether the node passed every filter.
func (r NodeResult) Feasible() bool { return r.Filter == "" }

// Decision is one scheduling cycle's outcome, kept for the trace.
type Decision struct {
	// Cycle numbers the scheduler's decisions from 1, so a stepper can
	// tell whether a step made a new one (a pod already bound or deleted
	// is dropped without a decision). The pure Schedule leaves it alone.
	Cycle uint64
	// Pod is the pod's namespace/name.
	Pod string
	// Nodes holds the result of each node the cycle filtered, in node
	// name order: every node in a cluster of fewer than
	// MinFeasibleNodesToFind, else those tried until enough feasible ones
	// were found (NumFeasibleNodesToFind), and every node when too few
	// fit.
	Nodes []NodeResult
	// Chosen is the node picked, "" when none fits.
	Chosen string
	// Ties is how many nodes shared the best score; above one, the
	// injected random source picked among them.
	Ties int
	// PreFilterMsg is why no node was tried (a PreFilter's rejection:
	// a missing claim).
	PreFilterMsg string
	// Err is why the cycle failed, when it did with an error rather
	// than a FitError: an extender that is not ignorable failed.
	Err      string
	numNodes int

	// Scratch space reused by the next decision, so a decision over
	// thousands of nodes allocates next to nothing.
	feasible      []int
	feasibleNodes []*NodeInfo
	raw           []int64
}

// Schedule filters the nodes and scores those that passed, and picks the
// best, breaking ties with r. It writes the outcome into d, reusing d's
// memory (pass the same Decision again to avoid allocating). nodes must be
// in a fixed order (by name) for the result to be deterministic.
//
// Filtering starts at nodes[start] and goes round, as kube-scheduler's
// findNodesThatPassFilters starts where the previous cycle stopped
// (nextStartNodeIndex), and stops once NumFeasibleNodesToFind nodes have
// passed; only those are scored. With fewer than MinFeasibleNodesToFind
// nodes every node is filtered, whatever start is. The caller's next
// start is (start + len(d.Nodes)) mod len(nodes): the nodes filtered,
// feasible or not, as in findNodesThatFitPod.
func (f *Framework) Schedule(pod *PodInfo, nodes []*NodeInfo, start int, r *rand.Rand, d *Decision) {
	// The cycle's state lives as long as this call.
	defer func() { pod.state = CycleState{} }()
	if f.findFeasible(pod, nodes, start, false, d) {
		f.prioritize(pod, nodes, r, d)
	}
}

// findFeasible is Schedule's first half: PreFilter and the filter plugins
// (findNodesThatPassFilters). It fills d.Nodes with each node tried and
// d.feasible with the nodes that passed, and reports whether any did.
// extenders says the scheduler has extenders to ask afterwards: then the
// first feasible node is not enough even without score plugins, as in
// kube-scheduler, since an extender may refuse it.
func (f *Framework) findFeasible(pod *PodInfo, nodes []*NodeInfo, start int, extenders bool, d *Decision) bool {
	d.Pod, d.Chosen, d.Ties, d.PreFilterMsg, d.Err, d.numNodes = pod.Key, "", 0, "", "", len(nodes)
	d.Nodes = d.Nodes[:0]
	d.feasible, d.feasibleNodes = d.feasible[:0], d.feasibleNodes[:0]
	if pod.Volumes != nil && pod.Volumes.PreFilterMsg != "" {
		// A PreFilter rejection: no node is even tried.
		d.PreFilterMsg = pod.Volumes.PreFilterMsg
		return false
	}
	n := len(nodes)
	if n == 0 {
		return false
	}
	if msg := f.preFilter(pod, nodes); msg != "" {
		d.PreFilterMsg = msg
		return false
	}
	toFind := f.NumFeasibleNodesToFind(n)
	if len(f.Scores) == 0 && !extenders {
		// Nothing to compare nodes by: the first feasible one will do
		// (findNodesThatPassFilters without score plugins or extenders).
		toFind = 1
	}
	start %= n
	if cap(d.Nodes) < n {
		d.Nodes = make([]NodeResult, 0, n)
	}
	found := 0
	for i := 0; i < n && found < toFind; i++ {
		j := start + i
		if j >= n {
			j -= n
		}
		res := NodeResult{Node: nodes[j].Node.Name}
		for _, fp := range f.Filters {
			if reasons := fp.Filter(pod, nodes[j]); len(reasons) > 0 {
				res.Filter, res.Reasons = fp.Name, reasons
				break
			}
		}
		d.Nodes = append(d.Nodes, res)
		if res.Filter == "" {
			found++
		}
	}
	// The nodes tried run from nodes[start] on and, when the search went
	// round past the last node, on from nodes[0] to nodes[wrapped-1].
	// d.Nodes is put in name order, the wrapped ones first, so that the
	// trace and the tie-break read the nodes in one order whatever the
	// start.
	wrapped := max(start+len(d.Nodes)-n, 0)
	if wrapped > 0 {
		head := n - start // the entries from nodes[start:]
		slices.Reverse(d.Nodes[:head])
		slices.Reverse(d.Nodes[head:])
		slices.Reverse(d.Nodes)
	}
	for k := range d.Nodes {
		if d.Nodes[k].Filter != "" {
			continue
		}
		j := start + k - wrapped // d.Nodes[k] is nodes[j]
		if k < wrapped {
			j = k
		}
		d.feasible = append(d.feasible, k)
		d.feasibleNodes = append(d.feasibleNodes, nodes[j])
	}
	return len(d.feasible) > 0
}

// prioritize is Schedule's second half: the score plugins over the
// feasible nodes findFeasible left in d (and the extenders let through),
// each added to what d.Nodes[i].Score already holds (the extenders'
// part), and the pick. nodes are all the nodes, for PreScore.
func (f *Framework) prioritize(pod *PodInfo, nodes []*NodeInfo, r *rand.Rand, d *Decision) {
	if len(d.feasible) == 0 {
		return
	}
	if cap(d.raw) < len(d.feasible) {
		d.raw = make([]int64, len(d.feasible))
	}
	raw := d.raw[:len(d.feasible)]
	for _, sp := range f.Scores {
		if sp.PreScore != nil && sp.PreScore(pod, d.feasibleNodes, nodes) {
			continue // Skip: nothing to score by
		}
		for k, ni := range d.feasibleNodes {
			raw[k] = sp.Score(pod, ni)
		}
		if sp.Normalize != nil {
			sp.Normalize(pod, raw)
		}
		for k, i := range d.feasible {
			d.Nodes[i].Score += sp.Weight * raw[k]
		}
	}
	// A configured negative weight can make every sum negative: the best
	// starts below any of them.
	best := int64(math.MinInt64)
	for _, i := range d.feasible {
		switch s := d.Nodes[i].Score; {
		case s > best:
			best, d.Ties = s, 1
		case s == best:
			d.Ties++
		}
	}
	// The random source is asked only on a tie, so a run without ties
	// draws nothing from it.
	pick := 0
	if d.Ties > 1 {
		pick = r.IntN(d.Ties)
	}
	for _, i := range d.feasible {
		if d.Nodes[i].Score != best {
			continue
		}
		if pick == 0 {
			d.Chosen = d.Nodes[i].Node
			return
		}
		pick--
	}
}

// preFilter runs the PreFilter plugins in order over every node; the
// first rejection is returned and ends the cycle.
func (f *Framework) preFilter(pod *PodInfo, nodes []*NodeInfo) string {
	for _, fp := range f.Filters {
		if fp.PreFilter == nil {
			continue
		}
		if msg := fp.PreFilter(pod, nodes); msg != "" {
			return msg
		}
	}
	return ""
}

// rejectedByPodFilters reports whether a filter that looks at the pods on
// the nodes (InterPodAffinity, PodTopologySpread) rejected a node, so that
// a change of pods may make the pod fit. A node an extender refused
// counts too: kube-scheduler knows nothing of what an extender looks at,
// so any event may make the pod fit there.
func (d *Decision) rejectedByPodFilters() bool {
	for i := range d.Nodes {
		if f := d.Nodes[i].Filter; f == "InterPodAffinity" || f == "PodTopologySpread" || f == ExtenderName {
			return true
		}
	}
	return false
}

// Copy returns a copy of d that shares no memory d's next decision will
// overwrite.
func (d *Decision) Copy() Decision {
	return Decision{Cycle: d.Cycle, Pod: d.Pod, Nodes: append([]NodeResult(nil), d.Nodes...), Chosen: d.Chosen, Ties: d.Ties,
		PreFilterMsg: d.PreFilterMsg, Err: d.Err, numNodes: d.numNodes}
}

// FitError is the histogram of reasons when no node fits; nil when one
// did.
func (d *Decision) FitError() *FitError {
	if d.Chosen != "" || d.Err != "" {
		return nil
	}
	if d.PreFilterMsg != "" {
		return &FitError{NumAllNodes: d.numNodes, PreFilterMsg: d.PreFilterMsg}
	}
	// No node fitted, so every node was filtered: d.Nodes has them all.
	fe := &FitError{NumAllNodes: d.numNodes, Reasons: map[string]int{}}
	for _, n := range d.Nodes {
		for _, r := range n.Reasons {
			fe.Reasons[r]++
		}
	}
	return fe
}

// String renders the decision for the trace, node by node:
// "node-1: score 87 | node-2: Insufficient cpu | node-3: score 87 (tie,
// picked by seed)".
func (d Decision) String() string {
	if d.PreFilterMsg != "" {
		return d.PreFilterMsg
	}
	if len(d.Nodes) == 0 {
		if d.Pod == "" {
			return "" // no decision yet
		}
		return ErrNoNodesAvailable
	}
	var b strings.Builder
	for i, n := range d.Nodes {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(n.Node)
		b.WriteString(": ")
		if !n.Feasible() {
			if n.Filter == ExtenderName {
				// "extender http://127.0.0.1:8888/scheduler: refused (reason)"
				b.WriteString("extender ")
				b.WriteString(n.Extender)
				b.WriteString(": refused")
				if len(n.Reasons) > 0 {
					b.WriteString(" (" + strings.Join(n.Reasons, ", ") + ")")
				}
				continue
			}
			b.WriteString(strings.Join(n.Reasons, ", "))
			continue
		}
		b.WriteString("score ")
		b.WriteString(strconv.FormatInt(n.Score, 10))
		if n.ExtenderScore != 0 {
			b.WriteString(" (extenders ")
			b.WriteString(strconv.FormatInt(n.ExtenderScore, 10))
			b.WriteString(")")
		}
		if n.Node == d.Chosen {
			if d.Ties > 1 {
				b.WriteString(" (tie, picked by seed)")
			} else {
				b.WriteString(" (chosen)")
			}
		}
	}
	if d.Err != "" {
		// The cycle failed with an error after the filters (an
		// extender's).
		b.WriteString(" | error: " + d.Err)
	}
	return b.String()
}

// ErrNoNodesAvailable is the message when the cluster has no node at all.
const ErrNoNodesAvailable = "no nodes available to schedule pods"

// FitError says why a pod fits no node: how many nodes there are and how
// many nodes gave each reason (framework.FitError).
type FitError struct {
	// NumAllNodes is the number of nodes considered.
	NumAllNodes int
	// Reasons counts the nodes that gave each reason.
	Reasons map[string]int
	// PreFilterMsg is a PreFilter's rejection of every node at once.
	PreFilterMsg string
}

// Error is the FailedScheduling message: "0/3 nodes are available: 1
// node(s) were unschedulable, 2 Insufficient cpu." The entries are "<count>
// <reason>" sorted as strings, exactly as kube-scheduler sorts them (so "10
// ..." comes before "2 ...").
func (f *FitError) Error() string {
	if f.NumAllNodes == 0 {
		return ErrNoNodesAvailable
	}
	if f.PreFilterMsg != "" {
		return fmt.Sprintf("0/%d nodes are available: %s.", f.NumAllNodes, f.PreFilterMsg)
	}
	entries := make([]string, 0, len(f.Reasons))
	for reason, n := range f.Reasons {
		entries = append(entries, fmt.Sprintf("%d %s", n, reason))
	}
	sort.Strings(entries)
	msg := fmt.Sprintf("0/%d nodes are available:", f.NumAllNodes)
	if len(entries) > 0 {
		msg += " " + strings.Join(entries, ", ") + "."
	}
	return msg
}
