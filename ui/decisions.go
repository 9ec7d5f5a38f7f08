package ui

import (
	"sync"

	"github.com/kubesim/kubesim/scheduler"
)

// Bounds of the scheduler's decisions kept: the last maxDecisionPods pods,
// and no more than maxDecisionRows per-node results in all (a decision
// over 5,000 nodes is 5,000 rows).
const (
	maxDecisionPods = 2048
	maxDecisionRows = 1 << 19
)

// decisionStore keeps the scheduler's latest decision for each pod it
// placed or failed to place (the scheduler itself keeps only its last
// one), so a pod's Scheduling tab answers for every pod, in live mode as
// in step mode. The oldest pods' decisions go first.
type decisionStore struct {
	mu    sync.Mutex
	byPod map[string]decision
	order []string // pods, oldest decision first
	rows  int
}

func newDecisionStore() *decisionStore { return &decisionStore{byPod: map[string]decision{}} }

// put keeps d as its pod's decision, replacing an earlier one.
func (s *decisionStore) put(d decision) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.byPod[d.Pod]; ok {
		s.rows -= len(old.Nodes)
		for i, p := range s.order {
			if p == d.Pod {
				s.order = append(s.order[:i], s.order[i+1:]...)
				break
			}
		}
	}
	s.byPod[d.Pod] = d
	s.order = append(s.order, d.Pod)
	s.rows += len(d.Nodes)
	for len(s.order) > 1 && (len(s.order) > maxDecisionPods || s.rows > maxDecisionRows) {
		s.rows -= len(s.byPod[s.order[0]].Nodes)
		delete(s.byPod, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *decisionStore) get(pod string) (decision, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.byPod[pod]
	return d, ok
}

// observe is the scheduler's observer in live mode.
func (s *decisionStore) observe(d scheduler.Decision) {
	if d.Pod == "" {
		return
	}
	out := toDecision(d)
	out.Live = true
	s.put(out)
}
