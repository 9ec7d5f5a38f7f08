package scheduler

import (
	"context"
	"sync"

	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// The extenders in the scheduling cycle, in kube-scheduler's order
// (schedule_one.go): the filter plugins, then each interested extender's
// filter in turn on the nodes still feasible (findNodesThatPassExtenders),
// then the score plugins and every interested extender's prioritize
// (prioritizeNodes), and at binding the one extender with a bind verb
// instead of the pods/binding POST (extendersBinding).
//
// The calls go over the network and may take up to their httpTimeout, so
// the cycle does not hold the cache lock (mu) over them: the informers'
// events, LastDecision and the bindings' bookkeeping go on meanwhile. The
// cycles themselves are serialized by cycleMu, as kube-scheduler runs one
// scheduling cycle at a time, so that no other cycle assumes a pod on a
// node this one has filtered but not yet scored. The decision under way
// is written into a Decision of its own (work) and swapped into last at
// the end, so LastDecision never sees half a cycle.

// interestedExtenders returns the extenders that pod concerns, in order.
func (s *Scheduler) interestedExtenders(pod *corev1.Pod) []Extender {
	var out []Extender
	for _, e := range s.extenders {
		if e.IsInterested(pod) {
			out = append(out, e)
		}
	}
	return out
}

// scheduleWithExtendersLocked is Framework.Schedule with the extenders
// between the filters and the scores. It is called with mu held and
// returns with mu held, having let it go over the extenders' calls; the
// decision is in s.last. An extender that failed and is not ignorable
// ends the cycle with its error in s.last.Err.
func (s *Scheduler) scheduleWithExtendersLocked(ctx context.Context, prof *profile, pod *corev1.Pod, info *PodInfo, exts []Extender) {
	d := &s.work
	d.Cycle = s.last.Cycle
	defer func() {
		info.state.endSchedulingCycle()
		s.last, s.work = s.work, s.last
	}()
	nodes := s.sortedLocked()
	feasible := prof.Framework.findFeasible(ctx, info, nodes, s.nextStartNodeIndex, true, d)
	if len(nodes) > 0 {
		s.nextStartNodeIndex = (s.nextStartNodeIndex + len(d.Nodes)) % len(nodes)
	}
	if !feasible {
		return
	}
	// What the calls need, read under mu: a node's object is replaced,
	// never changed in place, so the pointers stay valid without it.
	asked := make([]*corev1.Node, len(d.feasibleNodes))
	for k, ni := range d.feasibleNodes {
		asked[k] = ni.Node
	}
	s.unlock()
	err := s.runExtenders(ctx, pod, exts, asked, d)
	s.lock()
	if err != nil {
		d.Err = err.Error()
		return
	}
	// A node deleted while the extenders answered can take no pod.
	k := 0
	for j, i := range d.feasible {
		ni := d.feasibleNodes[j]
		if ni.Node == nil {
			d.Nodes[i].Filter, d.Nodes[i].Reasons = "NodeDeleted", []string{"node(s) were deleted"}
			continue
		}
		d.feasible[k], d.feasibleNodes[k] = i, ni
		k++
	}
	d.feasible, d.feasibleNodes = d.feasible[:k], d.feasibleNodes[:k]
	prof.Framework.prioritize(ctx, info, s.rand, d)
}

// runExtenders asks the extenders about the feasible nodes of d (whose
// objects are asked), without mu: each interested filter in turn on what
// the previous ones let through, then every prioritizer at once. A node
// an extender refuses gets Filter ExtenderName and the extender's reason;
// the survivors' ExtenderScore and Score get the extenders' weighted,
// scaled scores. The error is that of a filter that failed and is not
// ignorable; a failed prioritize is only logged, as in kube-scheduler.
func (s *Scheduler) runExtenders(ctx context.Context, pod *corev1.Pod, exts []Extender, asked []*corev1.Node, d *Decision) error {
	byName := make(map[string]int, len(asked)) // node name -> index into d.feasible
	for k, n := range asked {
		byName[n.Name] = k
	}
	alive := asked
	for _, e := range exts {
		if len(alive) == 0 {
			break
		}
		if !e.IsFilter() {
			continue
		}
		passed, failed, unresolvable, err := e.Filter(ctx, pod, alive)
		if err != nil {
			if e.IsIgnorable() {
				s.logger.Info("Skipping extender as it returned error and has ignorable flag set", "extender", e.Name(), "pod", pod.Namespace+"/"+pod.Name, "err", err)
				continue
			}
			return err
		}
		ok := make(map[string]bool, len(passed))
		for _, name := range passed {
			ok[name] = true
		}
		next := alive[:0:0]
		for _, n := range alive {
			if ok[n.Name] {
				next = append(next, n)
				continue
			}
			r := &d.Nodes[d.feasible[byName[n.Name]]]
			r.Filter, r.Extender, r.Reasons = ExtenderName, e.Name(), nil
			// FailedAndUnresolvableNodes takes precedence over
			// FailedNodes; a node refused in neither has no reason.
			if msg, found := unresolvable[n.Name]; found {
				r.Reasons = []string{msg}
			} else if msg, found := failed[n.Name]; found {
				r.Reasons = []string{msg}
			}
		}
		alive = next
	}
	// The feasible nodes are now those alive, in the same order.
	k := 0
	for j, i := range d.feasible {
		if d.Nodes[i].Filter == "" {
			d.feasible[k], d.feasibleNodes[k] = i, d.feasibleNodes[j]
			k++
		}
	}
	d.feasible, d.feasibleNodes = d.feasible[:k], d.feasibleNodes[:k]
	if len(alive) < 2 {
		// One node left (or none): it is the choice, nothing to score
		// (kube-scheduler's schedulePod skips prioritizing then).
		return nil
	}
	s.prioritizeWithExtenders(ctx, pod, exts, alive, d)
	return nil
}

// prioritizeWithExtenders calls every interested prioritizer at once
// (kube-scheduler calls them in goroutines too) and adds each node's
// score × weight × MaxNodeScore/MaxExtenderPriority to its result.
// Hosts not asked about are ignored.
func (s *Scheduler) prioritizeWithExtenders(ctx context.Context, pod *corev1.Pod, exts []Extender, nodes []*corev1.Node, d *Decision) {
	scores := make(map[string]int64, len(nodes))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, e := range exts {
		if !e.IsPrioritizer() {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			list, weight, err := e.Prioritize(ctx, pod, nodes)
			if err != nil {
				// Prioritization errors are ignored, ignorable or not: the
				// plugins and the other extenders decide.
				s.logger.Info("Failed to run extender's priority function. No score given by this extender.", "extender", e.Name(), "pod", pod.Namespace+"/"+pod.Name, "err", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, hp := range list {
				scores[hp.Host] += hp.Score * weight * (MaxNodeScore / extenderv1.MaxExtenderPriority)
			}
		}()
	}
	wg.Wait()
	for _, i := range d.feasible {
		if sc, found := scores[d.Nodes[i].Node]; found {
			d.Nodes[i].ExtenderScore = sc
			d.Nodes[i].Score = sc
		}
	}
}

// extendersBinding lets the first interested extender with a bind verb
// bind the pod (kube-scheduler's extendersBinding): bound is false when
// none did, and the scheduler binds as usual. An ignorable binder that
// fails is skipped.
func (s *Scheduler) extendersBinding(ctx context.Context, pod *corev1.Pod, node string) (bound bool, err error) {
	for _, e := range s.extenders {
		if !e.IsBinder() || !e.IsInterested(pod) {
			continue
		}
		err := e.Bind(ctx, bindingFor(pod, node))
		if err != nil && e.IsIgnorable() {
			s.logger.Info("Skipping extender in bind as it returned error and has ignorable flag set", "extender", e.Name(), "pod", pod.Namespace+"/"+pod.Name, "err", err)
			continue
		}
		return true, err
	}
	return false, nil
}

// preemptingExtenders returns the interested extenders with a preempt
// verb, in order.
func (s *Scheduler) preemptingExtenders(pod *corev1.Pod) []Extender {
	var out []Extender
	for _, e := range s.extenders {
		if e.SupportsPreemption() && e.IsInterested(pod) {
			out = append(out, e)
		}
	}
	return out
}

// callPreemptionExtenders is kube-scheduler's callExtenders: each
// preempting extender in turn gets the candidates that are left with
// their victims and answers with the nodes and victims it agrees to; an
// ignorable one that fails, or names no victim on a node, is skipped
// (that node only, for the latter). The victims it names are looked up
// by UID among the pods on the node (podsOn). Called without mu.
func (s *Scheduler) callPreemptionExtenders(ctx context.Context, pod *corev1.Pod, exts []Extender, cands []Candidate, podsOn map[string][]*PodInfo) ([]Candidate, error) {
	victims := make(map[string]*extenderv1.Victims, len(cands))
	for _, c := range cands {
		v := &extenderv1.Victims{NumPDBViolations: int64(c.Violating)}
		for _, p := range c.Victims {
			v.Pods = append(v.Pods, p.Pod)
		}
		victims[c.Node] = v
	}
	byUID := func(node, uid string) *PodInfo {
		for _, p := range podsOn[node] {
			if string(p.Pod.UID) == uid {
				return p
			}
		}
		return nil
	}
	for _, e := range exts {
		answer, err := e.ProcessPreemption(ctx, pod, victims)
		next := map[string]*extenderv1.Victims{}
		for node, mv := range answer {
			if err != nil {
				break
			}
			if _, known := podsOn[node]; !known {
				err = fmt.Errorf("nodeinfo not found for node name %q", node)
				break
			}
			if mv == nil || len(mv.Pods) == 0 {
				if e.IsIgnorable() {
					continue
				}
				err = fmt.Errorf("expected at least one victim pod on node %q", node)
				break
			}
			v := &extenderv1.Victims{NumPDBViolations: mv.NumPDBViolations}
			for _, mp := range mv.Pods {
				p := byUID(node, mp.UID)
				if p == nil {
					err = fmt.Errorf("extender: %v claims to preempt pod (UID: %v) on node: %v, but the pod is not found on that node", e.Name(), mp, node)
					break
				}
				v.Pods = append(v.Pods, p.Pod)
			}
			next[node] = v
		}
		if err != nil {
			if e.IsIgnorable() {
				s.logger.Info("Skipping extender as it returned error and has ignorable flag set", "extender", e.Name(), "pod", pod.Namespace+"/"+pod.Name, "err", err)
				continue
			}
			return nil, err
		}
		victims = next
		if len(victims) == 0 {
			break
		}
	}
	out := make([]Candidate, 0, len(victims))
	for _, c := range cands { // the dry run's order, for pickCandidate's last tie-break
		v, ok := victims[c.Node]
		if !ok {
			continue
		}
		nc := Candidate{Node: c.Node, Violating: int(v.NumPDBViolations)}
		for _, p := range v.Pods {
			nc.Victims = append(nc.Victims, byUID(c.Node, string(p.UID)))
		}
		sort.SliceStable(nc.Victims, func(i, j int) bool { return PodPriority(nc.Victims[i].Pod) > PodPriority(nc.Victims[j].Pod) })
		out = append(out, nc)
	}
	return out, nil
}
