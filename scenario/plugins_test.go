package scenario

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePluginErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"device plugin on an unknown node", "cluster:\n  nodeCount: 1\n  devicePlugins: [{node: node-2, resource: example.com/gpu, count: 4}]\nsteps: []\n",
			`s.yaml:3: cluster.devicePlugins.node: no node "node-2" in this cluster (nodes: node-1)`},
		{"device plugin on a listed node", "cluster:\n  devicePlugins: [{node: gpu, resource: example.com/gpu, count: 1}]\n  nodes: [{name: gpu}]\nsteps: []\n", ""},
		{"same resource twice on a node", "cluster:\n  nodeCount: 1\n  devicePlugins:\n  - {node: node-1, resource: example.com/gpu, count: 4}\n  - {node: node-1, resource: example.com/gpu, count: 2}\nsteps: []\n",
			"s.yaml:5: cluster.devicePlugins: node-1 has a plugin of example.com/gpu already (line 4): one plugin per resource and node"},
		{"no devices", "cluster:\n  devicePlugins: [{node: node-1, resource: example.com/gpu, count: 0}]\nsteps: []\n",
			"s.yaml:2: cluster.devicePlugins.count: expected 1 to 64 devices, got 0"},
		{"too many devices", "cluster:\n  devicePlugins: [{node: node-1, resource: example.com/gpu, count: 65}]\nsteps: []\n",
			"s.yaml:2: cluster.devicePlugins.count: expected 1 to 64 devices, got 65"},
		{"count not a number", "cluster:\n  devicePlugins: [{node: node-1, resource: example.com/gpu, count: four}]\nsteps: []\n",
			`s.yaml:2: cluster.devicePlugins.count: expected an integer, got "four"`},
		{"count missing", "cluster:\n  devicePlugins: [{node: node-1, resource: example.com/gpu}]\nsteps: []\n",
			"s.yaml:2: cluster.devicePlugins: count is required"},
		{"not an extended resource", "cluster:\n  devicePlugins: [{node: node-1, resource: cpu, count: 1}]\nsteps: []\n",
			`s.yaml:2: cluster.devicePlugins.resource: "cpu" is not an extended resource name`},
		{"unknown device plugin field", "cluster:\n  devicePlugins: [{node: node-1, resource: example.com/gpu, cont: 1}]\nsteps: []\n",
			`s.yaml:2: unknown field "cont" in cluster.devicePlugins (expected one of: node, resource, count, preStartRequired)`},
		{"csi driver on an unknown node", "cluster:\n  nodeCount: 1\n  csiDrivers: [{nodes: [node-1, node-9]}]\nsteps: []\n",
			`s.yaml:3: cluster.csiDrivers.nodes: no node "node-9" in this cluster (nodes: node-1)`},
		{"csi driver twice", "cluster:\n  csiDrivers:\n  - {name: a.example.com}\n  - {name: a.example.com}\nsteps: []\n",
			`s.yaml:4: cluster.csiDrivers: driver "a.example.com" given twice (line 3)`},
		{"bad driver name", "cluster:\n  csiDrivers: [{name: Not_A_Name}]\nsteps: []\n", `s.yaml:2: cluster.csiDrivers.name: "Not_A_Name":`},
		{"cni without a plugin", "cluster:\n  cni: {subnet: 10.22.0.0/16}\nsteps: []\n", "s.yaml:2: cluster.cni: plugin is required"},
		{"bad cni subnet", "cluster:\n  cni: {plugin: ../cni/mock, subnet: nowhere}\nsteps: []\n",
			`s.yaml:2: cluster.cni.subnet: expected an IPv4 range such as 10.22.0.0/16, got "nowhere"`},
		{"health of a plugin not there", "steps:\n- devicePlugin: {node: node-1, resource: example.com/gpu, unhealthy: gpu-0}\n",
			"s.yaml:2: devicePlugin: no device plugin of example.com/gpu on node-1 in cluster.devicePlugins (there: none)"},
		{"health of an unknown device", "cluster:\n  devicePlugins: [{node: node-1, resource: example.com/gpu, count: 2}]\nsteps:\n- devicePlugin: {node: node-1, resource: example.com/gpu, unhealthy: gpu-2}\n",
			`s.yaml:4: devicePlugin: the plugin of example.com/gpu on node-1 has no device "gpu-2" (devices: gpu-0, gpu-1)`},
		{"healthy and unhealthy", "cluster:\n  devicePlugins: [{node: node-1, resource: example.com/gpu, count: 2}]\nsteps:\n- devicePlugin: {node: node-1, resource: example.com/gpu, unhealthy: gpu-1, healthy: gpu-0}\n",
			"s.yaml:4: devicePlugin: give one of unhealthy: DEVICE or healthy: DEVICE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tc.src), nil)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			var perr *Error
			require.ErrorAs(t, err, &perr, "the scenario's error shape: file, line, message")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

const pluginsScenario = `cluster:
  nodeCount: 2
  devicePlugins:
  - {node: node-1, resource: example.com/gpu, count: 2}
  - {node: node-2, resource: example.com/gpu, count: 1}
  csiDrivers: [{nodes: [node-2]}]
steps:
- runUntilStable
- expect:
  - {kind: Node, name: node-1, field: '.status.allocatable.example\.com/gpu', equals: "2"}
  - {kind: Node, name: node-2, field: '.status.allocatable.example\.com/gpu', equals: "1"}
  - {kind: CSINode, name: node-2, field: '.spec.drivers[0].name', equals: example.csi.kubesim.io}
  - {kind: CSINode, name: node-1, exists: false}
- apply:
    manifest:
      apiVersion: v1
      kind: Pod
      metadata: {name: cuda}
      spec:
        nodeName: node-1
        containers: [{name: app, image: nginx, resources: {limits: {example.com/gpu: 1}}}]
- runUntilStable
- devicePlugin: {node: node-1, resource: example.com/gpu, unhealthy: gpu-1}
- runUntilStable
- expect:
  - {kind: Node, name: node-1, field: '.status.capacity.example\.com/gpu', equals: "2"}
  - {kind: Node, name: node-1, field: '.status.allocatable.example\.com/gpu', equals: "1"}
- devicePlugin: {node: node-1, resource: example.com/gpu, healthy: gpu-1}
- runUntilStable
- expect: {kind: Node, name: node-1, field: '.status.allocatable.example\.com/gpu', equals: "2"}
`

// pluginsTrace runs pluginsScenario and returns its trace and the
// directory its plugins lived in.
func pluginsTrace(t *testing.T) (string, string) {
	t.Helper()
	s, err := Parse("t.yaml", []byte(pluginsScenario), nil)
	require.NoError(t, err)
	var out bytes.Buffer
	rep := &Reporter{W: &out, Style: StyleTrace}
	r, err := New(s, rep)
	require.NoError(t, err)
	dir := r.plugins.dir
	for _, d := range []string{"node-1", "node-2"} {
		assert.FileExists(t, filepath.Join(dir, "kubelet", d, "device-plugins", "example.com_gpu.sock"), "the plugin serves on its socket")
	}
	ok, err := r.RunAll(context.Background())
	require.NoError(t, r.Close())
	require.NoError(t, err)
	require.True(t, ok, out.String())
	return out.String(), dir
}

// The sample plugins register with the kubelets over their sockets
// before the first step, so a scenario's trace is the same every run; a
// device's health is a step; the plugins and their sockets go with the
// runner.
func TestScenarioPluginsAreRegisteredBeforeTheFirstStep(t *testing.T) {
	a, dir := pluginsTrace(t)
	b, _ := pluginsTrace(t)
	assert.Equal(t, a, b, "two runs give the same trace")
	assert.Regexp(t, `kubelet/node-1\s+default/cuda .*\n(.*\n)*?\s+-> deviceplugin Allocate example.com/gpu default/cuda/app \[gpu-0\]\n`, a)
	assert.Contains(t, a, "-> csi NodeGetInfo example.csi.kubesim.io")
	assert.Contains(t, a, "kubelet/node-1/heartbeat node-1  (saw device plugin)", "the health change woke the heartbeat")
	_, err := os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "the plugins' directory is gone: %v", err)
}

// A CNI plugin that does not build is the scenario's error, with the
// line of cluster.cni, and nothing is left behind.
func TestScenarioCNIPluginThatDoesNotBuild(t *testing.T) {
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "go.mod"), []byte("module broken\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nfunc main() { nope }\n"), 0o644))
	file := filepath.Join(t.TempDir(), "s.yaml")
	s, err := Parse(file, []byte("cluster:\n  nodeCount: 1\n  cni: {plugin: "+src+"}\nsteps: []\n"), nil)
	require.NoError(t, err)
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "ksc*"))
	_, err = New(s, nil)
	require.Error(t, err)
	var perr *Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, 3, perr.Line)
	assert.Contains(t, err.Error(), "cluster.cni.plugin: building the CNI plugin "+src)
	assert.Contains(t, err.Error(), "undefined: nope")
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "ksc*"))
	assert.ElementsMatch(t, before, after, "no directory left behind")
}
