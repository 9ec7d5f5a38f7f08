package config

import (
	"fmt"
	"slices"

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

// PluginFactory builds a plugin from its args and the framework it goes
// in (kube-scheduler's runtime.PluginFactory): args is the
// configuration's pluginConfig entry for it (a
// *configv1.NodeResourcesFitArgs..., defaulted; a *runtime.Unknown with
// the raw JSON for a plugin kubesim does not know), nil when it has none;
// h is the profile's Framework, what a plugin keeps to reach the waiting
// pods (Permit), the client and the cache. The plugin's extension points
// are the scheduler's interfaces it implements.
type PluginFactory func(args runtime.Object, h scheduler.Handle) (scheduler.Plugin, error)

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

// Merge adds every plugin of other, as kube-scheduler's Registry.Merge;
// a name both have is an error.
func (r Registry) Merge(other Registry) error {
	for name, f := range other {
		if err := r.Register(name, f); err != nil {
			return err
		}
	}
	return nil
}

// inTree is one of kube-scheduler's in-tree plugins as kubesim has it:
// the extension points kube-scheduler's plugin has (a configuration may
// list it at these only) and the plugins kubesim runs for it, each at
// the points whose interface it implements. A plugin kubesim does not
// simulate has none; TaintToleration has two (NodeReady, then
// TaintToleration's filter).
type inTree struct {
	name   string
	points []ExtensionPoint
	parts  []scheduler.Plugin
}

func (p *inTree) Name() string { return p.name }

// pointsOf are the extension points of p: an in-tree plugin's as
// kube-scheduler's has them, another's the interfaces it implements.
func pointsOf(p scheduler.Plugin) []ExtensionPoint {
	if it, ok := p.(*inTree); ok {
		return it.points
	}
	var out []ExtensionPoint
	add := func(ok bool, point ExtensionPoint) {
		if ok {
			out = append(out, point)
		}
	}
	_, ok := p.(scheduler.PreEnqueuePlugin)
	add(ok, PreEnqueue)
	_, ok = p.(scheduler.QueueSortPlugin)
	add(ok, QueueSort)
	_, ok = p.(scheduler.PreFilterPlugin)
	add(ok, PreFilter)
	_, ok = p.(scheduler.FilterPlugin)
	add(ok, Filter)
	_, ok = p.(scheduler.PostFilterPlugin)
	add(ok, PostFilter)
	_, ok = p.(scheduler.PreScorePlugin)
	add(ok, PreScore)
	_, ok = p.(scheduler.ScorePlugin)
	add(ok, Score)
	_, ok = p.(scheduler.ReservePlugin)
	add(ok, Reserve)
	_, ok = p.(scheduler.PermitPlugin)
	add(ok, Permit)
	_, ok = p.(scheduler.PreBindPlugin)
	add(ok, PreBind)
	_, ok = p.(scheduler.BindPlugin)
	add(ok, Bind)
	_, ok = p.(scheduler.PostBindPlugin)
	add(ok, PostBind)
	return out
}

// partsOf are the plugins that run for p.
func partsOf(p scheduler.Plugin) []scheduler.Plugin {
	if it, ok := p.(*inTree); ok {
		return it.parts
	}
	return []scheduler.Plugin{p}
}

// implements reports whether p has the extension point.
func implements(p scheduler.Plugin, point ExtensionPoint) bool {
	return slices.Contains(pointsOf(p), point)
}

// NewInTreeRegistry returns kube-scheduler's in-tree plugins (those of its
// default profile). The ones kubesim simulates are built from their args
// (scheduler/plugins.go); the others are accepted at their extension
// points and do nothing (doc.go lists them).
func NewInTreeRegistry() Registry {
	of := func(points []ExtensionPoint, build func(args runtime.Object, h scheduler.Handle) ([]scheduler.Plugin, error)) func(string) PluginFactory {
		return func(name string) PluginFactory {
			return func(args runtime.Object, h scheduler.Handle) (scheduler.Plugin, error) {
				parts, err := build(args, h)
				if err != nil {
					return nil, err
				}
				return &inTree{name: name, points: points, parts: parts}, nil
			}
		}
	}
	noop := func(points ...ExtensionPoint) func(string) PluginFactory {
		return of(points, func(runtime.Object, scheduler.Handle) ([]scheduler.Plugin, error) { return nil, nil })
	}
	one := func(p func(h scheduler.Handle) scheduler.Plugin, points ...ExtensionPoint) func(string) PluginFactory {
		return of(points, func(_ runtime.Object, h scheduler.Handle) ([]scheduler.Plugin, error) {
			return []scheduler.Plugin{p(h)}, nil
		})
	}
	r := Registry{}
	for name, f := range map[string]func(string) PluginFactory{
		"SchedulingGates": one(func(scheduler.Handle) scheduler.Plugin { return scheduler.NewSchedulingGates() }, PreEnqueue),
		// The queue is FIFO whatever the queue sort (doc.go).
		"PrioritySort":      one(func(scheduler.Handle) scheduler.Plugin { return scheduler.NewPrioritySort() }, QueueSort),
		"DefaultBinder":     one(func(h scheduler.Handle) scheduler.Plugin { return scheduler.NewDefaultBinder(h) }, Bind),
		"DefaultPreemption": one(func(h scheduler.Handle) scheduler.Plugin { return scheduler.NewDefaultPreemption(h) }, PostFilter),

		"NodeUnschedulable": one(func(scheduler.Handle) scheduler.Plugin { return scheduler.NewNodeUnschedulable() }, Filter),
		"NodeName":          one(func(scheduler.Handle) scheduler.Plugin { return scheduler.NewNodeName() }, Filter),
		// NodeReady stands where the node lifecycle controller's
		// not-ready taint would stop the pod: in TaintToleration.
		"TaintToleration": of([]ExtensionPoint{Filter, PreScore, Score}, func(runtime.Object, scheduler.Handle) ([]scheduler.Plugin, error) {
			return []scheduler.Plugin{scheduler.NewNodeReady(), scheduler.NewTaintToleration()}, nil
		}),
		"NodePorts":     one(func(scheduler.Handle) scheduler.Plugin { return scheduler.NewNodePorts() }, PreFilter, Filter),
		"NodeAffinity":  one(func(scheduler.Handle) scheduler.Plugin { return scheduler.NewNodeAffinity() }, PreFilter, Filter, PreScore, Score),
		"VolumeBinding": one(func(scheduler.Handle) scheduler.Plugin { return scheduler.NewVolumeBinding() }, PreFilter, Filter, Reserve, PreBind, PreScore, Score),
		"NodeResourcesFit": of([]ExtensionPoint{PreFilter, Filter, PreScore, Score}, func(args runtime.Object, _ scheduler.Handle) ([]scheduler.Plugin, error) {
			a, err := argsOf[configv1.NodeResourcesFitArgs](args, "NodeResourcesFitArgs")
			if err != nil {
				return nil, err
			}
			if a != nil {
				if err := ValidateNodeResourcesFitArgs(nil, a); err != nil {
					return nil, err
				}
			}
			return []scheduler.Plugin{scheduler.NewNodeResourcesFit(a)}, nil
		}),
		"PodTopologySpread": of([]ExtensionPoint{PreFilter, Filter, PreScore, Score}, func(args runtime.Object, _ scheduler.Handle) ([]scheduler.Plugin, error) {
			a, err := argsOf[configv1.PodTopologySpreadArgs](args, "PodTopologySpreadArgs")
			if err != nil {
				return nil, err
			}
			return []scheduler.Plugin{scheduler.NewPodTopologySpread(a)}, nil
		}),
		"InterPodAffinity": of([]ExtensionPoint{PreFilter, Filter, PreScore, Score}, func(args runtime.Object, _ scheduler.Handle) ([]scheduler.Plugin, error) {
			a, err := argsOf[configv1.InterPodAffinityArgs](args, "InterPodAffinityArgs")
			if err != nil {
				return nil, err
			}
			hard := scheduler.HardPodAffinityWeight
			if a != nil && a.HardPodAffinityWeight != nil {
				hard = int64(*a.HardPodAffinityWeight)
			}
			return []scheduler.Plugin{scheduler.NewInterPodAffinity(hard)}, nil
		}),

		// Accepted, not simulated (doc.go).
		"VolumeRestrictions":              noop(PreFilter, Filter),
		"NodeVolumeLimits":                noop(PreFilter, Filter),
		"VolumeZone":                      noop(PreFilter, Filter),
		"DynamicResources":                noop(PreEnqueue, PreFilter, Filter, PostFilter, Reserve, PreBind),
		"NodeResourcesBalancedAllocation": noop(PreScore, Score),
		"ImageLocality":                   noop(Score),
	} {
		r[name] = f(name)
	}
	return r
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
