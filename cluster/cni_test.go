package cluster

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/kubelet/cni/cnitest"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// cniTrace runs a ReplicaSet of two on two nodes whose kubelets call the
// mock CNI plugin, then deletes it, and returns the trace and the pods'
// addresses.
func cniTrace(t *testing.T, binDir string) (string, []string) {
	confDir, dataDir := t.TempDir(), t.TempDir()
	cnitest.WriteMockConf(t, confDir, "10-mock.conflist", dataDir)
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 2,
		CNI: &CNIConfig{ConfDir: confDir, BinDirs: []string{binDir}, RootDir: cnitest.RootDir(t)}})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	cl := c.Client("test")
	_, err = cl.ReplicaSets().Create(bg, rs("web", 2))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	var ips []string
	for _, p := range runningPods(t, cl, "app=web") {
		ips = append(ips, p.Status.PodIP)
	}
	require.NoError(t, cl.ReplicaSets().Delete(bg, "default", "web", nil))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	left, err := cl.Pods().List(bg, "default", client.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	require.Empty(t, left.Items)
	var b strings.Builder
	for _, e := range c.Trace() {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	assert.Len(t, cnitest.Calls(t, dataDir), 4, "an ADD and a DEL for each pod")
	return b.String(), ips
}

// In step mode the kubelets' plugin calls are lines of their steps, the
// same every run.
func TestCNICallsInTheStepTrace(t *testing.T) {
	binDir := cnitest.BuildMock(t)
	a, ips := cniTrace(t, binDir)
	b, _ := cniTrace(t, binDir)
	assert.Equal(t, a, b)
	assert.ElementsMatch(t, []string{"10.22.0.2", "10.22.0.3"}, ips)
	adds := regexp.MustCompile(`(?m)^\s+-> cni ADD mock default/web-\w+$`).FindAllString(a, -1)
	dels := regexp.MustCompile(`(?m)^\s+-> cni DEL mock default/web-\w+$`).FindAllString(a, -1)
	assert.Len(t, adds, 2, a)
	assert.Len(t, dels, 2, a)
	assert.Regexp(t, `kubelet/node-\d\s+default/web-\w+ .*\n(.*\n)*?\s+-> cni ADD mock default/web-`, a)
}
