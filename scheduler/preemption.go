package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/client/record"
)

// Preemption (the DefaultPreemption PostFilter plugin):
// when a pod fits no node, find the node where deleting pods of lower
// priority makes room, preferring victims whose PodDisruptionBudgets allow
// their disruption, and fewest and least important victims; nominate the
// node in the pod's status.nominatedNodeName; mark each victim with the
// DisruptionTarget condition, delete it gracefully and record
// "Preempted by pod <uid> on node <node>". The pod is scheduled for real
// when the victims are gone (their deletion wakes it).
//
// Left out: the "preemption: ..." tail of the FailedScheduling message,
// preemption of pods nominated to a node but not yet bound, the victims'
// start times as the last tie-break, asynchronous preemption.

// DisruptionTarget's reason and message for a preempted pod.
const (
	PreemptionReason = "PreemptionByScheduler"
	// preemptionMessageFormat takes the scheduler's name.
	preemptionMessageFormat = "%s: preempting to accommodate a higher priority pod"
)

// preemption holds what preemption reads besides the scheduler's cache.
type preemption struct {
	pdbs *cache.Informer[*policyv1.PodDisruptionBudget]
}

func newPreemption(f *cache.Factory, cl *client.Client, logger *slog.Logger) *preemption {
	return &preemption{pdbs: cache.For(f, cl.PodDisruptionBudgets(), metav1.NamespaceAll, client.ListOptions{}, logger)}
}

// PodPriority is spec.priority, 0 when unset.
func PodPriority(p *corev1.Pod) int32 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

// Candidate is a node where preemption makes room, with its victims.
type Candidate struct {
	Node    string
	Victims []*PodInfo
	// Violating counts the victims whose budget does not allow them to go.
	Violating int
}

// addPod and removePod run the PreFilter plugins' PreFilterExtensions
// for existing put on or taken off node in preemption's dry run, so that
// pod's PreFilter state counts it.
func (f *Framework) addPod(pod, existing *PodInfo, node *NodeInfo) {
	for _, p := range f.PreFilter {
		if ext := p.PreFilterExtensions(); ext != nil {
			ext.AddPod(context.Background(), &pod.state, pod, existing, node)
		}
	}
}

func (f *Framework) removePod(pod, existing *PodInfo, node *NodeInfo) {
	for _, p := range f.PreFilter {
		if ext := p.PreFilterExtensions(); ext != nil {
			ext.RemovePod(context.Background(), &pod.state, pod, existing, node)
		}
	}
}

// clone copies n so that pods can be taken off the copy.
func (n *NodeInfo) clone() *NodeInfo {
	c := *n
	c.owners = make(map[string]int32, len(n.owners))
	for k, v := range n.owners {
		c.owners[k] = v
	}
	// RemovePod reorders these in place: the copy needs its own.
	c.Pods = slices.Clone(n.Pods)
	c.PodsWithAffinity = slices.Clone(n.PodsWithAffinity)
	c.PodsWithRequiredAntiAffinity = slices.Clone(n.PodsWithRequiredAntiAffinity)
	return &c
}

func (f *Framework) fits(pod *PodInfo, n *NodeInfo) bool {
	for k, fp := range f.Filter {
		if pod.state.skipFilter != 0 && k < 64 && pod.state.skipFilter&(1<<k) != 0 {
			continue
		}
		if !fp.Filter(context.Background(), &pod.state, pod, n).IsSuccess() {
			return false
		}
	}
	return true
}

// The bounds of how many candidate nodes preemption looks for: the
// defaults of DefaultPreemptionArgs (minCandidateNodesPercentage,
// minCandidateNodesAbsolute).
const (
	MinCandidateNodesPercentage = 10
	MinCandidateNodesAbsolute   = 100
)

// NumCandidates is how many candidate nodes preemption's dry run looks for
// among numNodes before it stops (DefaultPreemption's
// calculateNumCandidates): MinCandidateNodesPercentage of the nodes, at
// least MinCandidateNodesAbsolute, at most all of them. Like filtering,
// preemption does not look at every node of a large cluster.
func NumCandidates(numNodes int) int {
	return numCandidates(numNodes, MinCandidateNodesPercentage, MinCandidateNodesAbsolute)
}

func numCandidates(numNodes, percentage, absolute int) int {
	return min(max(numNodes*percentage/100, absolute), numNodes)
}

// NumCandidates is the package's NumCandidates with the profile's
// DefaultPreemptionArgs, when it has them.
func (f *Framework) NumCandidates(numNodes int) int {
	a := f.PreemptionArgs
	if a == nil || a.MinCandidateNodesPercentage == nil || a.MinCandidateNodesAbsolute == nil {
		return NumCandidates(numNodes)
	}
	return numCandidates(numNodes, int(*a.MinCandidateNodesPercentage), int(*a.MinCandidateNodesAbsolute))
}

// SelectCandidate is the pure half of preemption: over nodes (in name
// order) and the pods on each, the best node to preempt on, or false when
// none helps. The dry run starts at nodes[offset] and goes round, and stops
// once it has NumCandidates candidates of which at least one violates no
// budget (DryRunPreemption, whose offset is random: GetOffsetAndNumCandidates);
// in a cluster of up to MinCandidateNodesAbsolute nodes it tries them all.
func (f *Framework) SelectCandidate(pod *PodInfo, nodes []*NodeInfo, offset int, podsOn map[string][]*PodInfo, pdbs []*policyv1.PodDisruptionBudget) (Candidate, bool) {
	return pickCandidate(f.dryRunPreemption(pod, nodes, offset, podsOn, pdbs))
}

// dryRunPreemption is SelectCandidate's first half (DryRunPreemption):
// the candidates found, in the order of the dry run.
func (f *Framework) dryRunPreemption(pod *PodInfo, nodes []*NodeInfo, offset int, podsOn map[string][]*PodInfo, pdbs []*policyv1.PodDisruptionBudget) []Candidate {
	if len(nodes) == 0 {
		return nil
	}
	defer pod.state.endSchedulingCycle()
	pod.state.allNodes = nodes
	if !f.runPreFilter(context.Background(), &pod.state, pod, nodes).IsSuccess() {
		return nil // no node could fit, whatever is removed
	}
	var cands []Candidate
	numCandidates, nonViolating := f.NumCandidates(len(nodes)), 0
	for i := range nodes {
		n := nodes[(offset+i)%len(nodes)]
		c, ok := f.selectVictimsOnNode(pod, n, podsOn[n.Node.Name], pdbs)
		if !ok {
			continue
		}
		cands = append(cands, c)
		if c.Violating == 0 {
			nonViolating++
		}
		if nonViolating > 0 && len(cands) >= numCandidates {
			break
		}
	}
	return cands
}

// pickCandidate is SelectCandidate's second half
// (pickOneNodeForPreemption) over candidates whose victims are in order
// of priority, the highest first.
func pickCandidate(cands []Candidate) (Candidate, bool) {
	if len(cands) == 0 {
		return Candidate{}, false
	}
	// pickOneNodeForPreemption: fewest budget violations, then the lowest
	// highest victim priority, the lowest sum, the fewest victims; the
	// stable sort keeps the order of the dry run last (name order from
	// the offset).
	highest := func(c Candidate) int32 { return PodPriority(c.Victims[0].Pod) }
	sum := func(c Candidate) int64 {
		var s int64
		for _, v := range c.Victims {
			s += int64(PodPriority(v.Pod)) + 1<<31 // as the real sum, shifted to stay positive
		}
		return s
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		switch {
		case a.Violating != b.Violating:
			return a.Violating < b.Violating
		case highest(a) != highest(b):
			return highest(a) < highest(b)
		case sum(a) != sum(b):
			return sum(a) < sum(b)
		default:
			return len(a.Victims) < len(b.Victims)
		}
	})
	return cands[0], true
}

// selectVictimsOnNode takes every lower-priority pod off the node; if the
// pod then fits, it puts back as many as still leave room, the most
// important first and those a budget protects before the others.
func (f *Framework) selectVictimsOnNode(preemptor *PodInfo, ni *NodeInfo, pods []*PodInfo, pdbs []*policyv1.PodDisruptionBudget) (Candidate, bool) {
	prio := PodPriority(preemptor.Pod)
	n := ni.clone()
	// The dry run changes the PreFilter state of this node's run only.
	pc := *preemptor
	pod := &pc
	pod.state = preemptor.state.cloneFilterState()
	remove := func(p *PodInfo) {
		n.RemovePod(p)
		f.removePod(pod, p, n)
	}
	var lower []*PodInfo
	for _, p := range pods {
		if PodPriority(p.Pod) < prio {
			lower = append(lower, p)
			remove(p)
		}
	}
	if len(lower) == 0 || !f.fits(pod, n) {
		return Candidate{}, false
	}
	sort.SliceStable(lower, func(i, j int) bool {
		if a, b := PodPriority(lower[i].Pod), PodPriority(lower[j].Pod); a != b {
			return a > b
		}
		return lower[i].Key < lower[j].Key
	})
	violating, other := splitByBudget(lower, pdbs)
	c := Candidate{Node: ni.Node.Name}
	reprieve := func(p *PodInfo) bool {
		n.AddPod(p)
		f.addPod(pod, p, n)
		if f.fits(pod, n) {
			return true
		}
		remove(p)
		c.Victims = append(c.Victims, p)
		return false
	}
	for _, p := range violating {
		if !reprieve(p) {
			c.Violating++
		}
	}
	for _, p := range other {
		reprieve(p)
	}
	if len(c.Victims) == 0 {
		return Candidate{}, false
	}
	sort.SliceStable(c.Victims, func(i, j int) bool { return PodPriority(c.Victims[i].Pod) > PodPriority(c.Victims[j].Pod) })
	return c, true
}

// splitByBudget is filterPodsWithPDBViolation: a pod whose eviction would
// take a matching budget's allowed disruptions below zero is violating.
func splitByBudget(pods []*PodInfo, pdbs []*policyv1.PodDisruptionBudget) (violating, other []*PodInfo) {
	allowed := make([]int32, len(pdbs))
	for i, b := range pdbs {
		allowed[i] = b.Status.DisruptionsAllowed
	}
	for _, p := range pods {
		bad := false
		for i, b := range pdbs {
			if b.Namespace != p.Pod.Namespace || b.Spec.Selector == nil {
				continue
			}
			sel, err := api.LabelSelectorAsSelector(b.Spec.Selector)
			if err != nil || !sel.Matches(labels.Set(p.Pod.Labels)) {
				continue
			}
			if _, gone := b.Status.DisruptedPods[p.Pod.Name]; gone {
				continue // already being evicted: counted out
			}
			allowed[i]--
			if allowed[i] < 0 {
				bad = true
			}
		}
		if bad {
			violating = append(violating, p)
		} else {
			other = append(other, p)
		}
	}
	return violating, other
}

// preempt runs preemption for a pod that fits nowhere: it nominates the
// chosen node and deletes the victims. It does nothing for a pod that may
// not preempt (preemptionPolicy Never), or whose earlier victims are
// still terminating on its nominated node.
func (s *Scheduler) preempt(ctx context.Context, prof *profile, pod *corev1.Pod, info *PodInfo) (string, error) {
	if p := pod.Spec.PreemptionPolicy; p != nil && *p == corev1.PreemptNever {
		return "", nil
	}
	s.lock()
	podsOn := map[string][]*PodInfo{}
	for key, st := range s.podStates {
		if key == info.Key {
			continue
		}
		podsOn[st.node] = append(podsOn[st.node], st.info)
	}
	if nominated := pod.Status.NominatedNodeName; nominated != "" {
		for _, p := range podsOn[nominated] {
			if p.Pod.DeletionTimestamp != nil && PodPriority(p.Pod) < PodPriority(pod) {
				s.unlock()
				return "", nil // podEligibleToPreemptOthers: wait for the victims
			}
		}
	}
	for _, pods := range podsOn {
		slices.SortFunc(pods, func(a, b *PodInfo) int {
			switch {
			case a.Key < b.Key:
				return -1
			case a.Key > b.Key:
				return 1
			}
			return 0
		})
	}
	nodes, offset := s.sortedLocked(), 0
	info.SetNodesWithAffinity(s.nodesWithAffinityLocked())
	if prof.Framework.NumCandidates(len(nodes)) < len(nodes) {
		// A random start, so that a large cluster's preemptions do not all
		// look at the same nodes (GetOffsetAndNumCandidates). A cluster
		// whose every node is tried draws nothing: its order is by name.
		offset = s.rand.IntN(len(nodes))
	}
	cands := prof.Framework.dryRunPreemption(info, nodes, offset, podsOn, s.preemption.pdbs.List())
	s.unlock()
	if exts := s.preemptingExtenders(pod); len(exts) > 0 && len(cands) > 0 {
		var err error
		if cands, err = s.callPreemptionExtenders(ctx, pod, exts, cands, podsOn); err != nil {
			// A PostFilter error: logged, and the pod stays unschedulable
			// until an event or the safety net wakes it.
			s.logger.Error("Status after running PostFilter plugins for pod", "pod", info.Key, "err", err)
			return "", nil
		}
	}
	cand, ok := pickCandidate(cands)
	if !ok {
		return "", nil
	}
	if pod.Status.NominatedNodeName != cand.Node {
		// A patch: the status was just written (PodScheduled) and the
		// cached pod is older than that.
		patch, _ := json.Marshal(map[string]any{"status": map[string]any{"nominatedNodeName": cand.Node}})
		if _, err := s.client.Pods().Patch(ctx, pod.Namespace, pod.Name, "application/merge-patch+json", patch, "status"); err != nil {
			if api.IsNotFound(err) {
				return "", nil
			}
			return "", fmt.Errorf("nominating node %s for pod %s: %w", cand.Node, info.Key, err)
		}
	}
	for _, v := range cand.Victims {
		if err := s.preemptVictim(ctx, prof, pod, v.Pod, cand.Node); err != nil {
			return "", err
		}
	}
	return cand.Node, nil
}

// preemptVictim marks the victim DisruptionTarget, deletes it with its
// grace period and records the event.
func (s *Scheduler) preemptVictim(ctx context.Context, prof *profile, preemptor, victim *corev1.Pod, node string) error {
	cond := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: PreemptionReason,
		Message: fmt.Sprintf(preemptionMessageFormat, prof.SchedulerName)}
	if marked, changed := withPodCondition(victim, cond, s.clock.Now()); changed {
		// A strategic merge patch of the one condition, merged by type,
		// whatever the kubelet wrote since the cache saw the pod.
		var c corev1.PodCondition
		for _, mc := range marked.Status.Conditions {
			if mc.Type == corev1.DisruptionTarget {
				c = mc
			}
		}
		patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.PodCondition{c}}})
		if _, err := s.client.Pods().Patch(ctx, victim.Namespace, victim.Name, "application/strategic-merge-patch+json", patch, "status"); err != nil && !api.IsNotFound(err) {
			return fmt.Errorf("marking victim %s/%s: %w", victim.Namespace, victim.Name, err)
		}
	}
	if err := s.client.Pods().Delete(ctx, victim.Namespace, victim.Name, nil); err != nil && !api.IsNotFound(err) {
		return fmt.Errorf("preempting %s/%s: %w", victim.Namespace, victim.Name, err)
	}
	if err := prof.recorder.Eventf(ctx, record.Ref(victim, podGVK), "Normal", "Preempted",
		"Preempted by pod %v on node %v", preemptor.UID, node); err != nil {
		s.logger.Warn("recording event failed", "pod", victim.Namespace+"/"+victim.Name, "err", err)
	}
	return nil
}
