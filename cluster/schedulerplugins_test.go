package cluster

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/scheduler"
	schedconfig "github.com/kubesim/kubesim/scheduler/config"
	"github.com/kubesim/kubesim/stepper"
)

// onlyNode is an out-of-tree filter plugin: every node but one is refused.
type onlyNode struct{ node string }

func (onlyNode) Name() string { return "OnlyNode" }

func (p onlyNode) Filter(_ context.Context, _ *scheduler.CycleState, _ *scheduler.PodInfo, n *scheduler.NodeInfo) *scheduler.Status {
	if n.Node.Name == p.node {
		return nil
	}
	return scheduler.NewStatus(scheduler.Unschedulable, "node(s) were not "+p.node)
}

// Config.SchedulerPlugins are plugins a configuration may enable beside
// the in-tree ones; a name the in-tree registry has is refused.
func TestSchedulerPlugins(t *testing.T) {
	sc, err := schedconfig.Decode([]byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    filter:
      enabled:
      - name: OnlyNode
`), "test")
	require.NoError(t, err)
	plugins := schedconfig.Registry{"OnlyNode": func(runtime.Object, scheduler.Handle) (scheduler.Plugin, error) {
		return onlyNode{node: "node-2"}, nil
	}}
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 3, SchedulerConfig: sc, SchedulerPlugins: plugins})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	cl := c.Client("test")
	_, err = cl.ReplicaSets().Create(bg, rs("web", 2))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pods := runningPods(t, cl, "app=web")
	require.Len(t, pods, 2)
	for _, p := range pods {
		assert.Equal(t, "node-2", p.Spec.NodeName, p.Name)
	}

	_, err = New(Config{Mode: runmode.Step, SchedulerConfig: sc, SchedulerPlugins: schedconfig.Registry{"NodeName": plugins["OnlyNode"]}})
	assert.EqualError(t, err, "a plugin named NodeName already exists")
}
