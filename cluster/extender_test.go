package cluster

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/runmode"
	schedconfig "github.com/kubesim/kubesim/scheduler/config"
	"github.com/kubesim/kubesim/scheduler/extender/sample"
	"github.com/kubesim/kubesim/stepper"
)

// The sample extender, over HTTP beside a step-mode cluster, steers a
// ReplicaSet's pods: every one lands on the labelled node, none on the
// annotated one, and the scheduler's decision says why node by node.
func TestSchedulerExtenderSteersPods(t *testing.T) {
	x, err := sample.New(sample.Config{PreferLabel: "tier=fast", RefuseAnnotation: "example.com/drain"})
	require.NoError(t, err)
	srv := httptest.NewServer(x.Handler())
	defer srv.Close()
	// The configuration as serve's --scheduler-config reads it.
	sc, err := schedconfig.Decode([]byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: `+srv.URL+`
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 5
`), "test")
	require.NoError(t, err)
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 3, SchedulerConfig: sc})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	cl := c.Client("test")
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	for name, edit := range map[string]func(*corev1.Node){
		"node-2": func(n *corev1.Node) { metav1.SetMetaDataLabel(&n.ObjectMeta, "tier", "fast") },
		"node-3": func(n *corev1.Node) { metav1.SetMetaDataAnnotation(&n.ObjectMeta, "example.com/drain", "") },
	} {
		n, err := cl.Nodes().Get(bg, "", name)
		require.NoError(t, err)
		edit(n)
		_, err = cl.Nodes().Update(bg, n)
		require.NoError(t, err)
	}
	_, err = cl.ReplicaSets().Create(bg, rs("web", 3))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pods := runningPods(t, cl, "app=web")
	require.Len(t, pods, 3)
	for _, p := range pods {
		assert.Equal(t, "node-2", p.Spec.NodeName, p.Name)
	}
	d, ok := c.LastSchedulingDecision()
	require.True(t, ok)
	assert.Contains(t, d.String(), "node-3: extender "+srv.URL+": refused (node(s) had annotation example.com/drain)")
	assert.Contains(t, d.String(), "(extenders 500) (chosen)")
}
