package config

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kubesim/kubesim/scheduler"
)

// ExtensionPoint names one of the scheduling framework's extension points
// as kube-scheduler's plugin interfaces are named (FilterPlugin...), the
// words of its configuration errors.
type ExtensionPoint string

// The extension points, in the order kube-scheduler fills them
// (getExtensionPoints).
const (
	PreFilter  ExtensionPoint = "PreFilterPlugin"
	Filter     ExtensionPoint = "FilterPlugin"
	PostFilter ExtensionPoint = "PostFilterPlugin"
	Reserve    ExtensionPoint = "ReservePlugin"
	PreScore   ExtensionPoint = "PreScorePlugin"
	Score      ExtensionPoint = "ScorePlugin"
	PreBind    ExtensionPoint = "PreBindPlugin"
	Bind       ExtensionPoint = "BindPlugin"
	PostBind   ExtensionPoint = "PostBindPlugin"
	Permit     ExtensionPoint = "PermitPlugin"
	PreEnqueue ExtensionPoint = "PreEnqueuePlugin"
	QueueSort  ExtensionPoint = "QueueSortPlugin"
)

// pointSets returns the plugin sets of p's extension points, in
// kube-scheduler's order.
func pointSets(p *configv1.Plugins) []pluginSet {
	var out []pluginSet
	for _, ps := range extensionPointSets(p) {
		if ps.point != "" {
			out = append(out, ps)
		}
	}
	return out
}

// Plugin is one plugin as a profile runs it: the extension points it has in
// kube-scheduler, and what kubesim runs of it.
type Plugin struct {
	// Points are the extension points the plugin implements, as in
	// kube-scheduler: a configuration may list it at these only.
	Points []ExtensionPoint
	// Filters run, in order, where the plugin stands among the profile's
	// filters, each with its PreFilter. Empty for a plugin kubesim does not
	// filter with.
	Filters []scheduler.FilterPlugin
	// Score is its score, with PreScore and NormalizeScore; the profile
	// gives the weight. nil for a plugin kubesim does not score with.
	Score *scheduler.ScorePlugin
}

// implements reports whether p has the extension point.
func (p *Plugin) implements(point ExtensionPoint) bool {
	for _, q := range p.Points {
		if q == point {
			return true
		}
	}
	return false
}

// PluginFactory builds a plugin from its args: the configuration's
// pluginConfig entry for it (a *configv1.NodeResourcesFitArgs...,
// defaulted), nil when it has none.
type PluginFactory func(args runtime.Object) (*Plugin, error)

// Registry maps plugin names to their factories (kube-scheduler's
// framework/runtime.Registry). It is a value: NewInTreeRegistry makes one,
// and a program adds its own plugins with Register before it builds the
// profiles.
type Registry map[string]PluginFactory

// Register adds a plugin; a name already taken is an error.
func (r Registry) Register(name string, factory PluginFactory) error {
	if _, ok := r[name]; ok {
		return fmt.Errorf("a plugin named %v already exists", name)
	}
	r[name] = factory
	return nil
}

// NewInTreeRegistry returns kube-scheduler's in-tree plugins (those of its
// default profile). The ones kubesim simulates build their filters and
// scores from their args; the others are accepted at their extension
// points and do nothing (doc.go lists them).
func NewInTreeRegistry() Registry {
	noop := func(points ...ExtensionPoint) PluginFactory {
		return func(runtime.Object) (*Plugin, error) { return &Plugin{Points: points}, nil }
	}
	filter := func(f scheduler.FilterPlugin, points ...ExtensionPoint) PluginFactory {
		return func(runtime.Object) (*Plugin, error) {
			return &Plugin{Points: points, Filters: []scheduler.FilterPlugin{f}}, nil
		}
	}
	return Registry{
		// The queue: gates are always honoured and the queue is FIFO;
		// the binder is always the pods/binding POST.
		"SchedulingGates": noop(PreEnqueue),
		"PrioritySort":    noop(QueueSort),
		"DefaultBinder":   noop(Bind),
		// DefaultPreemption: the profile's Preemption.
		"DefaultPreemption": noop(PostFilter),

		"NodeUnschedulable": filter(scheduler.FilterPlugin{Name: "NodeUnschedulable", Filter: scheduler.NodeUnschedulable}, Filter),
		"NodeName":          filter(scheduler.FilterPlugin{Name: "NodeName", Filter: scheduler.NodeName}, Filter),
		// NodeReady stands where the node lifecycle controller's
		// not-ready taint would stop the pod: in TaintToleration.
		"TaintToleration": func(runtime.Object) (*Plugin, error) {
			return &Plugin{Points: []ExtensionPoint{Filter, PreScore, Score}, Filters: []scheduler.FilterPlugin{
				{Name: "NodeReady", Filter: scheduler.NodeReady},
				{Name: "TaintToleration", Filter: scheduler.TaintToleration},
			}}, nil
		},
		"NodePorts":     filter(scheduler.FilterPlugin{Name: "NodePorts", Filter: scheduler.NodePorts}, PreFilter, Filter),
		"NodeAffinity":  filter(scheduler.FilterPlugin{Name: "NodeAffinity", Filter: scheduler.NodeAffinity}, PreFilter, Filter, PreScore, Score),
		"VolumeBinding": filter(scheduler.FilterPlugin{Name: "VolumeBinding", Filter: scheduler.VolumeBinding}, PreFilter, Filter, Reserve, PreBind, PreScore, Score),
		"NodeResourcesFit": func(args runtime.Object) (*Plugin, error) {
			a, err := argsOf[configv1.NodeResourcesFitArgs](args, "NodeResourcesFitArgs")
			if err != nil {
				return nil, err
			}
			if a != nil {
				if err := ValidateNodeResourcesFitArgs(nil, a); err != nil {
					return nil, err
				}
			}
			sp := scheduler.NodeResourcesFitScore(a, 0)
			return &Plugin{Points: []ExtensionPoint{PreFilter, Filter, PreScore, Score},
				Filters: []scheduler.FilterPlugin{{Name: "NodeResourcesFit", Filter: scheduler.NodeResourcesFit}}, Score: &sp}, nil
		},
		"PodTopologySpread": func(args runtime.Object) (*Plugin, error) {
			a, err := argsOf[configv1.PodTopologySpreadArgs](args, "PodTopologySpreadArgs")
			if err != nil {
				return nil, err
			}
			f, sp := scheduler.PodTopologySpread(a, 0)
			return &Plugin{Points: []ExtensionPoint{PreFilter, Filter, PreScore, Score}, Filters: []scheduler.FilterPlugin{f}, Score: &sp}, nil
		},
		"InterPodAffinity": func(args runtime.Object) (*Plugin, error) {
			a, err := argsOf[configv1.InterPodAffinityArgs](args, "InterPodAffinityArgs")
			if err != nil {
				return nil, err
			}
			hard := scheduler.HardPodAffinityWeight
			if a != nil && a.HardPodAffinityWeight != nil {
				hard = int64(*a.HardPodAffinityWeight)
			}
			sp := scheduler.InterPodAffinityScorePlugin(0, hard)
			return &Plugin{Points: []ExtensionPoint{PreFilter, Filter, PreScore, Score}, Filters: []scheduler.FilterPlugin{
				{Name: "InterPodAffinity", PreFilter: scheduler.InterPodAffinityPreFilter, Filter: scheduler.InterPodAffinityFilter},
			}, Score: &sp}, nil
		},

		// Accepted, not simulated (doc.go).
		"VolumeRestrictions":              noop(PreFilter, Filter),
		"NodeVolumeLimits":                noop(PreFilter, Filter),
		"VolumeZone":                      noop(PreFilter, Filter),
		"DynamicResources":                noop(PreEnqueue, PreFilter, Filter, PostFilter, Reserve, PreBind),
		"NodeResourcesBalancedAllocation": noop(PreScore, Score),
		"ImageLocality":                   noop(Score),
	}
}

// argsOf returns args as *T, nil when there are none; other args are an
// error worded as kube-scheduler's plugins word it.
func argsOf[T any](args runtime.Object, kind string) (*T, error) {
	if args == nil {
		return nil, nil
	}
	a, ok := args.(any).(*T)
	if !ok {
		return nil, fmt.Errorf("want args to be of type %s, got %T", kind, args)
	}
	return a, nil
}
