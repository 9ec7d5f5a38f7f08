package scheduler

import (
	"errors"
	"maps"
)

// CycleState is what one cycle's plugins found, for the later extension
// points of the same cycle: kube-scheduler's CycleState. The built-in
// plugins keep their PreFilter and PreScore state in typed fields, where
// kube-scheduler keeps a map of keys, so that a cycle of the default
// profile allocates nothing here; a nil field means the plugin has
// nothing to check or score for the pod. Other plugins use Read and Write
// with a StateKey of their own, as they would in kube-scheduler.
//
// The typed fields live as long as Framework.Schedule (they can be big);
// what Write stores lives for the pod's whole attempt, scheduling and
// binding cycle, so that a Reserve, Permit or PreBind reads what its
// PreFilter wrote.
type CycleState struct {
	interPodAffinity *interPodAffinityState
	topologySpread   *topologySpreadState
	affinityScores   affinityScoreState
	spreadScores     *spreadScoreState

	// allNodes are the cycle's nodes, for the built-in PreScores that
	// look beyond the feasible ones (kube-scheduler's snapshot lister).
	allNodes []*NodeInfo
	// skipFilter and skipScore mark, by their index in the framework's
	// Filter and Score lists, the plugins whose PreFilter or PreScore
	// returned Skip in this cycle.
	skipFilter, skipScore uint64

	storage map[StateKey]StateData
}

// StateKey names what a plugin keeps in a CycleState (framework.StateKey).
type StateKey string

// StateData is what a plugin keeps in a CycleState: Clone copies it for
// preemption's dry run, which changes a copy per node.
type StateData interface {
	Clone() StateData
}

// ErrNotFound is Read's error for a key nothing was written under.
var ErrNotFound = errors.New("not found")

// Read returns what was written under key, or ErrNotFound.
func (s *CycleState) Read(key StateKey) (StateData, error) {
	if v, ok := s.storage[key]; ok {
		return v, nil
	}
	return nil, ErrNotFound
}

// Write stores val under key.
func (s *CycleState) Write(key StateKey, val StateData) {
	if s.storage == nil {
		s.storage = map[StateKey]StateData{}
	}
	s.storage[key] = val
}

// Delete removes what was written under key.
func (s *CycleState) Delete(key StateKey) {
	delete(s.storage, key)
}

// endSchedulingCycle drops the built-ins' state at the end of Schedule,
// keeping what plugins wrote for the binding cycle.
func (s *CycleState) endSchedulingCycle() {
	*s = CycleState{storage: s.storage}
}

// cloneFilterState copies the PreFilter half, so that preemption's dry
// run on one node can add and remove pods without touching the state of
// the others (CycleState.Clone).
func (s *CycleState) cloneFilterState() CycleState {
	c := CycleState{interPodAffinity: s.interPodAffinity.clone(), topologySpread: s.topologySpread.clone(),
		allNodes: s.allNodes, skipFilter: s.skipFilter}
	if s.storage != nil {
		c.storage = make(map[StateKey]StateData, len(s.storage))
		for k, v := range maps.All(s.storage) {
			if v != nil {
				v = v.Clone()
			}
			c.storage[k] = v
		}
	}
	return c
}
