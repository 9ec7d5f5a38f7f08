package scheduler

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
)

// InterPodAffinity is kube-scheduler's InterPodAffinity plugin
// (pkg/scheduler/framework/plugins/interpodaffinity): a pod's
// podAffinity and podAntiAffinity say where it may or would like to run
// relative to other pods, by topology domain (the nodes sharing one value
// of the term's topologyKey label: one node for kubernetes.io/hostname,
// a zone for topology.kubernetes.io/zone).
//
// Filter, with counts made once per cycle (PreFilter):
//
//   - every required affinity term must be met in the node's domain: some
//     pod there matches all of the pod's affinity terms; unless no pod
//     anywhere does and the pod matches its own terms (the first pod of a
//     group that wants to be together may go anywhere);
//   - no pod in the node's domain of a required anti-affinity term may
//     match that term;
//   - no pod already running may have a required anti-affinity term that
//     the pod matches, in the node's domain of that term (symmetry: a pod
//     that keeps others away is respected by them).
//
// Score (PreScore): for every topology domain, the sum of the weights of
// the pod's preferred terms that pods there match (negative for
// anti-affinity), plus the weights of the preferred terms of the pods
// there that the pod matches, plus HardPodAffinityWeight for each of
// their required affinity terms it matches; a node scores the sum over
// its domains, normalised by min-max into 0..MaxNodeScore.
const (
	// ErrReasonAffinityRulesNotMatch is the reason for a node that fails
	// the pod's required affinity.
	ErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules"
	// ErrReasonAntiAffinityRulesNotMatch is the reason for a node that
	// fails the pod's required anti-affinity.
	ErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules"
	// ErrReasonExistingAntiAffinityRulesNotMatch is the reason for a node
	// whose pods' required anti-affinity keeps the pod away.
	ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"

	// HardPodAffinityWeight is InterPodAffinityArgs' hardPodAffinityWeight
	// default: how much an existing pod's required affinity term that the
	// pod matches counts in the score.
	HardPodAffinityWeight int64 = 1
)

// AffinityTerm is a parsed corev1.PodAffinityTerm (the framework's
// AffinityTerm): which pods it selects, in which namespaces, and the
// topology key its domains are grouped by.
type AffinityTerm struct {
	// Namespaces are the namespaces named by the term, or the pod's own
	// when the term names none and has no namespaceSelector.
	Namespaces map[string]struct{}
	// Selector is the term's labelSelector (nil selects nothing, as in
	// Kubernetes). matchLabelKeys and mismatchLabelKeys are already in it:
	// the API server merges them into the labelSelector when the pod is
	// created.
	Selector labels.Selector
	// TopologyKey names the node label whose values are the domains.
	TopologyKey string
	// NamespaceSelector selects further namespaces by their labels (nil
	// selects none, {} all). For the pod being scheduled the scheduler
	// unrolls it into Namespaces (ResolveNamespaces).
	NamespaceSelector labels.Selector
}

// WeightedAffinityTerm is a preferred term with its weight (1-100).
type WeightedAffinityTerm struct {
	AffinityTerm
	Weight int32
}

// Matches reports whether pod is selected by the term: in one of its
// namespaces (or in a namespace its namespaceSelector selects, by that
// namespace's labels nsLabels), with labels its selector matches.
func (t *AffinityTerm) Matches(pod *corev1.Pod, nsLabels labels.Set) bool {
	if _, ok := t.Namespaces[pod.Namespace]; ok || t.NamespaceSelector.Matches(nsLabels) {
		return t.Selector.Matches(labels.Set(pod.Labels))
	}
	return false
}

func newAffinityTerm(pod *corev1.Pod, term *corev1.PodAffinityTerm) (AffinityTerm, error) {
	sel, err := api.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil {
		return AffinityTerm{}, err
	}
	nsSel, err := api.LabelSelectorAsSelector(term.NamespaceSelector)
	if err != nil {
		return AffinityTerm{}, err
	}
	ns := map[string]struct{}{}
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		ns[pod.Namespace] = struct{}{}
	}
	for _, n := range term.Namespaces {
		ns[n] = struct{}{}
	}
	return AffinityTerm{Namespaces: ns, Selector: sel, TopologyKey: term.TopologyKey, NamespaceSelector: nsSel}, nil
}

// parseAffinityTerms fills the pod's four lists of terms, or ParseError.
func (p *PodInfo) parseAffinityTerms() {
	a := p.Pod.Spec.Affinity
	if a == nil {
		return
	}
	required := func(terms []corev1.PodAffinityTerm) []AffinityTerm {
		var out []AffinityTerm
		for i := range terms {
			t, err := newAffinityTerm(p.Pod, &terms[i])
			if err != nil {
				p.ParseError = err
				return nil
			}
			out = append(out, t)
		}
		return out
	}
	preferred := func(terms []corev1.WeightedPodAffinityTerm) []WeightedAffinityTerm {
		var out []WeightedAffinityTerm
		for i := range terms {
			t, err := newAffinityTerm(p.Pod, &terms[i].PodAffinityTerm)
			if err != nil {
				p.ParseError = err
				return nil
			}
			out = append(out, WeightedAffinityTerm{AffinityTerm: t, Weight: terms[i].Weight})
		}
		return out
	}
	if pa := a.PodAffinity; pa != nil {
		p.RequiredAffinityTerms = required(pa.RequiredDuringSchedulingIgnoredDuringExecution)
		p.PreferredAffinityTerms = preferred(pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if paa := a.PodAntiAffinity; paa != nil {
		p.RequiredAntiAffinityTerms = required(paa.RequiredDuringSchedulingIgnoredDuringExecution)
		p.PreferredAntiAffinityTerms = preferred(paa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
}

// ResolveNamespaces unrolls the namespaceSelector of the pod's own terms
// into their Namespaces, with selectNamespaces listing the names of the
// namespaces a selector selects, and records the labels of the pod's
// namespace (nsLabels) for matching it against other pods' terms. The
// scheduler calls it for the pod it schedules, from its namespace informer
// (InterPodAffinity's mergeAffinityTermNamespacesIfNotEmpty and
// GetNamespaceLabelsSnapshot): then matching an existing pod against the
// pod's terms needs no look-up of that pod's namespace. A selector that
// selects every namespace ({}) is kept as it is.
func (p *PodInfo) ResolveNamespaces(nsLabels labels.Set, selectNamespaces func(labels.Selector) []string) {
	p.NamespaceLabels = nsLabels
	resolve := func(t *AffinityTerm) {
		if t.NamespaceSelector.Empty() {
			return
		}
		ns := make(map[string]struct{}, len(t.Namespaces))
		for n := range t.Namespaces {
			ns[n] = struct{}{}
		}
		for _, n := range selectNamespaces(t.NamespaceSelector) {
			ns[n] = struct{}{}
		}
		t.Namespaces, t.NamespaceSelector = ns, labels.Nothing()
	}
	// The terms are the pod's own copies (NewPodInfo made them), so they
	// may be changed in place.
	for i := range p.RequiredAffinityTerms {
		resolve(&p.RequiredAffinityTerms[i])
	}
	for i := range p.RequiredAntiAffinityTerms {
		resolve(&p.RequiredAntiAffinityTerms[i])
	}
	for i := range p.PreferredAffinityTerms {
		resolve(&p.PreferredAffinityTerms[i].AffinityTerm)
	}
	for i := range p.PreferredAntiAffinityTerms {
		resolve(&p.PreferredAntiAffinityTerms[i].AffinityTerm)
	}
}

// topologyPair is one topology domain: a label key and its value.
type topologyPair struct {
	key, value string
}

// topologyCounts counts pods per topology domain.
type topologyCounts map[topologyPair]int64

// update adds delta to the count of node's domain for key, if the node has
// the label; a count that drops to zero is deleted, so that an empty map
// means no pod anywhere.
func (m topologyCounts) update(node *corev1.Node, key string, delta int64) {
	v, ok := node.Labels[key]
	if !ok {
		return
	}
	tp := topologyPair{key, v}
	m[tp] += delta
	if m[tp] == 0 {
		delete(m, tp)
	}
}

// updateWithAffinityTerms counts target in its node's domains if it
// matches all of terms (the pod's required affinity terms are met only
// together).
func (m topologyCounts) updateWithAffinityTerms(terms []AffinityTerm, target *corev1.Pod, node *corev1.Node, delta int64) {
	if !podMatchesAllAffinityTerms(terms, target) {
		return
	}
	for i := range terms {
		m.update(node, terms[i].TopologyKey, delta)
	}
}

// updateWithAntiAffinityTerms counts target in its node's domain of each
// anti-affinity term it matches.
func (m topologyCounts) updateWithAntiAffinityTerms(terms []AffinityTerm, target *corev1.Pod, nsLabels labels.Set, node *corev1.Node, delta int64) {
	for i := range terms {
		if terms[i].Matches(target, nsLabels) {
			m.update(node, terms[i].TopologyKey, delta)
		}
	}
}

// podMatchesAllAffinityTerms reports whether pod matches every term (and
// there is at least one). The terms are the scheduled pod's, whose
// namespaceSelector is unrolled, so no namespace labels are needed.
func podMatchesAllAffinityTerms(terms []AffinityTerm, pod *corev1.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(pod, nil) {
			return false
		}
	}
	return true
}

// interPodAffinityState is InterPodAffinity's PreFilter state.
type interPodAffinityState struct {
	// existingAntiAffinityCounts counts, per domain, the required
	// anti-affinity terms of running pods that the pod matches.
	existingAntiAffinityCounts topologyCounts
	// affinityCounts counts, per domain of each of the pod's required
	// affinity terms, the pods that match all of them.
	affinityCounts topologyCounts
	// antiAffinityCounts counts, per domain of each of the pod's required
	// anti-affinity terms, the pods that match the term.
	antiAffinityCounts topologyCounts
}

func (s *interPodAffinityState) clone() *interPodAffinityState {
	if s == nil {
		return nil
	}
	return &interPodAffinityState{
		existingAntiAffinityCounts: cloneCounts(s.existingAntiAffinityCounts),
		affinityCounts:             cloneCounts(s.affinityCounts),
		antiAffinityCounts:         cloneCounts(s.antiAffinityCounts),
	}
}

func cloneCounts(m topologyCounts) topologyCounts {
	c := make(topologyCounts, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// updateWithPod counts (delta 1) or uncounts (-1) existing on node as
// preemption's dry run adds and removes pods (the plugin's AddPod and
// RemovePod PreFilterExtensions).
func (s *interPodAffinityState) updateWithPod(pod, existing *PodInfo, node *corev1.Node, delta int64) {
	s.existingAntiAffinityCounts.updateWithAntiAffinityTerms(existing.RequiredAntiAffinityTerms, pod.Pod, pod.NamespaceLabels, node, delta)
	s.affinityCounts.updateWithAffinityTerms(pod.RequiredAffinityTerms, existing.Pod, node, delta)
	s.antiAffinityCounts.updateWithAntiAffinityTerms(pod.RequiredAntiAffinityTerms, existing.Pod, nil, node, delta)
}

// InterPodAffinityPreFilter counts, over every node, what Filter needs;
// it leaves no state (so Filter passes every node) when neither the pod
// nor any running pod has required terms. A pod whose terms do not parse
// fits no node.
func InterPodAffinityPreFilter(pod *PodInfo, nodes []*NodeInfo) string {
	pod.state.interPodAffinity = nil
	if pod.ParseError != nil {
		return fmt.Sprintf("parsing pod: %v", pod.ParseError)
	}
	var existing topologyCounts
	withAnti := nodes
	if pod.affinityNodesKnown {
		withAnti = pod.nodesWithRequiredAntiAffinity
	}
	for _, ni := range withAnti {
		for _, p := range ni.PodsWithRequiredAntiAffinity {
			if existing == nil {
				existing = topologyCounts{}
			}
			existing.updateWithAntiAffinityTerms(p.RequiredAntiAffinityTerms, pod.Pod, pod.NamespaceLabels, ni.Node, 1)
		}
	}
	if len(pod.RequiredAffinityTerms) == 0 && len(pod.RequiredAntiAffinityTerms) == 0 && len(existing) == 0 {
		return "" // Skip: nothing to filter by
	}
	s := &interPodAffinityState{existingAntiAffinityCounts: existing, affinityCounts: topologyCounts{}, antiAffinityCounts: topologyCounts{}}
	if s.existingAntiAffinityCounts == nil {
		s.existingAntiAffinityCounts = topologyCounts{}
	}
	if len(pod.RequiredAffinityTerms) > 0 || len(pod.RequiredAntiAffinityTerms) > 0 {
		for _, ni := range nodes {
			for _, p := range ni.Pods {
				s.affinityCounts.updateWithAffinityTerms(pod.RequiredAffinityTerms, p.Pod, ni.Node, 1)
				s.antiAffinityCounts.updateWithAntiAffinityTerms(pod.RequiredAntiAffinityTerms, p.Pod, nil, ni.Node, 1)
			}
		}
	}
	pod.state.interPodAffinity = s
	return ""
}

// InterPodAffinityFilter is the plugin's Filter: the pod's required
// affinity, then its required anti-affinity, then the running pods'
// required anti-affinity, each with its own reason.
func InterPodAffinityFilter(pod *PodInfo, node *NodeInfo) []string {
	s := pod.state.interPodAffinity
	if s == nil {
		return nil
	}
	if !satisfyPodAffinity(pod, s, node.Node) {
		return []string{ErrReasonAffinityRulesNotMatch}
	}
	if !satisfyPodAntiAffinity(pod, s, node.Node) {
		return []string{ErrReasonAntiAffinityRulesNotMatch}
	}
	if !satisfyExistingPodsAntiAffinity(s, node.Node) {
		return []string{ErrReasonExistingAntiAffinityRulesNotMatch}
	}
	return nil
}

// satisfyPodAffinity: the node has every term's topology label, and every
// term's domain there holds a pod matching all the terms; or no pod
// anywhere matches them and the pod matches them itself.
func satisfyPodAffinity(pod *PodInfo, s *interPodAffinityState, node *corev1.Node) bool {
	podsExist := true
	for i := range pod.RequiredAffinityTerms {
		key := pod.RequiredAffinityTerms[i].TopologyKey
		v, ok := node.Labels[key]
		if !ok {
			return false // every topology label must be on the node
		}
		if s.affinityCounts[topologyPair{key, v}] <= 0 {
			podsExist = false
		}
	}
	if podsExist {
		return true
	}
	// The first pod of a group with affinity to itself: without this it
	// would wait for itself forever.
	return len(s.affinityCounts) == 0 && podMatchesAllAffinityTerms(pod.RequiredAffinityTerms, pod.Pod)
}

// satisfyPodAntiAffinity: no domain of the node holds a pod matching the
// pod's anti-affinity term of that domain's key.
func satisfyPodAntiAffinity(pod *PodInfo, s *interPodAffinityState, node *corev1.Node) bool {
	if len(s.antiAffinityCounts) == 0 {
		return true
	}
	for i := range pod.RequiredAntiAffinityTerms {
		key := pod.RequiredAntiAffinityTerms[i].TopologyKey
		if v, ok := node.Labels[key]; ok && s.antiAffinityCounts[topologyPair{key, v}] > 0 {
			return false
		}
	}
	return true
}

// satisfyExistingPodsAntiAffinity: no domain of the node holds a running
// pod whose required anti-affinity term (of that domain's key) the pod
// matches.
func satisfyExistingPodsAntiAffinity(s *interPodAffinityState, node *corev1.Node) bool {
	if len(s.existingAntiAffinityCounts) == 0 {
		return true
	}
	for k, v := range node.Labels {
		if s.existingAntiAffinityCounts[topologyPair{k, v}] > 0 {
			return false
		}
	}
	return true
}

// affinityScoreState is InterPodAffinity's PreScore state: the score of
// every topology domain, by key and value.
type affinityScoreState map[string]map[string]int64

func (m affinityScoreState) add(term *AffinityTerm, weight int64, pod *corev1.Pod, nsLabels labels.Set, node *corev1.Node) {
	if !term.Matches(pod, nsLabels) {
		return
	}
	v, ok := node.Labels[term.TopologyKey]
	if !ok {
		return
	}
	if m[term.TopologyKey] == nil {
		m[term.TopologyKey] = map[string]int64{}
	}
	m[term.TopologyKey][v] += weight
}

// processExistingPod adds what existing, on node, means for the pod's
// score in node's domains: the pod's preferred terms that existing
// matches, and existing's terms that the pod matches.
func (m affinityScoreState) processExistingPod(pod, existing *PodInfo, node *corev1.Node, hardPodAffinityWeight int64) {
	if len(node.Labels) == 0 {
		return
	}
	// The pod's own terms have their namespaceSelector unrolled: no
	// namespace labels needed for existing.
	for i := range pod.PreferredAffinityTerms {
		t := &pod.PreferredAffinityTerms[i]
		m.add(&t.AffinityTerm, int64(t.Weight), existing.Pod, nil, node)
	}
	for i := range pod.PreferredAntiAffinityTerms {
		t := &pod.PreferredAntiAffinityTerms[i]
		m.add(&t.AffinityTerm, -int64(t.Weight), existing.Pod, nil, node)
	}
	// existing's terms, matched against the pod in its namespace.
	for i := range existing.RequiredAffinityTerms {
		if hardPodAffinityWeight <= 0 {
			break // InterPodAffinityArgs turned it off
		}
		m.add(&existing.RequiredAffinityTerms[i], hardPodAffinityWeight, pod.Pod, pod.NamespaceLabels, node)
	}
	for i := range existing.PreferredAffinityTerms {
		t := &existing.PreferredAffinityTerms[i]
		m.add(&t.AffinityTerm, int64(t.Weight), pod.Pod, pod.NamespaceLabels, node)
	}
	for i := range existing.PreferredAntiAffinityTerms {
		t := &existing.PreferredAntiAffinityTerms[i]
		m.add(&t.AffinityTerm, -int64(t.Weight), pod.Pod, pod.NamespaceLabels, node)
	}
}

// InterPodAffinityPreScore sums the weights per topology domain over every
// node: over all their pods when the pod has preferred terms, else over
// the pods with terms of their own only. It skips the plugin (every node
// scores 0) when no weight applies.
func InterPodAffinityPreScore(pod *PodInfo, _, all []*NodeInfo) (skip bool) {
	return interPodAffinityPreScore(pod, all, HardPodAffinityWeight)
}

func interPodAffinityPreScore(pod *PodInfo, all []*NodeInfo, hardPodAffinityWeight int64) (skip bool) {
	pod.state.affinityScores = nil
	hasPreferred := len(pod.PreferredAffinityTerms) > 0 || len(pod.PreferredAntiAffinityTerms) > 0
	var m affinityScoreState
	nodes := all
	if !hasPreferred && pod.affinityNodesKnown {
		nodes = pod.nodesWithAffinity
	}
	for _, ni := range nodes {
		pods := ni.PodsWithAffinity
		if hasPreferred {
			pods = ni.Pods
		}
		for _, p := range pods {
			if m == nil {
				m = affinityScoreState{}
			}
			m.processExistingPod(pod, p, ni.Node, hardPodAffinityWeight)
		}
	}
	if len(m) == 0 {
		return true
	}
	pod.state.affinityScores = m
	return false
}

// InterPodAffinityScore is the sum of the scores of the node's domains.
func InterPodAffinityScore(pod *PodInfo, node *NodeInfo) int64 {
	var score int64
	for key, values := range pod.state.affinityScores {
		if v, ok := node.Node.Labels[key]; ok {
			score += values[v]
		}
	}
	return score
}

// NormalizeInterPodAffinity maps the scores linearly from their minimum
// (0) to their maximum (MaxNodeScore); all equal, all 0. Scores may be
// negative (anti-affinity) before.
func NormalizeInterPodAffinity(scores []int64) {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range scores {
		lo, hi = min(lo, s), max(hi, s)
	}
	for i, s := range scores {
		if hi > lo {
			scores[i] = int64(float64(MaxNodeScore) * float64(s-lo) / float64(hi-lo))
		} else {
			scores[i] = 0
		}
	}
}
