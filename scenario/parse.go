package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/controllers/nodelifecycle"
	"github.com/kubesim/kubesim/operators/catalog"
	schedconfig "github.com/kubesim/kubesim/scheduler/config"
	"github.com/kubesim/kubesim/scheduler/extender/sample"
)

// Error is a problem in a scenario file: the file, the line and what was
// expected there.
type Error struct {
	File string
	Line int
	Msg  string
}

// Error renders "file:line: message", as compilers do, so editors jump to it.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ReadFileFunc reads a file a scenario names (apply: FILE), by its path
// relative to the scenario's directory joined with it.
type ReadFileFunc func(name string) ([]byte, error)

// Load reads and parses a scenario file from disk; files it applies are
// read relative to its directory.
func Load(file string) (*Scenario, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(file)
	return Parse(file, data, func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	})
}

// Parse parses a scenario. file names it in messages; read loads the files
// its apply steps name (nil: applying a file is an error). Every manifest
// is read and decoded here, so that a scenario with a bad step, field or
// manifest fails before anything runs.
func Parse(file string, data []byte, read ReadFileFunc) (*Scenario, error) {
	p := &parser{file: file, read: read}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, p.yamlErr(err, 0)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &Error{File: file, Msg: "empty scenario: expected a mapping with cluster and steps"}
	}
	s, err := p.scenario(doc.Content[0])
	if err != nil {
		return nil, err
	}
	s.File = file
	return s, nil
}

type parser struct {
	file  string
	read  ReadFileFunc
	nodes []string // node names, to check stopNode/startNode
	// operators are the extra controllers, which controllerOff/On may name
	operators []string
	// candidates are the controller managers stopComponent may name
	candidates []string
	// devicePlugins are the plugins a devicePlugin step may name
	devicePlugins []DevicePluginSpec
}

// nodeNames are the names of c's nodes.
func nodeNames(c *ClusterSpec) []string {
	var names []string
	if len(c.Nodes) > 0 {
		for _, nc := range c.Nodes {
			names = append(names, nc.Name)
		}
		return names
	}
	for i := 1; i <= c.NodeCount; i++ {
		names = append(names, fmt.Sprintf("node-%d", i))
	}
	return names
}

func (p *parser) errf(n *yaml.Node, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

var yamlLineRe = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlErr turns a yaml.v3 error into an Error, shifting its line by offset
// (a manifest inside the scenario starts below line 1).
func (p *parser) yamlErr(err error, offset int) error {
	return yamlError(p.file, err, offset)
}

func yamlError(file string, err error, offset int) error {
	msg := err.Error()
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: n + offset, Msg: "invalid YAML: " + m[2]}
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
		if m := regexp.MustCompile(`^line (\d+): (.*)$`).FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			return &Error{File: file, Line: n + offset, Msg: m[2]}
		}
	}
	return &Error{File: file, Line: offset, Msg: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}

// fields checks that n is a mapping whose keys are all allowed and returns
// its values by key.
func (p *parser) fields(n *yaml.Node, what string, allowed ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errf(n, "%s: expected a mapping with %s, got %s", what, strings.Join(allowed, ", "), kindName(n))
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(allowed, k.Value) {
			return nil, p.errf(k, "unknown field %q in %s (expected one of: %s)", k.Value, what, strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, p.errf(k, "field %q given twice in %s", k.Value, what)
		}
		out[k.Value] = v
	}
	return out, nil
}

func (p *parser) str(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", p.errf(n, "%s: expected a string, got %s", what, kindName(n))
	}
	return n.Value, nil
}

func (p *parser) integer(n *yaml.Node, what string) (int64, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, p.errf(n, "%s: expected an integer, got %s", what, kindName(n))
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		return 0, p.errf(n, "%s: expected an integer, got %q", what, n.Value)
	}
	return v, nil
}

func (p *parser) boolean(n *yaml.Node, what string) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, p.errf(n, "%s: expected true or false, got %s", what, kindName(n))
	}
	return n.Value == "true", nil
}

func (p *parser) duration(n *yaml.Node, what string) (time.Duration, error) {
	s, err := p.str(n, what)
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, p.errf(n, "%s: expected a duration such as 30s or 1m30s, got %q", what, s)
	}
	return d, nil
}

func (p *parser) stringMap(n *yaml.Node, what string) (map[string]string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errf(n, "%s: expected a mapping of strings, got %s", what, kindName(n))
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		v, err := p.str(n.Content[i+1], what+"."+n.Content[i].Value)
		if err != nil {
			return nil, err
		}
		out[n.Content[i].Value] = v
	}
	return out, nil
}

func (p *parser) scenario(n *yaml.Node) (*Scenario, error) {
	f, err := p.fields(n, "the scenario", "name", "description", noteZhKey, "cluster", "steps")
	if err != nil {
		return nil, err
	}
	s := &Scenario{}
	if v, ok := f[noteZhKey]; ok {
		// The name and description in Chinese: zh: {name: ..., description: ...}.
		zf, err := p.fields(v, "the scenario's "+noteZhKey, "name", "description")
		if err != nil {
			return nil, err
		}
		if zn, ok := zf["name"]; ok {
			if s.NameZh, err = p.str(zn, noteZhKey+".name"); err != nil {
				return nil, err
			}
		}
		if zd, ok := zf["description"]; ok {
			if s.DescriptionZh, err = p.str(zd, noteZhKey+".description"); err != nil {
				return nil, err
			}
		}
	}
	if v, ok := f["name"]; ok {
		if s.Name, err = p.str(v, "name"); err != nil {
			return nil, err
		}
	}
	if v, ok := f["description"]; ok {
		if s.Description, err = p.str(v, "description"); err != nil {
			return nil, err
		}
	}
	s.Cluster = ClusterSpec{NodeCount: 3, Seed: 1, Controllers: "*"}
	if v, ok := f["cluster"]; ok {
		if err := p.cluster(v, &s.Cluster); err != nil {
			return nil, err
		}
	}
	p.nodes = nodeNames(&s.Cluster)
	steps, ok := f["steps"]
	if !ok {
		return nil, p.errf(n, "the scenario has no steps: expected a list under steps")
	}
	if steps.Kind != yaml.SequenceNode {
		return nil, p.errf(steps, "steps: expected a list of steps, got %s", kindName(steps))
	}
	for _, sn := range steps.Content {
		st, err := p.step(sn)
		if err != nil {
			return nil, err
		}
		s.Steps = append(s.Steps, st)
	}
	return s, nil
}

func (p *parser) cluster(n *yaml.Node, c *ClusterSpec) error {
	f, err := p.fields(n, "cluster", "seed", "nodeCount", "nodes", "stages", "controllers",
		"nodeMonitorGracePeriod", "defaultTolerationSeconds", "nodeLeaseDuration", "operators", "leaderElection",
		"devicePlugins", "csiDrivers", "cni", "schedulerConfig", "sampleExtender")
	if err != nil {
		return err
	}
	if v, ok := f["seed"]; ok {
		seed, err := p.integer(v, "cluster.seed")
		if err != nil {
			return err
		}
		c.Seed = uint64(seed)
	}
	if v, ok := f["nodeCount"]; ok {
		nc, err := p.integer(v, "cluster.nodeCount")
		if err != nil {
			return err
		}
		if nc < 0 || nc > 1000 {
			return p.errf(v, "cluster.nodeCount: expected 0 to 1000, got %d", nc)
		}
		c.NodeCount = int(nc)
	}
	if v, ok := f["nodes"]; ok {
		if _, both := f["nodeCount"]; both {
			return p.errf(v, "cluster: give nodeCount or nodes, not both")
		}
		if v.Kind != yaml.SequenceNode {
			return p.errf(v, "cluster.nodes: expected a list of nodes, got %s", kindName(v))
		}
		seen := map[string]bool{}
		for _, nn := range v.Content {
			nc, err := p.node(nn)
			if err != nil {
				return err
			}
			if seen[nc.Name] {
				return p.errf(nn, "cluster.nodes: node %q given twice", nc.Name)
			}
			seen[nc.Name] = true
			c.Nodes = append(c.Nodes, nc)
		}
	}
	if v, ok := f["stages"]; ok {
		sf, err := p.fields(v, "cluster.stages", "containerCreating", "running", "ready", "stop")
		if err != nil {
			return err
		}
		for key, dst := range map[string]*time.Duration{"containerCreating": &c.Stages.ContainerCreating,
			"running": &c.Stages.Running, "ready": &c.Stages.Ready, "stop": &c.Stages.Stop} {
			if dn, ok := sf[key]; ok {
				if *dst, err = p.duration(dn, "cluster.stages."+key); err != nil {
					return err
				}
			}
		}
	}
	if v, ok := f["controllers"]; ok {
		if c.Controllers, err = p.str(v, "cluster.controllers"); err != nil {
			return err
		}
		if _, err := controllers.ParseEnabled(c.Controllers, cluster.ControllerNames); err != nil {
			return p.errf(v, "cluster.controllers: %v (known: %s)", err, strings.Join(cluster.ControllerNames, ", "))
		}
	}
	if v, ok := f["operators"]; ok {
		if v.Kind != yaml.SequenceNode {
			return p.errf(v, "cluster.operators: expected a list of names (known: %s)", strings.Join(catalog.Names(), ", "))
		}
		known := catalog.Controllers()
		for _, item := range v.Content {
			name, err := p.str(item, "cluster.operators")
			if err != nil {
				return err
			}
			if _, ok := known[name]; !ok {
				return p.errf(item, "cluster.operators: unknown controller %q (known: %s)", name, strings.Join(catalog.Names(), ", "))
			}
			c.Operators = append(c.Operators, name)
			p.operators = append(p.operators, name)
		}
	}
	if v, ok := f["nodeMonitorGracePeriod"]; ok {
		if c.NodeMonitorGracePeriod, err = p.duration(v, "cluster.nodeMonitorGracePeriod"); err != nil {
			return err
		}
	}
	if v, ok := f["defaultTolerationSeconds"]; ok {
		secs, err := p.integer(v, "cluster.defaultTolerationSeconds")
		if err != nil {
			return err
		}
		if secs < 0 {
			return p.errf(v, "cluster.defaultTolerationSeconds: must not be negative, got %d", secs)
		}
		c.DefaultTolerationSeconds = &secs
	}
	if v, ok := f["leaderElection"]; ok {
		if err := p.leaderElection(v, c); err != nil {
			return err
		}
	}
	if v, ok := f["schedulerConfig"]; ok {
		if c.SchedulerConfig, err = p.schedulerConfig(v); err != nil {
			return err
		}
	}
	if v, ok := f["sampleExtender"]; ok {
		if c.SampleExtender, err = p.sampleExtender(v, c); err != nil {
			return err
		}
	}
	if v, ok := f["nodeLeaseDuration"]; ok {
		if c.NodeLeaseDuration, err = p.duration(v, "cluster.nodeLeaseDuration"); err != nil {
			return err
		}
		if c.NodeLeaseDuration < 4*time.Second {
			return p.errf(v, "cluster.nodeLeaseDuration: expected at least 4s, got %s", c.NodeLeaseDuration)
		}
		// The kubelet renews every quarter of the lease; the node lifecycle
		// controller must hear from it within its grace period.
		grace := c.NodeMonitorGracePeriod
		if grace == 0 {
			grace = nodelifecycle.DefaultNodeMonitorGracePeriod
		}
		if renew := c.NodeLeaseDuration / 4; renew >= grace {
			return p.errf(v, "cluster.nodeLeaseDuration: the kubelets would renew their leases every %s, not within nodeMonitorGracePeriod (%s): the nodes would go Unknown; set a longer nodeMonitorGracePeriod", renew, grace)
		}
	}
	return p.plugins(f, c)
}

// sampleExtender reads cluster.sampleExtender, the flags of `kubesim
// extender` ({preferLabel: K=V, refuseAnnotation: K}); it needs a
// schedulerConfig with extenders to answer.
func (p *parser) sampleExtender(n *yaml.Node, c *ClusterSpec) (*sample.Config, error) {
	f, err := p.fields(n, "cluster.sampleExtender", "preferLabel", "refuseAnnotation")
	if err != nil {
		return nil, err
	}
	var cfg sample.Config
	if v, ok := f["preferLabel"]; ok {
		if cfg.PreferLabel, err = p.str(v, "cluster.sampleExtender.preferLabel"); err != nil {
			return nil, err
		}
	}
	if v, ok := f["refuseAnnotation"]; ok {
		if cfg.RefuseAnnotation, err = p.str(v, "cluster.sampleExtender.refuseAnnotation"); err != nil {
			return nil, err
		}
	}
	if _, err := sample.New(cfg); err != nil {
		return nil, p.errf(n, "cluster.sampleExtender: %v", err)
	}
	if c.SchedulerConfig == nil || len(c.SchedulerConfig.Extenders) == 0 {
		return nil, p.errf(n, "cluster.sampleExtender: no extender to answer for: give cluster.schedulerConfig extenders")
	}
	return &cfg, nil
}

// schedulerConfig reads cluster.schedulerConfig, a KubeSchedulerConfiguration
// written inline, as --scheduler-config reads it from a file: decoded,
// defaulted, validated and its profiles built, so that a bad one is the
// scenario's error, at its line.
func (p *parser) schedulerConfig(n *yaml.Node) (*schedconfig.Config, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errf(n, "cluster.schedulerConfig: expected a KubeSchedulerConfiguration (apiVersion: kubescheduler.config.k8s.io/v1)")
	}
	doc, err := yaml.Marshal(n)
	if err != nil {
		return nil, p.errf(n, "cluster.schedulerConfig: %v", err)
	}
	sc, err := schedconfig.Decode(doc, "cluster.schedulerConfig")
	if err == nil {
		_, err = sc.Profiles(schedconfig.NewInTreeRegistry())
	}
	if err != nil {
		return nil, p.errf(n, "%v", err)
	}
	return sc, nil
}

// leaderElection reads cluster.leaderElection: the candidates and
// kube-controller-manager's --leader-elect-* durations.
func (p *parser) leaderElection(n *yaml.Node, c *ClusterSpec) error {
	f, err := p.fields(n, "cluster.leaderElection", "candidates", "leaseDuration", "renewDeadline", "retryPeriod")
	if err != nil {
		return err
	}
	le := &cluster.LeaderElection{}
	v, ok := f["candidates"]
	if !ok || v.Kind != yaml.SequenceNode || len(v.Content) < 2 {
		return p.errf(n, "cluster.leaderElection.candidates: expected a list of two or more controller manager names")
	}
	for _, item := range v.Content {
		id, err := p.str(item, "cluster.leaderElection.candidates")
		if err != nil {
			return err
		}
		if id == "" || strings.Contains(id, "/") || slices.Contains(le.Candidates, id) {
			return p.errf(item, "cluster.leaderElection.candidates: %q: names must be unique, not empty, without /", id)
		}
		le.Candidates = append(le.Candidates, id)
	}
	for key, dst := range map[string]*time.Duration{"leaseDuration": &le.LeaseDuration,
		"renewDeadline": &le.RenewDeadline, "retryPeriod": &le.RetryPeriod} {
		if dn, ok := f[key]; ok {
			if *dst, err = p.duration(dn, "cluster.leaderElection."+key); err != nil {
				return err
			}
		}
	}
	c.LeaderElection, p.candidates = le, le.Candidates
	return nil
}

func (p *parser) node(n *yaml.Node) (cluster.NodeConfig, error) {
	var nc cluster.NodeConfig
	f, err := p.fields(n, "a node", "name", "capacity", "labels", "taints")
	if err != nil {
		return nc, err
	}
	v, ok := f["name"]
	if !ok {
		return nc, p.errf(n, "a node: expected a name")
	}
	if nc.Name, err = p.str(v, "node name"); err != nil {
		return nc, err
	}
	if v, ok := f["capacity"]; ok {
		m, err := p.stringMap(v, "capacity")
		if err != nil {
			return nc, err
		}
		nc.Capacity = corev1.ResourceList{}
		for k, s := range m {
			q, err := resource.ParseQuantity(s)
			if err != nil {
				return nc, p.errf(v, "capacity.%s: expected a quantity such as 4, 500m or 8Gi, got %q", k, s)
			}
			nc.Capacity[corev1.ResourceName(k)] = q
		}
	}
	if v, ok := f["labels"]; ok {
		if nc.Labels, err = p.stringMap(v, "labels"); err != nil {
			return nc, err
		}
	}
	if v, ok := f["taints"]; ok {
		if v.Kind != yaml.SequenceNode {
			return nc, p.errf(v, "taints: expected a list, got %s", kindName(v))
		}
		for _, tn := range v.Content {
			tf, err := p.fields(tn, "a taint", "key", "value", "effect")
			if err != nil {
				return nc, err
			}
			var t corev1.Taint
			if kn, ok := tf["key"]; ok {
				if t.Key, err = p.str(kn, "taint key"); err != nil {
					return nc, err
				}
			}
			if vn, ok := tf["value"]; ok {
				if t.Value, err = p.str(vn, "taint value"); err != nil {
					return nc, err
				}
			}
			en, ok := tf["effect"]
			if !ok || t.Key == "" {
				return nc, p.errf(tn, "a taint: expected key and effect")
			}
			eff, err := p.str(en, "taint effect")
			if err != nil {
				return nc, err
			}
			switch corev1.TaintEffect(eff) {
			case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			default:
				return nc, p.errf(en, "taint effect: expected NoSchedule, PreferNoSchedule or NoExecute, got %q", eff)
			}
			t.Effect = corev1.TaintEffect(eff)
			nc.Taints = append(nc.Taints, t)
		}
	}
	return nc, nil
}

// noteZhKey is the key of a note's Chinese text, beside note: (and of
// the scenario's name and description in Chinese).
const noteZhKey = "zh"

// hasKey reports whether the mapping n has key.
func hasKey(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

// noArgOps may be written as a bare word ("- runUntilStable").
var noArgOps = []Op{OpRunUntilStable}

func opNames() string {
	names := make([]string, len(Ops))
	for i, o := range Ops {
		names[i] = string(o)
	}
	return strings.Join(names, ", ")
}

func (p *parser) step(n *yaml.Node) (*Step, error) {
	var key string
	var val, zh *yaml.Node
	switch {
	case n.Kind == yaml.MappingNode && len(n.Content) > 2 && hasKey(n, string(OpNote)):
		// A note may carry its Chinese text on a sibling key:
		//   - note: The scheduler binds the pod
		//     zh: 调度器绑定 Pod
		f, err := p.fields(n, "a note step", string(OpNote), noteZhKey)
		if err != nil {
			return nil, err
		}
		key, val, zh = string(OpNote), f[string(OpNote)], f[noteZhKey]
	case n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == noteZhKey:
		return nil, p.errf(n, "%s: a Chinese text belongs to a note: write it below the note's text (- note: ... then   %s: ...)", noteZhKey, noteZhKey)
	case n.Kind == yaml.ScalarNode && slices.Contains(noArgOps, Op(n.Value)):
		key, val = n.Value, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line}
	case n.Kind == yaml.ScalarNode && slices.Contains(Ops, Op(n.Value)):
		return nil, p.errf(n, "step %q needs a value (write %s: ...)", n.Value, n.Value)
	case n.Kind == yaml.MappingNode && len(n.Content) == 2:
		key, val = n.Content[0].Value, n.Content[1]
	case n.Kind == yaml.MappingNode && len(n.Content) > 2:
		var keys []string
		for i := 0; i < len(n.Content); i += 2 {
			keys = append(keys, n.Content[i].Value)
		}
		if slices.Contains(keys, noteZhKey) {
			return nil, p.errf(n, "a step has exactly one key, the step's name; found %d: %s (only a note carries a Chinese text, %s)",
				len(keys), strings.Join(keys, ", "), noteZhKey)
		}
		return nil, p.errf(n, "a step has exactly one key, the step's name; found %d: %s (put a step's settings under its name)",
			len(keys), strings.Join(keys, ", "))
	default:
		return nil, p.errf(n, "expected a step (one of: %s), got %s", opNames(), kindName(n))
	}
	s := &Step{Op: Op(key), Line: n.Line}
	var err error
	switch s.Op {
	case OpNote:
		s.Text, err = p.str(val, "note")
		if err == nil && zh != nil {
			s.TextZh, err = p.str(zh, "note's "+noteZhKey)
		}
	case OpApply:
		err = p.apply(val, s)
	case OpDelete:
		err = p.delete(val, s)
	case OpPatch:
		err = p.patch(val, s)
	case OpScale:
		err = p.scale(val, s)
	case OpStopNode, OpStartNode:
		if s.Name, err = p.str(val, key); err == nil && !slices.Contains(p.nodes, s.Name) {
			err = p.errf(val, "%s: no node %q in this cluster (nodes: %s)", key, s.Name, strings.Join(p.nodes, ", "))
		}
	case OpControllerOff, OpControllerOn:
		known := append(append(slices.Clone(cluster.ControllerNames), "scheduler"), p.operators...)
		if s.Name, err = p.str(val, key); err == nil && !slices.Contains(known, s.Name) {
			err = p.errf(val, "%s: unknown controller %q (expected one of: %s)", key, s.Name, strings.Join(known, ", "))
		}
	case OpStopComponent:
		if s.Name, err = p.str(val, key); err == nil && !slices.Contains(p.candidates, s.Name) {
			err = p.errf(val, "%s: no controller manager %q in this cluster (cluster.leaderElection.candidates: %s)",
				key, s.Name, strings.Join(p.candidates, ", "))
		}
	case OpDevicePlugin:
		err = p.devicePluginStep(val, s)
	case OpAdvance:
		s.Duration, err = p.duration(val, "advance")
	case OpRunUntilStable:
		err = p.limits(val, s)
	case OpRun:
		var n64 int64
		if n64, err = p.integer(val, "run"); err == nil && (n64 < 1 || n64 > 100000) {
			err = p.errf(val, "run: expected a number of steps from 1 to 100000, got %d", n64)
		}
		s.N = int(n64)
	case OpExpect:
		err = p.expect(val, s)
	case OpShow:
		err = p.show(val, s)
	default:
		return nil, p.errf(n, "unknown step %q (expected one of: %s)", key, opNames())
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (p *parser) limits(n *yaml.Node, s *Step) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	f, err := p.fields(n, "runUntilStable", "maxSteps", "horizon")
	if err != nil {
		return err
	}
	if v, ok := f["maxSteps"]; ok {
		m, err := p.integer(v, "runUntilStable.maxSteps")
		if err != nil {
			return err
		}
		if m < 1 {
			return p.errf(v, "runUntilStable.maxSteps: expected 1 or more, got %d", m)
		}
		s.Limits.MaxSteps = int(m)
	}
	if v, ok := f["horizon"]; ok {
		if s.Limits.Horizon, err = p.duration(v, "runUntilStable.horizon"); err != nil {
			return err
		}
	}
	return nil
}

// ref reads kind, apiVersion, name, namespace and selector from fields.
func (p *parser) ref(n *yaml.Node, f map[string]*yaml.Node, what string, needName bool) (ObjectRef, error) {
	var r ObjectRef
	var err error
	get := func(key string, dst *string) {
		if err != nil {
			return
		}
		if v, ok := f[key]; ok {
			*dst, err = p.str(v, what+"."+key)
		}
	}
	get("kind", &r.Kind)
	get("apiVersion", &r.APIVersion)
	get("name", &r.Name)
	get("namespace", &r.Namespace)
	get("selector", &r.Selector)
	get("fieldSelector", &r.FieldSelector)
	if err != nil {
		return r, err
	}
	if r.Kind == "" {
		return r, p.errf(n, "%s: expected a kind (Pod, ReplicaSet, Deployment...)", what)
	}
	if needName && r.Name == "" {
		return r, p.errf(n, "%s: expected a name", what)
	}
	if r.Name != "" && (r.Selector != "" || r.FieldSelector != "") {
		return r, p.errf(n, "%s: give a name or a selector, not both", what)
	}
	if r.Selector != "" {
		if _, serr := labels.Parse(r.Selector); serr != nil {
			return r, p.errf(f["selector"], "%s.selector: %v", what, serr)
		}
	}
	return r, nil
}

func (p *parser) apply(n *yaml.Node, s *Step) error {
	if n.Kind == yaml.ScalarNode {
		file, err := p.str(n, "apply")
		if err != nil {
			return err
		}
		return p.applyFile(n, file, s)
	}
	f, err := p.fields(n, "apply", "file", "manifest", "fails")
	if err != nil {
		return err
	}
	fileN, hasFile := f["file"]
	manN, hasMan := f["manifest"]
	switch {
	case hasFile == hasMan:
		return p.errf(n, "apply: expected either file or manifest")
	case hasFile:
		file, err := p.str(fileN, "apply.file")
		if err != nil {
			return err
		}
		if err := p.applyFile(fileN, file, s); err != nil {
			return err
		}
	default:
		s.Source = "inline manifest"
		if s.Manifests, err = p.inlineManifests(manN); err != nil {
			return err
		}
	}
	if v, ok := f["fails"]; ok {
		ff, err := p.fields(v, "apply.fails", "reason", "message")
		if err != nil {
			return err
		}
		s.Fails = &Failure{}
		if rn, ok := ff["reason"]; ok {
			if s.Fails.Reason, err = p.str(rn, "apply.fails.reason"); err != nil {
				return err
			}
		}
		if mn, ok := ff["message"]; ok {
			if s.Fails.Message, err = p.str(mn, "apply.fails.message"); err != nil {
				return err
			}
		}
		if s.Fails.Reason == "" {
			return p.errf(v, "apply.fails: expected a reason (Invalid, AlreadyExists, Forbidden, NotFound...)")
		}
	}
	if len(s.Manifests) == 0 {
		return p.errf(n, "apply: no objects in %s", s.Source)
	}
	return nil
}

func (p *parser) applyFile(n *yaml.Node, file string, s *Step) error {
	s.Source = file
	if p.read == nil {
		return p.errf(n, "apply: cannot read %s here", file)
	}
	data, err := p.read(path.Clean(file))
	if err != nil {
		return p.errf(n, "apply: %v", err)
	}
	ms, err := DecodeManifests(file, data, 0)
	if err != nil {
		return err
	}
	s.Manifests = ms
	return nil
}

// inlineManifests decodes apply.manifest: a string of (multi-document)
// YAML, one object as a mapping, or a list of objects.
func (p *parser) inlineManifests(n *yaml.Node) ([]Manifest, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		text, err := p.str(n, "apply.manifest")
		if err != nil {
			return nil, err
		}
		// A block scalar (|) starts on the line after its indicator.
		offset := n.Line - 1
		if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			offset = n.Line
		}
		return DecodeManifests(p.file, []byte(text), offset)
	case yaml.MappingNode:
		m, err := manifestFromNode(p.file, n)
		if err != nil {
			return nil, err
		}
		return []Manifest{m}, nil
	case yaml.SequenceNode:
		var out []Manifest
		for _, item := range n.Content {
			m, err := manifestFromNode(p.file, item)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	return nil, p.errf(n, "apply.manifest: expected YAML text, an object or a list of objects, got %s", kindName(n))
}

// DecodeManifests decodes multi-document YAML into objects; offset is
// added to line numbers (the text's first line is line offset+1 of file).
func DecodeManifests(file string, data []byte, offset int) ([]Manifest, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []Manifest
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, yamlError(file, err, offset)
		}
		if len(doc.Content) == 0 || (doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null") {
			continue
		}
		root := doc.Content[0]
		shifted := *root
		shifted.Line += offset
		m, err := manifestFromNode(file, &shifted)
		if err != nil {
			var e *Error
			if errors.As(err, &e) && e.Line == root.Line {
				e.Line = root.Line + offset
			}
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// manifestFromNode decodes one object and checks it names itself.
func manifestFromNode(file string, n *yaml.Node) (Manifest, error) {
	bad := func(format string, args ...any) (Manifest, error) {
		return Manifest{}, &Error{File: file, Line: n.Line, Msg: fmt.Sprintf(format, args...)}
	}
	if n.Kind != yaml.MappingNode {
		return bad("a manifest: expected an object (a mapping with apiVersion, kind and metadata), got %s", kindName(n))
	}
	var raw any
	if err := n.Decode(&raw); err != nil {
		return Manifest{}, yamlError(file, err, 0)
	}
	v, err := jsonValue(raw)
	if err != nil {
		return bad("a manifest: %v", err)
	}
	obj := v.(map[string]any)
	var u unstructured.Unstructured
	if err := u.FromMap(unstructured.DeepCopyMap(obj)); err != nil {
		return bad("a manifest: %v", err)
	}
	switch {
	case u.APIVersion == "" || u.Kind == "":
		return bad("a manifest: expected apiVersion and kind")
	case u.Name == "" && u.GenerateName == "":
		return bad("a manifest: expected metadata.name (or metadata.generateName) in %s", u.Kind)
	}
	return Manifest{Object: obj, File: file, Line: n.Line}, nil
}

// jsonValue turns a value decoded from YAML into the JSON form of
// unstructured objects: maps with string keys, []any, int64, float64.
func jsonValue(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			c, err := jsonValue(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("keys must be strings, got %v", k)
			}
			c, err := jsonValue(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ks, err)
			}
			out[ks] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := jsonValue(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = c
		}
		return out, nil
	case int:
		return int64(t), nil
	case int64, float64, string, bool, nil:
		return t, nil
	case uint64:
		if t > 1<<63-1 {
			return float64(t), nil
		}
		return int64(t), nil
	case time.Time:
		return t.UTC().Format(time.RFC3339), nil
	}
	// Anything else (a binary scalar): its JSON form, decoded back.
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return unstructured.Decode(raw)
}

func (p *parser) delete(n *yaml.Node, s *Step) error {
	f, err := p.fields(n, "delete", "kind", "apiVersion", "name", "namespace", "selector", "fieldSelector", "count", "propagationPolicy")
	if err != nil {
		return err
	}
	if s.Target, err = p.ref(n, f, "delete", false); err != nil {
		return err
	}
	if s.Target.Name == "" && s.Target.Selector == "" && s.Target.FieldSelector == "" {
		return p.errf(n, "delete: expected a name or a selector")
	}
	if v, ok := f["count"]; ok {
		c, err := p.integer(v, "delete.count")
		if err != nil {
			return err
		}
		if c < 1 || (s.Target.Selector == "" && s.Target.FieldSelector == "") {
			return p.errf(v, "delete.count: expected 1 or more, with a selector")
		}
		s.Count = int(c)
	}
	if v, ok := f["propagationPolicy"]; ok {
		if s.Propagation, err = p.str(v, "delete.propagationPolicy"); err != nil {
			return err
		}
		if !slices.Contains([]string{"Orphan", "Background", "Foreground"}, s.Propagation) {
			return p.errf(v, "delete.propagationPolicy: expected Orphan, Background or Foreground, got %q", s.Propagation)
		}
	}
	return nil
}

func (p *parser) patch(n *yaml.Node, s *Step) error {
	f, err := p.fields(n, "patch", "kind", "apiVersion", "name", "namespace", "selector", "fieldSelector", "type", "patch")
	if err != nil {
		return err
	}
	if s.Target, err = p.ref(n, f, "patch", false); err != nil {
		return err
	}
	if s.Target.Name == "" && s.Target.Selector == "" && s.Target.FieldSelector == "" {
		return p.errf(n, "patch: expected a name or a selector")
	}
	s.PatchType = "merge"
	if v, ok := f["type"]; ok {
		if s.PatchType, err = p.str(v, "patch.type"); err != nil {
			return err
		}
		if !slices.Contains([]string{"merge", "json", "strategic"}, s.PatchType) {
			return p.errf(v, "patch.type: expected merge, json or strategic, got %q", s.PatchType)
		}
	}
	v, ok := f["patch"]
	if !ok {
		return p.errf(n, "patch: expected the patch under patch.patch")
	}
	if v.Kind == yaml.ScalarNode {
		text, err := p.str(v, "patch.patch")
		if err != nil {
			return err
		}
		if _, err := unstructured.Decode([]byte(text)); err != nil {
			return p.errf(v, "patch.patch: expected JSON (or a YAML mapping or list): %v", err)
		}
		s.Patch = []byte(text)
		return nil
	}
	var raw any
	if err := v.Decode(&raw); err != nil {
		return yamlError(p.file, err, 0)
	}
	jv, err := jsonValue(raw)
	if err != nil {
		return p.errf(v, "patch.patch: %v", err)
	}
	s.Patch, err = json.Marshal(jv)
	return err
}

func (p *parser) scale(n *yaml.Node, s *Step) error {
	f, err := p.fields(n, "scale", "kind", "apiVersion", "name", "namespace", "replicas")
	if err != nil {
		return err
	}
	if s.Target, err = p.ref(n, f, "scale", true); err != nil {
		return err
	}
	v, ok := f["replicas"]
	if !ok {
		return p.errf(n, "scale: expected replicas")
	}
	if s.Replicas, err = p.integer(v, "scale.replicas"); err != nil {
		return err
	}
	if s.Replicas < 0 {
		return p.errf(v, "scale.replicas: expected 0 or more, got %d", s.Replicas)
	}
	return nil
}

func (p *parser) show(n *yaml.Node, s *Step) error {
	if n.Kind == yaml.ScalarNode {
		kind, err := p.str(n, "show")
		if err != nil {
			return err
		}
		s.Target = ObjectRef{Kind: kind}
		return nil
	}
	f, err := p.fields(n, "show", "kind", "apiVersion", "namespace", "selector")
	if err != nil {
		return err
	}
	s.Target, err = p.ref(n, f, "show", false)
	return err
}

func (p *parser) expect(n *yaml.Node, s *Step) error {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	if len(items) == 0 {
		return p.errf(n, "expect: expected at least one check")
	}
	for _, item := range items {
		e, err := p.expectation(item)
		if err != nil {
			return err
		}
		s.Expects = append(s.Expects, e)
	}
	return nil
}

func (p *parser) expectation(n *yaml.Node) (*Expectation, error) {
	f, err := p.fields(n, "expect", "kind", "apiVersion", "name", "namespace", "selector", "fieldSelector",
		"exists", "field", "equals", "phase", "count", "event")
	if err != nil {
		return nil, err
	}
	e := &Expectation{Line: n.Line}
	if v, ok := f["event"]; ok {
		for _, k := range []string{"exists", "field", "equals", "phase", "selector", "fieldSelector", "apiVersion"} {
			if _, both := f[k]; both {
				return nil, p.errf(v, "expect.event: cannot be combined with %s", k)
			}
		}
		e.Kind = ExpectEvent
		ef, err := p.fields(v, "expect.event", "reason", "message")
		if err != nil {
			return nil, err
		}
		rn, ok := ef["reason"]
		if !ok {
			return nil, p.errf(v, "expect.event: expected a reason (FailedScheduling, SuccessfulCreate...)")
		}
		if e.Reason, err = p.str(rn, "expect.event.reason"); err != nil {
			return nil, err
		}
		if mn, ok := ef["message"]; ok {
			if e.Message, err = p.str(mn, "expect.event.message"); err != nil {
				return nil, err
			}
		}
		for key, dst := range map[string]*string{"kind": &e.Object.Kind, "name": &e.Object.Name, "namespace": &e.Object.Namespace} {
			if kn, ok := f[key]; ok {
				if *dst, err = p.str(kn, "expect."+key); err != nil {
					return nil, err
				}
			}
		}
		e.Count = -1
		if cn, ok := f["count"]; ok {
			c, err := p.integer(cn, "expect.count")
			if err != nil {
				return nil, err
			}
			e.Count = int(c)
		}
		return e, nil
	}
	_, hasField := f["field"]
	_, hasExists := f["exists"]
	_, hasCount := f["count"]
	switch {
	case hasField:
		e.Kind = ExpectField
		if e.Object, err = p.ref(n, f, "expect", true); err != nil {
			return nil, err
		}
		if e.Field, err = p.str(f["field"], "expect.field"); err != nil {
			return nil, err
		}
		if _, err := parseJSONPath(e.Field); err != nil {
			return nil, p.errf(f["field"], "expect.field: %v", err)
		}
		v, ok := f["equals"]
		if !ok {
			return nil, p.errf(n, "expect: a field check needs equals (the value the field must have)")
		}
		var raw any
		if err := v.Decode(&raw); err != nil {
			return nil, yamlError(p.file, err, 0)
		}
		if e.Equals, err = jsonValue(raw); err != nil {
			return nil, p.errf(v, "expect.equals: %v", err)
		}
	case hasExists:
		e.Kind = ExpectExists
		if e.Object, err = p.ref(n, f, "expect", true); err != nil {
			return nil, err
		}
		if e.Exists, err = p.boolean(f["exists"], "expect.exists"); err != nil {
			return nil, err
		}
	case hasCount:
		e.Kind = ExpectCount
		if e.Object, err = p.ref(n, f, "expect", false); err != nil {
			return nil, err
		}
		if e.Object.Name != "" {
			return nil, p.errf(n, "expect: a count selects objects by selector, not by name")
		}
		c, err := p.integer(f["count"], "expect.count")
		if err != nil {
			return nil, err
		}
		if c < 0 {
			return nil, p.errf(f["count"], "expect.count: expected 0 or more, got %d", c)
		}
		e.Count = int(c)
		if v, ok := f["phase"]; ok {
			if e.Phase, err = p.str(v, "expect.phase"); err != nil {
				return nil, err
			}
		}
	default:
		return nil, p.errf(n, "expect: expected one check: exists, field with equals, count (with selector and phase), or event")
	}
	for _, k := range []string{"equals", "phase"} {
		if _, ok := f[k]; ok && ((k == "equals" && e.Kind != ExpectField) || (k == "phase" && e.Kind != ExpectCount)) {
			return nil, p.errf(f[k], "expect.%s: not used by a %s check", k, e.Kind)
		}
	}
	if _, ok := f["count"]; ok && e.Kind != ExpectCount {
		return nil, p.errf(f["count"], "expect.count: not used by a %s check", e.Kind)
	}
	return e, nil
}

// LoadFS reads and parses a scenario from a file system (an embedded one:
// kubesim demo); the files it applies are read relative to its directory.
func LoadFS(fsys fs.FS, name string) (*Scenario, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	dir := path.Dir(name)
	return Parse(name, data, func(file string) ([]byte, error) {
		return fs.ReadFile(fsys, path.Join(dir, file))
	})
}
