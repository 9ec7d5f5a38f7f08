package scenario

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readMap(files map[string]string) ReadFileFunc {
	return func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, errors.New("open " + name + ": no such file or directory")
	}
}

const podYAML = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: nginx
    image: nginx:1.25
`

func TestParseAFullScenario(t *testing.T) {
	src := `name: everything
description: all the steps
cluster:
  seed: 7
  nodes:
  - name: a
    capacity: {cpu: "2", memory: 4Gi}
    labels: {disk: ssd}
    taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
  - name: b
  stages: {containerCreating: 1s, running: 2s, ready: 3s, stop: 4s}
  controllers: "*,-garbagecollector"
  nodeMonitorGracePeriod: 20s
  defaultTolerationSeconds: 60
  nodeLeaseDuration: 1m
steps:
- note: hello
- apply: pod.yaml
- apply:
    manifest: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: a}
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: b}
    fails: {reason: AlreadyExists, message: exists}
- apply:
    manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {n: 1}}
- delete: {kind: Pod, selector: app=web, count: 1, propagationPolicy: Orphan}
- patch: {kind: Pod, name: web, type: json, patch: [{op: replace, path: /spec/x, value: 2}]}
- patch: {kind: Pod, name: web, patch: '{"metadata":{"labels":{"a":"b"}}}'}
- scale: {kind: ReplicaSet, name: web, replicas: 5}
- stopNode: a
- startNode: b
- controllerOff: scheduler
- controllerOn: replicaset
- advance: 1m30s
- runUntilStable
- runUntilStable: {maxSteps: 50, horizon: 10s}
- run: 4
- expect:
  - {kind: Pod, name: web, exists: false}
  - {kind: Pod, name: web, field: '.spec.containers[0].image', equals: 'nginx:1.25'}
  - {kind: Pod, selector: app=web, phase: Running, count: 3}
  - {event: {reason: FailedScheduling, message: "0/2"}, kind: Pod, name: web}
- show: Pod
`
	s, err := Parse("s.yaml", []byte(src), readMap(map[string]string{"pod.yaml": podYAML}))
	require.NoError(t, err)
	assert.Equal(t, "everything", s.Name)
	assert.Equal(t, uint64(7), s.Cluster.Seed)
	require.Len(t, s.Cluster.Nodes, 2)
	assert.Equal(t, "2", func() string { q := s.Cluster.Nodes[0].Capacity["cpu"]; return q.String() }())
	assert.Equal(t, "NoSchedule", string(s.Cluster.Nodes[0].Taints[0].Effect))
	assert.Equal(t, 3*time.Second, s.Cluster.Stages.Ready)
	require.NotNil(t, s.Cluster.DefaultTolerationSeconds)
	assert.Equal(t, int64(60), *s.Cluster.DefaultTolerationSeconds)
	assert.Equal(t, time.Minute, s.Cluster.NodeLeaseDuration)
	require.Len(t, s.Steps, 18)
	ops := make([]Op, len(s.Steps))
	for i, st := range s.Steps {
		ops[i] = st.Op
	}
	assert.Equal(t, []Op{OpNote, OpApply, OpApply, OpApply, OpDelete, OpPatch, OpPatch, OpScale, OpStopNode, OpStartNode,
		OpControllerOff, OpControllerOn, OpAdvance, OpRunUntilStable, OpRunUntilStable, OpRun, OpExpect, OpShow}, ops)
	assert.Equal(t, "web", s.Steps[1].Manifests[0].Object["metadata"].(map[string]any)["name"])
	assert.Equal(t, 1, s.Steps[1].Manifests[0].Line)
	require.Len(t, s.Steps[2].Manifests, 2, "multi-document inline manifest")
	assert.Equal(t, 21, s.Steps[2].Manifests[0].Line, "inline lines count from the file")
	assert.Equal(t, 25, s.Steps[2].Manifests[1].Line)
	assert.Equal(t, &Failure{Reason: "AlreadyExists", Message: "exists"}, s.Steps[2].Fails)
	assert.Equal(t, int64(1), s.Steps[3].Manifests[0].Object["data"].(map[string]any)["n"], "integers are int64")
	assert.Equal(t, `[{"op":"replace","path":"/spec/x","value":2}]`, string(s.Steps[5].Patch))
	assert.Equal(t, "merge", s.Steps[6].PatchType)
	assert.Equal(t, int64(5), s.Steps[7].Replicas)
	assert.Equal(t, 90*time.Second, s.Steps[12].Duration)
	assert.Equal(t, 50, s.Steps[14].Limits.MaxSteps)
	assert.Equal(t, 4, s.Steps[15].N)
	ex := s.Steps[16].Expects
	require.Len(t, ex, 4)
	assert.Equal(t, ExpectExists, ex[0].Kind)
	assert.Equal(t, ExpectField, ex[1].Kind)
	assert.Equal(t, "nginx:1.25", ex[1].Equals)
	assert.Equal(t, ExpectCount, ex[2].Kind)
	assert.Equal(t, ExpectEvent, ex[3].Kind)
	assert.Equal(t, -1, ex[3].Count, "an event check without count wants at least one")
	assert.Equal(t, "show Pod", s.Steps[17].Title())
}

func TestParseErrorsNameTheLine(t *testing.T) {
	files := readMap(map[string]string{"pod.yaml": podYAML, "bad.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n spec: {}\n",
		"noname.yaml": "apiVersion: v1\nkind: Pod\n"})
	for _, tc := range []struct {
		name, src, want string
	}{
		{"empty", "", "s.yaml: empty scenario"},
		{"not yaml", "steps: [", "s.yaml:1: invalid YAML"},
		{"no steps", "name: x\n", "s.yaml:1: the scenario has no steps"},
		{"unknown top field", "nme: x\nsteps: []\n", `s.yaml:1: unknown field "nme" in the scenario (expected one of: name, description, zh, cluster, steps)`},
		{"unknown step", "steps:\n- note: a\n- scael: {}\n", `s.yaml:3: unknown step "scael" (expected one of: note, apply, delete, patch, scale`},
		{"two keys", "steps:\n- apply: pod.yaml\n  fails: {reason: Invalid}\n", "s.yaml:2: a step has exactly one key"},
		{"bare op", "steps:\n- apply\n", `s.yaml:2: step "apply" needs a value`},
		{"bad field", "steps:\n- scale: {kind: ReplicaSet, name: web, replica: 3}\n", `s.yaml:2: unknown field "replica" in scale (expected one of: kind, apiVersion, name, namespace, replicas)`},
		{"not an int", "steps:\n- scale: {kind: ReplicaSet, name: web, replicas: three}\n", `s.yaml:2: scale.replicas: expected an integer, got "three"`},
		{"bad duration", "steps:\n- advance: soon\n", `s.yaml:2: advance: expected a duration such as 30s or 1m30s, got "soon"`},
		{"missing file", "steps:\n- apply: nope.yaml\n", "s.yaml:2: apply: open nope.yaml: no such file or directory"},
		{"bad manifest file", "steps:\n- apply: bad.yaml\n", "bad.yaml:4: invalid YAML: did not find expected key"},
		{"manifest without name", "steps:\n- apply: noname.yaml\n", "noname.yaml:1: a manifest: expected metadata.name (or metadata.generateName) in Pod"},
		{"inline manifest error", "steps:\n- note: x\n- apply:\n    manifest: |\n      apiVersion: v1\n      kind: [\n", "s.yaml:6: invalid YAML"},
		{"manifest not a mapping", "steps:\n- apply:\n    manifest: [1]\n", "s.yaml:3: a manifest: expected an object"},
		{"unknown node", "cluster: {nodeCount: 2}\nsteps:\n- stopNode: node-3\n", `s.yaml:3: stopNode: no node "node-3" in this cluster (nodes: node-1, node-2)`},
		{"unknown controller", "steps:\n- controllerOff: replicasets\n", `s.yaml:2: controllerOff: unknown controller "replicasets"`},
		{"unknown operator", "cluster: {operators: [bar]}\nsteps: []\n", `s.yaml:1: cluster.operators: unknown controller "bar"`},
		{"operator off before it is declared", "steps:\n- controllerOff: foo\n", `s.yaml:2: controllerOff: unknown controller "foo"`},
		{"bad controllers", "cluster: {controllers: '*,-nope'}\nsteps: []\n", "s.yaml:1: cluster.controllers:"},
		{"bad taint", "cluster:\n  nodes:\n  - name: a\n    taints: [{key: k, effect: Sometimes}]\n", `s.yaml:4: taint effect: expected NoSchedule, PreferNoSchedule or NoExecute, got "Sometimes"`},
		{"bad quantity", "cluster:\n  nodes:\n  - name: a\n    capacity: {cpu: lots}\n", `s.yaml:4: capacity.cpu: expected a quantity`},
		{"both node forms", "cluster:\n  nodeCount: 2\n  nodes: [{name: a}]\nsteps: []\n", "s.yaml:3: cluster: give nodeCount or nodes, not both"},
		{"expect nothing", "steps:\n- expect: {kind: Pod}\n", "s.yaml:2: expect: expected one check"},
		{"expect field without equals", "steps:\n- expect: {kind: Pod, name: a, field: .x}\n", "s.yaml:2: expect: a field check needs equals"},
		{"bad json path", "steps:\n- expect: {kind: Pod, name: a, field: spec, equals: 1}\n", "s.yaml:2: expect.field: expected a JSON path starting with a dot"},
		{"count by name", "steps:\n- expect: {kind: Pod, name: a, count: 1}\n", "s.yaml:2: expect: a count selects objects by selector"},
		{"phase on exists", "steps:\n- expect: {kind: Pod, name: a, exists: true, phase: Running}\n", "s.yaml:2: expect.phase: not used by a exists check"},
		{"bad selector", "steps:\n- delete: {kind: Pod, selector: 'a in (b'}\n", "s.yaml:2: delete.selector:"},
		{"delete needs target", "steps:\n- delete: {kind: Pod}\n", "s.yaml:2: delete: expected a name or a selector"},
		{"patch needs target", "steps:\n- patch: {kind: Pod, patch: {a: 1}}\n", "s.yaml:2: patch: expected a name or a selector"},
		{"patch name and selector", "steps:\n- patch: {kind: Pod, name: a, fieldSelector: status.phase=Running, patch: {a: 1}}\n", "s.yaml:2: patch: give a name or a selector, not both"},
		{"bad propagation", "steps:\n- delete: {kind: Pod, name: a, propagationPolicy: Later}\n", `delete.propagationPolicy: expected Orphan, Background or Foreground, got "Later"`},
		{"bad patch json", "steps:\n- patch: {kind: Pod, name: a, patch: '{nope'}\n", "s.yaml:2: patch.patch: expected JSON"},
		{"patch needs target", "steps:\n- patch: {kind: Pod, patch: {a: b}}\n", "s.yaml:2: patch: expected a name or a selector"},
		{"patch name and selector", "steps:\n- patch: {kind: Pod, name: a, selector: app=web, patch: {a: b}}\n", "s.yaml:2: patch: give a name or a selector, not both"},
		{"patch bad selector", "steps:\n- patch: {kind: Pod, selector: 'a in (b', patch: {a: b}}\n", "s.yaml:2: patch.selector:"},
		{"fails without reason", "steps:\n- apply:\n    file: pod.yaml\n    fails: {message: x}\n", "s.yaml:4: apply.fails: expected a reason"},
		{"lease renewed after the grace period", "cluster: {nodeLeaseDuration: 10m}\nsteps: []\n",
			"s.yaml:1: cluster.nodeLeaseDuration: the kubelets would renew their leases every 2m30s, not within nodeMonitorGracePeriod (40s): the nodes would go Unknown; set a longer nodeMonitorGracePeriod"},
		{"lease too short", "cluster: {nodeLeaseDuration: 1s}\nsteps: []\n", "s.yaml:1: cluster.nodeLeaseDuration: expected at least 4s, got 1s"},
		{"one candidate", "cluster: {leaderElection: {candidates: [cm-1]}}\nsteps: []\n",
			"s.yaml:1: cluster.leaderElection.candidates: expected a list of two or more controller manager names"},
		{"same candidate twice", "cluster: {leaderElection: {candidates: [cm-1, cm-1]}}\nsteps: []\n",
			`s.yaml:1: cluster.leaderElection.candidates: "cm-1": names must be unique`},
		{"stop without election", "steps:\n- stopComponent: cm-1\n", `s.yaml:2: stopComponent: no controller manager "cm-1" in this cluster`},
		{"stop unknown candidate", "cluster: {leaderElection: {candidates: [cm-1, cm-2]}}\nsteps:\n- stopComponent: cm-3\n",
			`s.yaml:3: stopComponent: no controller manager "cm-3" in this cluster (cluster.leaderElection.candidates: cm-1, cm-2)`},
		{"run zero", "steps:\n- run: 0\n", "s.yaml:2: run: expected a number of steps from 1 to 100000, got 0"},
		{"scheduler config not a mapping", "cluster:\n  schedulerConfig: x\nsteps: []\n",
			"s.yaml:2: cluster.schedulerConfig: expected a KubeSchedulerConfiguration"},
		{"scheduler config of another version", "cluster:\n  schedulerConfig:\n    apiVersion: kubescheduler.config.k8s.io/v1beta3\n    kind: KubeSchedulerConfiguration\nsteps: []\n",
			`s.yaml:3: cluster.schedulerConfig: no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3"`},
		{"scheduler config with an unknown plugin", "cluster:\n  schedulerConfig:\n    apiVersion: kubescheduler.config.k8s.io/v1\n    kind: KubeSchedulerConfiguration\n    profiles:\n    - plugins: {score: {enabled: [{name: Foo}]}}\nsteps: []\n",
			`s.yaml:3: cluster.schedulerConfig: initializing profiles: creating profile for scheduler name default-scheduler: ScorePlugin "Foo" does not exist`},
		{"scheduler config with duplicate profiles", "cluster:\n  schedulerConfig:\n    apiVersion: kubescheduler.config.k8s.io/v1\n    kind: KubeSchedulerConfiguration\n    profiles: [{schedulerName: a}, {schedulerName: a}]\nsteps: []\n",
			`s.yaml:3: cluster.schedulerConfig: profiles[1].schedulerName: Duplicate value: "a"`},
		{"sample extender without extenders", "cluster:\n  sampleExtender: {refuseAnnotation: a}\nsteps: []\n",
			"s.yaml:2: cluster.sampleExtender: no extender to answer for"},
		{"sample extender with a bad label", "cluster:\n  sampleExtender: {preferLabel: tier}\nsteps: []\n",
			`s.yaml:2: cluster.sampleExtender: prefer-label "tier": want KEY=VALUE`},
		{"sample extender with an unknown field", "cluster:\n  sampleExtender: {preferlabel: a=b}\nsteps: []\n",
			"preferlabel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tc.src), files)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestJSONPath(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{"deployment.kubernetes.io/revision": "2"}},
		"status": map[string]any{
			"replicas":   int64(3),
			"conditions": []any{map[string]any{"type": "Available", "status": "True"}, map[string]any{"type": "Ready", "status": "False"}},
		},
	}
	for _, tc := range []struct {
		path string
		want any
		ok   bool
	}{
		{".status.replicas", int64(3), true},
		{"{.status.replicas}", int64(3), true},
		{".status.conditions[1].type", "Ready", true},
		{`.status.conditions[?(@.type=="Ready")].status`, "False", true},
		{`.status.conditions[?(@.type=='Available')].status`, "True", true},
		{`.status.conditions[?(@.type=="Gone")].status`, nil, false},
		{".status.conditions[5]", nil, false},
		{`.metadata.annotations.deployment\.kubernetes\.io/revision`, "2", true},
		{".spec.replicas", nil, false},
		{".status.replicas.x", nil, false},
	} {
		segs, err := parseJSONPath(tc.path)
		require.NoError(t, err, tc.path)
		v, ok := evalJSONPath(obj, segs)
		assert.Equal(t, tc.ok, ok, tc.path)
		assert.Equal(t, tc.want, v, tc.path)
	}
	for _, bad := range []string{"status", ".a..b", ".a[", ".a[x]", ".a[?(@.b)]", ".a[-1]"} {
		_, err := parseJSONPath(bad)
		assert.Error(t, err, bad)
	}
	assert.True(t, valuesEqual(int64(3), float64(3)))
	assert.True(t, valuesEqual(nil, nil))
	assert.False(t, valuesEqual("3", int64(3)))
	assert.True(t, valuesEqual(map[string]any{"a": int64(1)}, map[string]any{"a": int64(1)}))
}

// FuzzParse feeds arbitrary scenario files to the parser: it must return a
// scenario or an *Error, never panic.
func FuzzParse(f *testing.F) {
	f.Add("steps:\n- apply: pod.yaml\n- runUntilStable\n- expect: {kind: Pod, name: web, exists: true}\n")
	f.Add("cluster: {nodes: [{name: a, capacity: {cpu: '2'}, taints: [{key: k, effect: NoSchedule}]}]}\nsteps: [{stopNode: a}]\n")
	f.Add("steps:\n- apply:\n    manifest: |\n      apiVersion: v1\n      kind: Pod\n      metadata: {name: a}\n      ---\n      x: [\n")
	f.Add("steps:\n- expect: [{event: {reason: X}}, {kind: Pod, selector: a=b, count: 1, phase: Running}]\n")
	f.Add("steps:\n- patch: {kind: Pod, name: a, patch: [1, {a: b}]}\n- advance: 1h\n- run: 3\n")
	f.Add("&a [*a]")
	files := readMap(map[string]string{"pod.yaml": podYAML})
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse("f.yaml", []byte(src), files)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error is not an *Error: %T %v", err, err)
			}
			return
		}
		for _, st := range s.Steps {
			_ = st.Title()
		}
	})
}

// A patch may name its objects by a label selector, as `kubectl annotate
// pods -l app=web ...` does.
func TestParsePatchBySelector(t *testing.T) {
	s, err := Parse("s.yaml", []byte("steps:\n- patch: {kind: Pod, selector: app=web, patch: {metadata: {annotations: {a: b}}}}\n"), readMap(nil))
	require.NoError(t, err)
	assert.Equal(t, ObjectRef{Kind: "Pod", Selector: "app=web"}, s.Steps[0].Target)
	assert.Equal(t, `{"metadata":{"annotations":{"a":"b"}}}`, string(s.Steps[0].Patch))
}

// An expect's count may narrow its selector with a field selector: the
// pods on one node.
func TestParseExpectCountByFieldSelector(t *testing.T) {
	s, err := Parse("s.yaml", []byte("steps:\n- expect: {kind: Pod, selector: app=web, fieldSelector: spec.nodeName=node-1, count: 1}\n"), readMap(nil))
	require.NoError(t, err)
	require.Len(t, s.Steps[0].Expects, 1)
	e := s.Steps[0].Expects[0]
	assert.Equal(t, ObjectRef{Kind: "Pod", Selector: "app=web", FieldSelector: "spec.nodeName=node-1"}, e.Object)
	assert.Equal(t, "1 Pod -l app=web --field-selector spec.nodeName=node-1", e.String())
	_, err = Parse("s.yaml", []byte("steps:\n- expect: {kind: Pod, name: a, fieldSelector: spec.nodeName=node-1, field: .x, equals: 1}\n"), readMap(nil))
	require.EqualError(t, err, "s.yaml:2: expect: give a name or a selector, not both")
}

// Step-mode leader election: the candidates and the durations are read,
// and stopComponent names a candidate.
func TestParseLeaderElection(t *testing.T) {
	src := `cluster:
  leaderElection: {candidates: [cm-1, cm-2], leaseDuration: 20s, renewDeadline: 12s, retryPeriod: 3s}
steps:
- stopComponent: cm-2
`
	s, err := Parse("s.yaml", []byte(src), nil)
	require.NoError(t, err)
	le := s.Cluster.LeaderElection
	require.NotNil(t, le)
	assert.Equal(t, []string{"cm-1", "cm-2"}, le.Candidates)
	assert.Equal(t, []time.Duration{20 * time.Second, 12 * time.Second, 3 * time.Second}, []time.Duration{le.LeaseDuration, le.RenewDeadline, le.RetryPeriod})
	require.Len(t, s.Steps, 1)
	assert.Equal(t, OpStopComponent, s.Steps[0].Op)
	assert.Equal(t, "stopComponent cm-2", s.Steps[0].Title())
}
