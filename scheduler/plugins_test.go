package scheduler

import (
	"context"
)

// testPlugin is a plugin made of functions, for tests: a Filter, a
// Score, or both.
type testPlugin struct {
	name   string
	filter func(*PodInfo, *NodeInfo) *Status
	score  func(*PodInfo, *NodeInfo) int64
}

func (p *testPlugin) Name() string { return p.name }

func (p *testPlugin) Filter(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) *Status {
	return p.filter(pod, node)
}

func (p *testPlugin) Score(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) (int64, *Status) {
	return p.score(pod, node), nil
}

func (p *testPlugin) ScoreExtensions() ScoreExtensions { return nil }
