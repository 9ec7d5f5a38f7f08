package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/kubelet"
	schedconfig "github.com/kubesim/kubesim/scheduler/config"
	"github.com/kubesim/kubesim/scheduler/extender/sample"
	"github.com/kubesim/kubesim/stepper"
)

// Scenario is a parsed scenario file.
type Scenario struct {
	// File is the path the scenario was read from (for messages).
	File string
	// Name and Description are shown to the student; NameZh and
	// DescriptionZh are the same in Chinese (the scenario's zh key), ""
	// when it has none. NameIn and DescriptionIn pick one.
	Name, Description     string
	NameZh, DescriptionZh string
	// Cluster says how to build the cluster.
	Cluster ClusterSpec
	// Steps run in order.
	Steps []*Step
}

// ClusterSpec is the cluster part of a scenario.
type ClusterSpec struct {
	// Seed makes names, uids and scheduler tie-breaks repeatable.
	Seed uint64
	// NodeCount nodes named node-1... with the default capacity, unless
	// Nodes lists them.
	NodeCount int
	Nodes     []cluster.NodeConfig
	// Stages are the kubelets' pod lifecycle delays.
	Stages kubelet.Stages
	// Controllers is --controllers ("*", "*,-garbagecollector").
	Controllers string
	// Operators are controllers of operators/catalog run beside
	// the control plane (foo, rediscluster, statefulset).
	Operators []string
	// NodeMonitorGracePeriod and DefaultTolerationSeconds tune node
	// failure (cluster.Config's fields of those names).
	NodeMonitorGracePeriod   time.Duration
	DefaultTolerationSeconds *int64
	// NodeLeaseDuration is the kubelets' nodeLeaseDurationSeconds (their
	// heartbeat is every quarter of it); 0 is the default, 40s.
	NodeLeaseDuration time.Duration
	// LeaderElection runs several controller managers that elect a leader
	// through the kube-system/kube-controller-manager Lease (nil: one,
	// not elected).
	LeaderElection *cluster.LeaderElection
	// DevicePlugins, CSIDrivers and CNI are the node plugins the scenario
	// runs (plugins.go): the sample device plugin and CSI driver in
	// process, a CNI plugin built from its source.
	DevicePlugins []DevicePluginSpec
	CSIDrivers    []CSIDriverSpec
	CNI           *CNISpec
	// SchedulerConfig is the scheduler's KubeSchedulerConfiguration,
	// written inline (nil: the default profile).
	SchedulerConfig *schedconfig.Config
	// SampleExtender, when set, answers every call to the extenders of
	// SchedulerConfig in process, as the sample extender (`kubesim
	// extender`) configured so would.
	SampleExtender *sample.Config
}

// Op names a kind of step.
type Op string

// The steps a scenario can take.
const (
	OpNote           Op = "note"
	OpApply          Op = "apply"
	OpDelete         Op = "delete"
	OpPatch          Op = "patch"
	OpScale          Op = "scale"
	OpStopNode       Op = "stopNode"
	OpStartNode      Op = "startNode"
	OpControllerOff  Op = "controllerOff"
	OpControllerOn   Op = "controllerOn"
	OpStopComponent  Op = "stopComponent"
	OpDevicePlugin   Op = "devicePlugin"
	OpAdvance        Op = "advance"
	OpRunUntilStable Op = "runUntilStable"
	OpRun            Op = "run"
	OpExpect         Op = "expect"
	OpShow           Op = "show"
)

// Ops lists every step, in the order the documentation gives them.
var Ops = []Op{OpNote, OpApply, OpDelete, OpPatch, OpScale, OpStopNode, OpStartNode, OpControllerOff,
	OpControllerOn, OpStopComponent, OpDevicePlugin, OpAdvance, OpRunUntilStable, OpRun, OpExpect, OpShow}

// Step is one step of a scenario; which fields are set depends on Op.
type Step struct {
	Op Op
	// Line is where the step starts in the file.
	Line int
	// Text is a note's text; TextZh the same note in Chinese (the zh key
	// beside note:), "" when it has none. NoteText picks one.
	Text, TextZh string
	// Source names where apply's manifests come from (a file, or
	// "inline").
	Source string
	// Manifests are apply's objects.
	Manifests []Manifest
	// Fails, for apply, says the apply must fail this way.
	Fails *Failure
	// Target is the object (or objects, by selector) of delete, patch,
	// scale and show.
	Target ObjectRef
	// Count limits delete by selector to the first Count objects by name
	// (0: all of them).
	Count int
	// Propagation is delete's propagationPolicy (Orphan, Background,
	// Foreground; empty: the server's default).
	Propagation string
	// PatchType is merge, json or strategic; Patch the patch as JSON.
	PatchType string
	Patch     []byte
	// Replicas is scale's count; N is run's number of steps.
	Replicas int64
	N        int
	// Name is the node of stopNode/startNode/devicePlugin, the controller
	// of controllerOff/controllerOn, or the candidate of stopComponent.
	Name string
	// Resource, Device and Healthy are devicePlugin's: the plugin's
	// resource, and the device it marks healthy or unhealthy.
	Resource, Device string
	Healthy          bool
	// Duration is advance's time.
	Duration time.Duration
	// Limits bound runUntilStable (and advance).
	Limits stepper.Limits
	// Expects are the checks of an expect step.
	Expects []*Expectation
}

// Lang is a language a scenario's notes are shown in: the course kubesim
// teaches from is written in Chinese, so a note may carry a
// Chinese text beside the English one. Only notes change with it: the
// trace and the API's words stay as the API writes them.
type Lang string

// The languages of notes.
const (
	English Lang = "en"
	Chinese Lang = "zh"
)

// ParseLang checks a --lang flag's value.
func ParseLang(s string) (Lang, error) {
	switch l := Lang(s); l {
	case English, Chinese:
		return l, nil
	}
	return "", fmt.Errorf("unknown language %q: expected en (English) or zh (Chinese)", s)
}

// NameIn is the scenario's name in lang (English when it has no Chinese
// one).
func (s *Scenario) NameIn(lang Lang) string {
	if lang == Chinese && s.NameZh != "" {
		return s.NameZh
	}
	return s.Name
}

// DescriptionIn is the scenario's description in lang (English when it
// has no Chinese one).
func (s *Scenario) DescriptionIn(lang Lang) string {
	if lang == Chinese && strings.TrimSpace(s.DescriptionZh) != "" {
		return s.DescriptionZh
	}
	return s.Description
}

// NoteText is a note's text in lang: the Chinese one if lang is Chinese
// and the note has it, else the English one.
func (s *Step) NoteText(lang Lang) string {
	if lang == Chinese && strings.TrimSpace(s.TextZh) != "" {
		return strings.TrimSpace(s.TextZh)
	}
	return strings.TrimSpace(s.Text)
}

// Title is a one-line description of the step.
func (s *Step) Title() string { return s.TitleIn(English) }

// TitleIn is Title with a note's text in lang (the rest of a title is the
// scenario's own words: kinds, names, fields).
func (s *Step) TitleIn(lang Lang) string {
	switch s.Op {
	case OpNote:
		first, _, _ := strings.Cut(s.NoteText(lang), "\n")
		return "note: " + first
	case OpApply:
		t := "apply " + s.Source
		if s.Fails != nil {
			t += fmt.Sprintf(" (must fail: %s)", s.Fails.Reason)
		}
		return t
	case OpDelete:
		t := "delete " + s.Target.String()
		if s.Count > 0 {
			t += fmt.Sprintf(" (first %d)", s.Count)
		}
		if s.Propagation != "" {
			t += " propagationPolicy=" + s.Propagation
		}
		return t
	case OpPatch:
		return fmt.Sprintf("patch %s (%s) %s", s.Target, s.PatchType, s.Patch)
	case OpScale:
		return fmt.Sprintf("scale %s to %d", s.Target, s.Replicas)
	case OpStopNode, OpStartNode, OpControllerOff, OpControllerOn, OpStopComponent:
		return string(s.Op) + " " + s.Name
	case OpDevicePlugin:
		health := "unhealthy"
		if s.Healthy {
			health = "healthy"
		}
		return fmt.Sprintf("devicePlugin %s on %s: %s %s", s.Resource, s.Name, s.Device, health)
	case OpAdvance:
		return "advance " + s.Duration.String()
	case OpRun:
		return fmt.Sprintf("run %d step(s)", s.N)
	case OpExpect:
		parts := make([]string, len(s.Expects))
		for i, e := range s.Expects {
			parts[i] = e.String()
		}
		return "expect " + strings.Join(parts, "; ")
	case OpShow:
		return "show " + s.Target.String()
	}
	return string(s.Op)
}

// Manifest is one object to apply.
type Manifest struct {
	// Object is the decoded object (JSON numbers: int64 or float64).
	Object map[string]any
	// File and Line say where it was written.
	File string
	Line int
}

// Failure is how an apply must fail: the Status reason (Invalid,
// AlreadyExists, Forbidden...) and a substring of its message.
type Failure struct {
	Reason  string
	Message string
}

// ObjectRef names an object, or objects by label selector.
type ObjectRef struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	Selector   string
	// FieldSelector narrows a selector's matches (delete and patch steps,
	// and an expect's count): status.phase=Running picks the running pods,
	// spec.nodeName=node-1 those on node-1, as kubectl's --field-selector
	// does.
	FieldSelector string
}

// String renders the reference as kubectl would name it.
func (o ObjectRef) String() string {
	s := o.Kind
	if o.Name != "" {
		if o.Namespace != "" {
			s += " " + o.Namespace + "/" + o.Name
		} else {
			s += " " + o.Name
		}
	} else if o.Namespace != "" {
		s += " in " + o.Namespace
	}
	if o.Selector != "" {
		s += " -l " + o.Selector
	}
	return s
}

// ExpectKind is what an Expectation checks.
type ExpectKind string

// The checks of an expect step.
const (
	ExpectExists ExpectKind = "exists"
	ExpectField  ExpectKind = "field"
	ExpectCount  ExpectKind = "count"
	ExpectEvent  ExpectKind = "event"
)

// Expectation is one check.
type Expectation struct {
	Kind ExpectKind
	Line int
	// Object is the object (exists, field) or objects (count) checked; for
	// an event, the involved object's kind and name (both optional).
	Object ObjectRef
	// Exists is what ExpectExists wants.
	Exists bool
	// Field is a JSON path (.status.readyReplicas) and Equals the value it
	// must have (decoded from YAML; integers as int64).
	Field  string
	Equals any
	// Phase filters a count (pods being deleted never count for a phase).
	Phase string
	// Count is how many objects must match.
	Count int
	// Reason and Message (a substring) select an Event.
	Reason, Message string
}

// String renders the check in one line.
func (e *Expectation) String() string {
	switch e.Kind {
	case ExpectExists:
		if e.Exists {
			return e.Object.String() + " exists"
		}
		return e.Object.String() + " does not exist"
	case ExpectField:
		return fmt.Sprintf("%s %s == %s", e.Object, e.Field, formatValue(e.Equals))
	case ExpectCount:
		s := fmt.Sprintf("%d %s", e.Count, e.Object)
		if e.Object.FieldSelector != "" {
			s += " --field-selector " + e.Object.FieldSelector
		}
		if e.Phase != "" {
			s += " phase=" + e.Phase
		}
		return s
	case ExpectEvent:
		s := "event " + e.Reason
		if e.Object.Kind != "" || e.Object.Name != "" {
			s += " for " + strings.TrimSpace(e.Object.Kind+" "+e.Object.Name)
		}
		if e.Message != "" {
			s += fmt.Sprintf(" with message containing %q", e.Message)
		}
		if e.Count >= 0 {
			s += fmt.Sprintf(" (%d of them)", e.Count)
		}
		return s
	}
	return string(e.Kind)
}
