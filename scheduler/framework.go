package scheduler

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// Framework is one scheduling profile: the plugins of each extension
// point, in the order they run (kube-scheduler's frameworkImpl). It keeps
// no decision's state, so one Framework serves every decision of its
// profile; the pods waiting in Permit are its own, as in kube-scheduler,
// and it is the Handle its plugins are built with.
type Framework struct {
	// PreEnqueue decide whether a pod enters the queue at all.
	PreEnqueue []PreEnqueuePlugin
	// QueueSort orders the queue (kubesim's queue is FIFO: doc.go).
	QueueSort QueueSortPlugin
	// PreFilter run once per cycle before the filters; the first
	// rejection ends the cycle.
	PreFilter []PreFilterPlugin
	// Filter run in order on each node; the first to reject a node
	// decides its reason.
	Filter []FilterPlugin
	// PostFilter run when nothing fits, until one succeeds.
	PostFilter []PostFilterPlugin
	// PreScore run once per cycle on the feasible nodes.
	PreScore []PreScorePlugin
	// Score are summed, each times its weight.
	Score []WeightedScorePlugin
	// Reserve run after the pick; Unreserve in reverse on a later
	// failure.
	Reserve []ReservePlugin
	// Permit approve, reject or hold the binding.
	Permit []PermitPlugin
	// PreBind run before the binding.
	PreBind []PreBindPlugin
	// Bind bind, the first that does not Skip.
	Bind []BindPlugin
	// PostBind are told of the binding.
	PostBind []PostBindPlugin
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

	// rt is what the scheduler running the framework gives it (its
	// client, its cache, the waiting pods; permit.go), shared with the
	// copies New makes.
	rt *frameworkRuntime
}

// WeightedScorePlugin is a score plugin with the weight its profile gives
// it.
type WeightedScorePlugin struct {
	ScorePlugin
	Weight int64
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

// DefaultFramework is kube-scheduler's default profile, the plugins
// kubesim has, in its order: SchedulingGates, PrioritySort, the
// PreFilters of VolumeBinding, PodTopologySpread and InterPodAffinity,
// DefaultFilters, DefaultPreemption, DefaultScores with their PreScores,
// DefaultBinder.
func DefaultFramework() *Framework {
	f := NewFramework()
	fit := NewNodeResourcesFit(nil)
	vb, spread, affinity := NewVolumeBinding(), NewPodTopologySpread(nil), NewInterPodAffinity(HardPodAffinityWeight)
	f.PreEnqueue = []PreEnqueuePlugin{NewSchedulingGates()}
	f.QueueSort = NewPrioritySort()
	f.PreFilter = []PreFilterPlugin{vb, spread, affinity}
	f.Filter = []FilterPlugin{NewNodeUnschedulable(), NewNodeName(), NewNodeReady(), NewTaintToleration(),
		NewNodeAffinity(), NewNodePorts(), fit, vb, spread, affinity}
	f.PostFilter = []PostFilterPlugin{NewDefaultPreemption(f)}
	f.PreScore = []PreScorePlugin{spread, affinity}
	f.Score = []WeightedScorePlugin{{fit, 1}, {spread, 2}, {affinity, 2}}
	f.Bind = []BindPlugin{NewDefaultBinder(f)}
	return f
}

// NewFramework returns an empty framework, ready to be the Handle of the
// plugins put in it.
func NewFramework() *Framework {
	return &Framework{rt: &frameworkRuntime{waiting: map[types.UID]*waitingPod{}}}
}

// DefaultFilters are the filters of DefaultFramework, in the order
// kube-scheduler's default profile runs them (NodeReady stands where the
// not-ready taint would be caught).
func DefaultFilters() []FilterPlugin { return DefaultFramework().Filter }

// DefaultScores are the score plugins of kube-scheduler's default profile
// that kubesim has, in its order and with its weights: NodeResourcesFit
// (LeastAllocated) 1, PodTopologySpread 2, InterPodAffinity 2.
func DefaultScores() []WeightedScorePlugin { return DefaultFramework().Score }

// Has reports whether the framework runs a plugin of that name at any
// extension point.
func (f *Framework) Has(name string) bool {
	for _, p := range f.plugins() {
		if p.Name() == name {
			return true
		}
	}
	return false
}

// plugins lists every plugin of the framework, point by point.
func (f *Framework) plugins() []Plugin {
	var out []Plugin
	add := func(p Plugin) { out = append(out, p) }
	for _, p := range f.PreEnqueue {
		add(p)
	}
	if f.QueueSort != nil {
		add(f.QueueSort)
	}
	for _, p := range f.PreFilter {
		add(p)
	}
	for _, p := range f.Filter {
		add(p)
	}
	for _, p := range f.PostFilter {
		add(p)
	}
	for _, p := range f.PreScore {
		add(p)
	}
	for _, p := range f.Score {
		add(p.ScorePlugin)
	}
	for _, p := range f.Reserve {
		add(p)
	}
	for _, p := range f.Permit {
		add(p)
	}
	for _, p := range f.PreBind {
		add(p)
	}
	for _, p := range f.Bind {
		add(p)
	}
	for _, p := range f.PostBind {
		add(p)
	}
	return out
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
	Err string
	// ScorePlugins name the score plugins of the cycle, in the order
	// PluginScores gives their parts.
	ScorePlugins []string
	// Permit is what the Permit plugins said when one held the pod
	// ("waiting on Coscheduling (timeout 30s)") and how that ended
	// ("allowed", "rejected: ..."); empty when none held it.
	Permit   string
	numNodes int

	// Scratch space reused by the next decision, so a decision over
	// thousands of nodes allocates next to nothing.
	feasible      []int
	feasibleNodes []*NodeInfo
	raw           []int64
	// pluginScores holds PluginScores(i) at [i*len(ScorePlugins):], kept
	// apart from Nodes so that a NodeResult stays small to move.
	pluginScores []int64
}

// PluginScores are the score plugins' parts of d.Nodes[i].Score, each
// normalized and times its weight, in the order of ScorePlugins (0 for a
// plugin whose PreScore skipped it); nil for a node that did not pass or
// was not scored. The slice is d's: the next decision reuses it.
func (d *Decision) PluginScores(i int) []int64 {
	np := len(d.ScorePlugins)
	if np == 0 || i < 0 || i >= len(d.Nodes) || !d.Nodes[i].Feasible() || (i+1)*np > len(d.pluginScores) {
		return nil
	}
	return d.pluginScores[i*np : (i+1)*np : (i+1)*np]
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
func (f *Framework) Schedule(ctx context.Context, pod *PodInfo, nodes []*NodeInfo, start int, r *rand.Rand, d *Decision) {
	// The built-ins' state lives as long as this call.
	defer pod.state.endSchedulingCycle()
	if f.findFeasible(ctx, pod, nodes, start, false, d) {
		f.prioritize(ctx, pod, r, d)
	}
}

// findFeasible is Schedule's first half: the PreFilter and Filter plugins
// (findNodesThatPassFilters). It fills d.Nodes with each node tried and
// d.feasible with the nodes that passed, and reports whether any did.
// extenders says the scheduler has extenders to ask afterwards: then the
// first feasible node is not enough even without score plugins, as in
// kube-scheduler, since an extender may refuse it.
func (f *Framework) findFeasible(ctx context.Context, pod *PodInfo, nodes []*NodeInfo, start int, extenders bool, d *Decision) bool {
	d.Pod, d.Chosen, d.Ties, d.PreFilterMsg, d.Err, d.numNodes = pod.Key, "", 0, "", "", len(nodes)
	d.Permit = ""
	d.ScorePlugins, d.pluginScores = d.ScorePlugins[:0], d.pluginScores[:0]
	d.Nodes = d.Nodes[:0]
	d.feasible, d.feasibleNodes = d.feasible[:0], d.feasibleNodes[:0]
	state := &pod.state
	state.allNodes = nodes
	if st := f.runPreFilter(ctx, state, pod, nodes); !st.IsSuccess() {
		// A PreFilter rejection: no node is even tried.
		if st.Code() == Error {
			d.Err = st.Message()
		} else {
			d.PreFilterMsg = st.Message()
		}
		return false
	}
	n := len(nodes)
	if n == 0 {
		return false
	}
	toFind := f.NumFeasibleNodesToFind(n)
	if len(f.Score) == 0 && !extenders {
		// Nothing to compare nodes by: the first feasible one will do
		// (findNodesThatPassFilters without score plugins or extenders).
		toFind = 1
	}
	start %= n
	if cap(d.Nodes) < n {
		d.Nodes = make([]NodeResult, 0, n)
	}
	found, skip := 0, state.skipFilter
	for i := 0; i < n && found < toFind; i++ {
		j := start + i
		if j >= n {
			j -= n
		}
		res := NodeResult{Node: nodes[j].Node.Name}
		for k, fp := range f.Filter {
			if skip != 0 && k < 64 && skip&(1<<k) != 0 {
				continue
			}
			if st := fp.Filter(ctx, state, pod, nodes[j]); st != nil && st.code != Success {
				res.Filter, res.Reasons = fp.Name(), st.Reasons()
				if len(res.Reasons) == 0 {
					res.Reasons = []string{st.Code().String()}
				}
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

// prioritize is Schedule's second half: the PreScore and Score plugins
// over the feasible nodes findFeasible left in d (and the extenders let
// through), each score times its weight added to what d.Nodes[i].Score
// already holds (the extenders' part), and the pick. A score plugin's
// error fails the cycle (d.Err).
func (f *Framework) prioritize(ctx context.Context, pod *PodInfo, r *rand.Rand, d *Decision) {
	if len(d.feasible) == 0 {
		return
	}
	state := &pod.state
	for _, p := range f.PreScore {
		switch st := p.PreScore(ctx, state, pod, d.feasibleNodes); {
		case st.IsSkip():
			f.skip(&state.skipScore, p.Name(), len(f.Score), func(i int) string { return f.Score[i].Name() })
		case !st.IsSuccess():
			d.Err = fmt.Sprintf("running PreScore plugin %q: %s", p.Name(), st.Message())
			return
		}
	}
	if cap(d.raw) < len(d.feasible) {
		d.raw = make([]int64, len(d.feasible))
	}
	raw := d.raw[:len(d.feasible)]
	// Each plugin's part of each node's score, for the trace, in memory
	// the next decision reuses.
	np := len(f.Score)
	d.ScorePlugins = d.ScorePlugins[:0]
	for _, sp := range f.Score {
		d.ScorePlugins = append(d.ScorePlugins, sp.Name())
	}
	if cap(d.pluginScores) < cap(d.Nodes)*np {
		d.pluginScores = make([]int64, cap(d.Nodes)*np)
	}
	d.pluginScores = d.pluginScores[:len(d.Nodes)*np]
	for _, i := range d.feasible {
		clear(d.pluginScores[i*np : i*np+np])
	}
	for k, sp := range f.Score {
		if state.skipScore != 0 && k < 64 && state.skipScore&(1<<k) != 0 {
			continue // Skip: nothing to score by
		}
		for j, ni := range d.feasibleNodes {
			var st *Status
			if raw[j], st = sp.Score(ctx, state, pod, ni); !st.IsSuccess() {
				d.Err = fmt.Sprintf("running Score plugin %q: %s", sp.Name(), st.Message())
				return
			}
		}
		if ext := sp.ScoreExtensions(); ext != nil {
			if st := ext.NormalizeScore(ctx, state, pod, raw); !st.IsSuccess() {
				d.Err = fmt.Sprintf("running Normalize on Score plugins: %q: %s", sp.Name(), st.Message())
				return
			}
		}
		for j, i := range d.feasible {
			w := sp.Weight * raw[j]
			d.Nodes[i].Score += w
			d.pluginScores[i*np+k] = w
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

// runPreFilter runs the PreFilter plugins in order over every node; the
// first that does not succeed (or Skip) ends the cycle with its status. A
// Skip marks the plugin's Filter to be skipped for this pod.
func (f *Framework) runPreFilter(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo) *Status {
	for _, p := range f.PreFilter {
		st := p.PreFilter(ctx, state, pod, nodes)
		switch {
		case st.IsSkip():
			f.skip(&state.skipFilter, p.Name(), len(f.Filter), func(i int) string { return f.Filter[i].Name() })
		case st.Code() == Error:
			return NewStatus(Error, fmt.Sprintf("running PreFilter plugin %q: %s", p.Name(), st.Message()))
		case !st.IsSuccess():
			return st
		}
	}
	return nil
}

// skip marks in mask the plugin of the name among n (nameAt gives the
// i-th's), the first 64 of a list being all a mask holds.
func (f *Framework) skip(mask *uint64, name string, n int, nameAt func(int) string) {
	for i := 0; i < n && i < 64; i++ {
		if nameAt(i) == name {
			*mask |= 1 << i
		}
	}
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

// nodeStatuses are the filters' rejections by node, what a PostFilter
// plugin is given.
func (d *Decision) nodeStatuses() map[string]*Status {
	m := make(map[string]*Status, len(d.Nodes))
	for _, n := range d.Nodes {
		if !n.Feasible() {
			m[n.Node] = NewStatus(Unschedulable, n.Reasons...).WithPlugin(n.Filter)
		}
	}
	return m
}

// Copy returns a copy of d that shares no memory d's next decision will
// overwrite.
func (d *Decision) Copy() Decision {
	c := Decision{Cycle: d.Cycle, Pod: d.Pod, Nodes: append([]NodeResult(nil), d.Nodes...), Chosen: d.Chosen, Ties: d.Ties,
		PreFilterMsg: d.PreFilterMsg, Err: d.Err, Permit: d.Permit, numNodes: d.numNodes,
		ScorePlugins: slices.Clone(d.ScorePlugins), pluginScores: slices.Clone(d.pluginScores)}
	return c
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
	if d.Permit != "" {
		b.WriteString(" | permit: " + d.Permit)
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
