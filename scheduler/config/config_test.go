package config

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kubesim/kubesim/scheduler"
)

const header = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

// names lists the filters' and the scores' names (with weights) of a
// framework.
func names(fw *scheduler.Framework) (filters []string, scores map[string]int64) {
	scores = map[string]int64{}
	for _, f := range fw.Filter {
		filters = append(filters, f.Name())
	}
	for _, s := range fw.Score {
		scores[s.Name()] = s.Weight
	}
	return filters, scores
}

func build(t *testing.T, doc string) []scheduler.Profile {
	t.Helper()
	c, err := Decode([]byte(header+doc), "test.yaml")
	require.NoError(t, err)
	ps, err := c.Profiles(NewInTreeRegistry())
	require.NoError(t, err)
	return ps
}

// A configuration without profiles is kube-scheduler's default: one
// default-scheduler profile whose framework is kubesim's default one, with
// every plugin that takes args given its defaulted args.
func TestDefaults(t *testing.T) {
	c, err := Decode([]byte(header), "empty.yaml")
	require.NoError(t, err)
	kc := c.KubeSchedulerConfiguration
	assert.Equal(t, int32(16), *kc.Parallelism)
	assert.Equal(t, int32(0), *kc.PercentageOfNodesToScore)
	assert.Equal(t, int64(1), *kc.PodInitialBackoffSeconds)
	assert.Equal(t, int64(10), *kc.PodMaxBackoffSeconds)
	assert.Equal(t, "leases", kc.LeaderElection.ResourceLock)
	assert.Equal(t, "kube-scheduler", kc.LeaderElection.ResourceName)
	require.Len(t, kc.Profiles, 1)
	assert.Equal(t, "default-scheduler", *kc.Profiles[0].SchedulerName)
	assert.Equal(t, DefaultPlugins().MultiPoint, kc.Profiles[0].Plugins.MultiPoint)
	var argNames []string
	for _, pc := range kc.Profiles[0].PluginConfig {
		argNames = append(argNames, pc.Name)
	}
	assert.Equal(t, []string{"DefaultPreemption", "DynamicResources", "InterPodAffinity", "NodeAffinity",
		"NodeResourcesBalancedAllocation", "NodeResourcesFit", "PodTopologySpread", "VolumeBinding"}, argNames)
	fit := kc.Profiles[0].PluginConfig[5].Args.Object.(*configv1.NodeResourcesFitArgs)
	assert.Equal(t, configv1.LeastAllocated, fit.ScoringStrategy.Type)
	assert.Equal(t, []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}, fit.ScoringStrategy.Resources)
	assert.Equal(t, configv1.SystemDefaulting, kc.Profiles[0].PluginConfig[6].Args.Object.(*configv1.PodTopologySpreadArgs).DefaultingType)
	assert.Equal(t, int32(1), *kc.Profiles[0].PluginConfig[2].Args.Object.(*configv1.InterPodAffinityArgs).HardPodAffinityWeight)

	ps, err := c.Profiles(NewInTreeRegistry())
	require.NoError(t, err)
	require.Len(t, ps, 1)
	p := ps[0]
	assert.Equal(t, "default-scheduler", p.SchedulerName)
	assert.True(t, p.Framework.Has("DefaultPreemption"))
	assert.True(t, p.Framework.Has("VolumeBinding"))
	gotF, gotS := names(p.Framework)
	wantF, wantS := names(scheduler.DefaultFramework())
	assert.Equal(t, wantF, gotF)
	assert.Equal(t, wantS, gotS)
	assert.Equal(t, Default().KubeSchedulerConfiguration, kc, "Default is the empty file's")
}

// Each profile's plugins merge into the default set as kube-scheduler
// merges them.
func TestProfilePlugins(t *testing.T) {
	for _, tc := range []struct {
		name        string
		doc         string
		filters     []string
		scores      map[string]int64
		preemption  bool
		volumes     bool
		percentage  int32
		profileName string
	}{{
		name: "a score weight changed in place",
		doc: `profiles:
- plugins:
    score:
      enabled:
      - name: NodeResourcesFit
        weight: 5
`,
		filters:    []string{"NodeUnschedulable", "NodeName", "NodeReady", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread", "InterPodAffinity"},
		scores:     map[string]int64{"NodeResourcesFit": 5, "PodTopologySpread": 2, "InterPodAffinity": 2},
		preemption: true, volumes: true, profileName: "default-scheduler",
	}, {
		name: "one plugin disabled everywhere (multiPoint), weight 0 is 1",
		doc: `profiles:
- schedulerName: no-spread
  plugins:
    multiPoint:
      enabled:
      - name: InterPodAffinity
        weight: 0
      disabled:
      - name: PodTopologySpread
      - name: InterPodAffinity
`,
		filters:    []string{"NodeUnschedulable", "NodeName", "NodeReady", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeBinding", "InterPodAffinity"},
		scores:     map[string]int64{"NodeResourcesFit": 1, "InterPodAffinity": 1},
		preemption: true, volumes: true, profileName: "no-spread",
	}, {
		name: "every score off, preemption off, a percentage",
		doc: `profiles:
- percentageOfNodesToScore: 30
  plugins:
    score:
      disabled:
      - name: "*"
    postFilter:
      disabled:
      - name: DefaultPreemption
`,
		filters: []string{"NodeUnschedulable", "NodeName", "NodeReady", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread", "InterPodAffinity"},
		scores:  map[string]int64{},
		volumes: true, percentage: 30, profileName: "default-scheduler",
	}, {
		name: "filters replaced: only NodeName and NodePorts, then a plugin kubesim does not simulate",
		doc: `percentageOfNodesToScore: 50
profiles:
- plugins:
    filter:
      disabled:
      - name: "*"
      enabled:
      - name: NodeName
      - name: NodePorts
      - name: VolumeZone
`,
		filters:    []string{"NodeName", "NodePorts"},
		scores:     map[string]int64{"NodeResourcesFit": 1, "PodTopologySpread": 2, "InterPodAffinity": 2},
		preemption: true, percentage: 50, profileName: "default-scheduler",
	}, {
		name: "a profile listing the default plugins loads",
		doc: `profiles:
- plugins:
    multiPoint:
      enabled:
      - name: TaintToleration
        weight: 3
      - name: NodeAffinity
        weight: 2
      - name: ImageLocality
        weight: 1
      - name: NodeResourcesBalancedAllocation
        weight: 1
`,
		filters:    []string{"NodeUnschedulable", "NodeName", "NodeReady", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread", "InterPodAffinity"},
		scores:     map[string]int64{"NodeResourcesFit": 1, "PodTopologySpread": 2, "InterPodAffinity": 2},
		preemption: true, volumes: true, profileName: "default-scheduler",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ps := build(t, tc.doc)
			require.Len(t, ps, 1)
			f, s := names(ps[0].Framework)
			assert.Equal(t, tc.filters, f)
			assert.Equal(t, tc.scores, s)
			assert.Equal(t, tc.preemption, ps[0].Framework.Has("DefaultPreemption"))
			assert.Equal(t, tc.volumes, ps[0].Framework.Has("VolumeBinding"))
			assert.Equal(t, tc.percentage, ps[0].Framework.PercentageOfNodesToScore)
			assert.Equal(t, tc.profileName, ps[0].SchedulerName)
		})
	}
}

// VolumeBindingArgs' bindTimeoutSeconds bounds the profile's wait for
// claims: 600 s by default, 0 no waiting.
func TestBindTimeout(t *testing.T) {
	for _, tc := range []struct {
		args string
		want time.Duration
	}{
		{"", 600 * time.Second},
		{"\n  pluginConfig:\n  - name: VolumeBinding\n    args: {bindTimeoutSeconds: 30}", 30 * time.Second},
		{"\n  pluginConfig:\n  - name: VolumeBinding\n    args: {bindTimeoutSeconds: 0}", time.Nanosecond},
	} {
		ps := build(t, "profiles:\n- schedulerName: a"+tc.args+"\n")
		assert.Equal(t, tc.want, ps[0].BindTimeout, tc.args)
	}
}

// DefaultPreemptionArgs reach the profile's framework.
func TestPreemptionArgs(t *testing.T) {
	ps := build(t, "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args: {minCandidateNodesPercentage: 50, minCandidateNodesAbsolute: 10}\n")
	assert.Equal(t, 500, ps[0].Framework.NumCandidates(1000))
	ps = build(t, "")
	assert.Equal(t, 100, ps[0].Framework.NumCandidates(1000), "the defaults")
}

// Two profiles, as kubernetes.io's "Configure Multiple Schedulers" and
// its multiple-profiles example: one scheduler, two names.
func TestTwoProfiles(t *testing.T) {
	ps := build(t, `profiles:
- schedulerName: default-scheduler
- schedulerName: no-scoring-scheduler
  plugins:
    preScore:
      disabled:
      - name: '*'
    score:
      disabled:
      - name: '*'
`)
	require.Len(t, ps, 2)
	assert.Equal(t, "default-scheduler", ps[0].SchedulerName)
	assert.Len(t, ps[0].Framework.Score, 3)
	assert.Equal(t, "no-scoring-scheduler", ps[1].SchedulerName)
	assert.Empty(t, ps[1].Framework.Score)
	assert.Empty(t, ps[1].Framework.PreScore)
	assert.Len(t, ps[1].Framework.Filter, 10)
}

// Every bad configuration gets kube-scheduler's message, naming the file.
func TestInvalid(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
		noHeader        bool
	}{
		{name: "unknown plugin", doc: "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: Foo\n",
			want: `test.yaml: initializing profiles: creating profile for scheduler name default-scheduler: FilterPlugin "Foo" does not exist`},
		{name: "unknown plugin at multiPoint", doc: "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: Foo\n",
			want: `test.yaml: initializing profiles: creating profile for scheduler name default-scheduler: PreFilterPlugin "Foo" does not exist`},
		{name: "plugin at a point it does not have", doc: "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodeName\n",
			want: `test.yaml: initializing profiles: creating profile for scheduler name default-scheduler: plugin "NodeName" does not extend ScorePlugin plugin`},
		{name: "plugin twice at a point", doc: "profiles:\n- plugins:\n    filter:\n      disabled:\n      - name: '*'\n      enabled:\n      - name: NodeName\n      - name: NodeName\n",
			want: `test.yaml: initializing profiles: creating profile for scheduler name default-scheduler: plugin "NodeName" already registered as "FilterPlugin"`},
		{name: "no bind plugin", doc: "profiles:\n- plugins:\n    bind:\n      disabled:\n      - name: '*'\n",
			want: `test.yaml: initializing profiles: creating profile for scheduler name default-scheduler: at least one bind plugin is needed for profile with scheduler name "default-scheduler"`},
		{name: "duplicate schedulerName", doc: "profiles:\n- schedulerName: a\n- schedulerName: a\n",
			want: `test.yaml: profiles[1].schedulerName: Duplicate value: "a"`},
		{name: "empty schedulerName", doc: "profiles:\n- schedulerName: a\n- plugins: {}\n",
			want: `test.yaml: profiles[1].schedulerName: Required value`},
		{name: "extender without weight", doc: "extenders:\n- urlPrefix: http://127.0.0.1:8888\n  prioritizeVerb: prioritize\n",
			want: `test.yaml: extenders[0].weight: Invalid value: 0: must have a positive weight applied to it`},
		{name: "two binding extenders", doc: "extenders:\n- urlPrefix: http://a\n  bindVerb: bind\n- urlPrefix: http://b\n  bindVerb: bind\n",
			want: `test.yaml: extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind`},
		{name: "percentage out of range", doc: "percentageOfNodesToScore: 101\n",
			want: `test.yaml: percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]`},
		{name: "profile percentage negative", doc: "profiles:\n- percentageOfNodesToScore: -1\n",
			want: `test.yaml: profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]`},
		{name: "pluginConfig twice", doc: "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n  - name: InterPodAffinity\n",
			want: `test.yaml: profiles[0].pluginConfig[1]: Duplicate value: "InterPodAffinity"`},
		{name: "unknown scoring strategy", doc: "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: Foo\n",
			want: `test.yaml: initializing profiles: creating profile for scheduler name default-scheduler: initializing plugin "NodeResourcesFit": scoringStrategy.type: Unsupported value: "Foo": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`},
		{name: "RequestedToCapacityRatio without shape", doc: "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: RequestedToCapacityRatio\n",
			want: `test.yaml: initializing profiles: creating profile for scheduler name default-scheduler: initializing plugin "NodeResourcesFit": scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio`},
		{name: "resource weight out of range", doc: "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: MostAllocated\n        resources:\n        - name: cpu\n          weight: 101\n",
			want: `test.yaml: initializing profiles: creating profile for scheduler name default-scheduler: initializing plugin "NodeResourcesFit": scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]`},
		{name: "System defaulting with constraints", doc: "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: System\n      defaultConstraints:\n      - maxSkew: 1\n        topologyKey: zone\n        whenUnsatisfiable: DoNotSchedule\n",
			want: `test.yaml: profiles[0].pluginConfig[0].args.defaultingType: Invalid value: "System": when .defaultConstraints are not empty`},
		{name: "unknown defaultingType", doc: "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: Sometimes\n",
			want: `test.yaml: profiles[0].pluginConfig[0].args.defaultingType: Unsupported value: "Sometimes": supported values: "System", "List"`},
		{name: "hardPodAffinityWeight out of range", doc: "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardPodAffinityWeight: 101\n",
			want: `test.yaml: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]`},
		{name: "preemption args both zero", doc: "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args: {minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}\n",
			want: `test.yaml: [profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute, profiles[0].pluginConfig[0].args.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]`},
		{name: "plugin removed in v1", doc: "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: EBSLimits\n",
			want: `test.yaml: profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": was invalid in version "kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")`},
		{name: "queue sort differs", doc: "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      disabled:\n      - name: '*'\n",
			want: `test.yaml: profiles[1].plugins.queueSort: Invalid value: {"disabled":[{"name":"*"}]}: must be the same for all profiles`},
		{name: "two errors at once", doc: "percentageOfNodesToScore: 200\nprofiles:\n- schedulerName: a\n- schedulerName: a\n",
			want: `test.yaml: [profiles[1].schedulerName: Duplicate value: "a", percentageOfNodesToScore: Invalid value: 200: not in valid range [0-100]]`},
		{name: "unknown field", doc: "profile:\n- schedulerName: a\n",
			want: `test.yaml: strict decoding error: unknown field "profile"`},
		{name: "unknown args field", doc: "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardWeight: 3\n",
			want: `test.yaml: decoding .profiles[0].pluginConfig[0]: strict decoding error: unknown field "hardWeight"`},
		{name: "wrong apiVersion", noHeader: true, doc: "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
			want: `test.yaml: no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3" (want kind KubeSchedulerConfiguration of kubescheduler.config.k8s.io/v1)`},
		{name: "wrong kind", noHeader: true, doc: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Policy\n",
			want: `test.yaml: no kind "Policy" is registered for version "kubescheduler.config.k8s.io/v1" (want kind KubeSchedulerConfiguration of kubescheduler.config.k8s.io/v1)`},
		{name: "no kind", noHeader: true, doc: "apiVersion: kubescheduler.config.k8s.io/v1\n",
			want: `test.yaml: Object 'Kind' is missing`},
		{name: "does not parse", doc: "profiles:\n- schedulerName: a\n  plugins: [\n",
			want: `test.yaml: yaml: line 5: did not find expected node content`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := header + tc.doc
			if tc.noHeader {
				doc = tc.doc
			}
			c, err := Decode([]byte(doc), "test.yaml")
			if err == nil {
				_, err = c.Profiles(NewInTreeRegistry())
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// What kube-scheduler accepts, kubesim accepts: List defaulting without
// constraints (no default spreading), args for a plugin no point enables
// (never built), a negative weight, JSON.
func TestAcceptedAsKubeSchedulerAcceptsThem(t *testing.T) {
	ps := build(t, `profiles:
- pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
  - name: ImageLocality
    args: {}
  plugins:
    score:
      enabled:
      - name: InterPodAffinity
        weight: -1
`)
	_, s := names(ps[0].Framework)
	assert.Equal(t, int64(-1), s["InterPodAffinity"])

	_, err := Decode([]byte(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","profiles":[{"schedulerName":"json-scheduler"}]}`), "c.json")
	require.NoError(t, err)
}

// Load names the file; extenders are kept as written, for the scheduler's
// extender wiring.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sched.yaml")
	require.NoError(t, os.WriteFile(path, []byte(header+`extenders:
- urlPrefix: http://127.0.0.1:8888/
  filterVerb: filter
  weight: 1
`), 0o600))
	c, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, path, c.Source)
	require.Len(t, c.Extenders, 1)
	assert.Equal(t, "http://127.0.0.1:8888/", c.Extenders[0].URLPrefix)

	_, err = Load(filepath.Join(dir, "missing.yaml"))
	require.ErrorContains(t, err, "missing.yaml")
}

// The registry is a value: a program adds its own plugins, and a name
// cannot be taken twice.
func TestRegistryRegister(t *testing.T) {
	r := NewInTreeRegistry()
	err := r.Register("NodeName", nil)
	require.EqualError(t, err, "a plugin named NodeName already exists")
	require.NoError(t, r.Register("Example", func(runtime.Object, scheduler.Handle) (scheduler.Plugin, error) {
		return refuseAll{}, nil
	}))
	c, err := Decode([]byte(header+"profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: Example\n"), "x.yaml")
	require.NoError(t, err)
	ps, err := c.Profiles(r)
	require.NoError(t, err)
	f, _ := names(ps[0].Framework)
	assert.Equal(t, "Example", f[len(f)-1])
	_, err = c.Profiles(NewInTreeRegistry())
	assert.ErrorContains(t, err, `FilterPlugin "Example" does not exist`, "another registry is untouched")
}

// refuseAll is an out-of-tree filter that refuses every node.
type refuseAll struct{}

func (refuseAll) Name() string { return "Example" }

func (refuseAll) Filter(context.Context, *scheduler.CycleState, *scheduler.PodInfo, *scheduler.NodeInfo) *scheduler.Status {
	return scheduler.NewStatus(scheduler.Unschedulable, "no")
}
