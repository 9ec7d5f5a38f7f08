package config

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kubesim/kubesim/scheduler"
)

// Profiles builds the scheduler's profiles from the configuration's, with
// the plugins of reg, as kube-scheduler's profile.NewMap builds a framework
// per profile: the plugins each extension point lists, MultiPoint's
// spread over the points each plugin has, the score weights (0 is 1), and
// kube-scheduler's errors for a plugin it does not know, one listed at a
// point it does not have or twice, and a profile without exactly one
// queue sort plugin or without a bind plugin.
func (c *Config) Profiles(reg Registry) ([]scheduler.Profile, error) {
	kc := &c.KubeSchedulerConfiguration
	var out []scheduler.Profile
	for i := range kc.Profiles {
		prof := &kc.Profiles[i]
		p, err := buildProfile(prof, kc.PercentageOfNodesToScore, reg)
		if err != nil {
			return nil, fmt.Errorf("%s: initializing profiles: creating profile for scheduler name %s: %w", c.Source, ptrString(prof.SchedulerName), err)
		}
		out = append(out, p)
	}
	// Extenders (c.Extenders) are not a profile's: scheduler/extender.go
	// wires them into the scheduler.
	return out, nil
}

// buildProfile is NewFramework for one profile.
func buildProfile(prof *configv1.KubeSchedulerProfile, globalPercentage *int32, reg Registry) (scheduler.Profile, error) {
	name := ptrString(prof.SchedulerName)
	plugins := prof.Plugins
	if plugins == nil {
		plugins = &configv1.Plugins{}
	}
	args := map[string]runtime.Object{}
	for i := range prof.PluginConfig {
		pc := &prof.PluginConfig[i]
		if _, ok := args[pc.Name]; ok {
			return scheduler.Profile{}, fmt.Errorf("repeated config for plugin %s", pc.Name)
		}
		args[pc.Name] = pc.Args.Object
		if pc.Args.Object == nil && len(pc.Args.Raw) > 0 {
			// A plugin kubesim does not know decodes its own args, as an
			// out-of-tree plugin does in kube-scheduler.
			args[pc.Name] = &runtime.Unknown{Raw: pc.Args.Raw, ContentType: runtime.ContentTypeJSON}
		}
	}
	// The framework is made first: it is the Handle its plugins are
	// built with, as in kube-scheduler's NewFramework.
	fw := scheduler.NewFramework()
	// Build each plugin enabled anywhere once; a name the registry lacks is
	// reported where a point lists it.
	built := map[string]scheduler.Plugin{}
	for _, n := range enabledNames(plugins) {
		factory, ok := reg[n]
		if !ok {
			continue
		}
		p, err := factory(args[n], fw)
		if err != nil {
			return scheduler.Profile{}, fmt.Errorf("initializing plugin %q: %w", n, err)
		}
		built[n] = p
	}
	// The points' own lists (updatePluginList), then MultiPoint's plugins
	// spread over them (expandMultiPointPlugins).
	lists := map[ExtensionPoint][]string{}
	for _, ps := range pointSets(plugins) {
		var list []string
		for _, pl := range ps.set.Enabled {
			p, ok := built[pl.Name]
			switch {
			case !ok:
				return scheduler.Profile{}, fmt.Errorf("%s %q does not exist", ps.point, pl.Name)
			case !implements(p, ps.point):
				return scheduler.Profile{}, fmt.Errorf("plugin %q does not extend %s plugin", pl.Name, ps.point)
			case slices.Contains(list, pl.Name):
				return scheduler.Profile{}, fmt.Errorf("plugin %q already registered as %q", pl.Name, ps.point)
			}
			list = append(list, pl.Name)
		}
		lists[ps.point] = list
	}
	if len(plugins.MultiPoint.Enabled) > 0 {
		for _, ps := range pointSets(plugins) {
			expanded, err := expandMultiPoint(ps.point, lists[ps.point], *ps.set, plugins.MultiPoint.Enabled, built)
			if err != nil {
				return scheduler.Profile{}, err
			}
			lists[ps.point] = expanded
		}
	}
	if n := len(lists[QueueSort]); n != 1 {
		return scheduler.Profile{}, fmt.Errorf("only one queue sort plugin required for profile with scheduler name %q, but got %d", name, n)
	}
	if len(lists[Bind]) == 0 {
		return scheduler.Profile{}, fmt.Errorf("at least one bind plugin is needed for profile with scheduler name %q", name)
	}

	if prof.PercentageOfNodesToScore != nil {
		fw.PercentageOfNodesToScore = *prof.PercentageOfNodesToScore
	} else if globalPercentage != nil {
		fw.PercentageOfNodesToScore = *globalPercentage
	}
	fill(fw, lists, built, scoreWeights(append(slices.Clone(plugins.Score.Enabled), plugins.MultiPoint.Enabled...)))
	p := scheduler.Profile{SchedulerName: name, Framework: fw}
	if pa, ok := args["DefaultPreemption"].(*configv1.DefaultPreemptionArgs); ok {
		fw.PreemptionArgs = pa
	}
	if vb, ok := args["VolumeBinding"].(*configv1.VolumeBindingArgs); ok && vb.BindTimeoutSeconds != nil {
		p.BindTimeout = time.Duration(*vb.BindTimeoutSeconds) * time.Second
		if p.BindTimeout == 0 {
			// 0 is "no waiting": the first look at unbound claims fails
			// the binding (the scheduler's 0 would be its default).
			p.BindTimeout = time.Nanosecond
		}
	}
	return p, nil
}

// scoreWeights gives each plugin the weight of its first entry in plugins
// (the Score point's before MultiPoint's); 0 or none is 1 (getScoreWeights).
func scoreWeights(plugins []configv1.Plugin) map[string]int64 {
	w := map[string]int64{}
	for _, p := range plugins {
		if _, ok := w[p.Name]; ok {
			continue
		}
		w[p.Name] = 1
		if p.Weight != nil && *p.Weight != 0 {
			w[p.Name] = int64(*p.Weight)
		}
	}
	return w
}

// expandMultiPoint adds MultiPoint's plugins to the point's list, as
// expandMultiPointPlugins does: nothing when the point disables "*"; a
// plugin without the point, or disabled at it, is skipped; one the point
// lists itself keeps the point's place first (an override); then
// MultiPoint's, in their order; then the rest of the point's own.
func expandMultiPoint(point ExtensionPoint, own []string, set configv1.PluginSet, multi []configv1.Plugin, built map[string]scheduler.Plugin) ([]string, error) {
	disabled := map[string]bool{}
	for _, p := range set.Disabled {
		disabled[p.Name] = true
	}
	if disabled["*"] {
		return own, nil
	}
	var fromMulti, overrides []string
	for _, mp := range multi {
		p, ok := built[mp.Name]
		switch {
		case !ok:
			return nil, fmt.Errorf("%s %q does not exist", point, mp.Name)
		case !implements(p, point), disabled[mp.Name]:
			continue
		case slices.Contains(own, mp.Name):
			overrides = append(overrides, mp.Name)
			continue
		case slices.Contains(fromMulti, mp.Name):
			return nil, fmt.Errorf("plugin %q already registered as %q", mp.Name, point)
		}
		fromMulti = append(fromMulti, mp.Name)
	}
	var out []string
	for _, n := range own {
		if slices.Contains(overrides, n) {
			out = append(out, n)
		}
	}
	out = append(out, fromMulti...)
	for _, n := range own {
		if !slices.Contains(overrides, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// fill puts the plugins of each point's list into the framework, in the
// list's order, each part of a plugin at the points whose interface it
// implements. A built-in plugin's PreFilter runs where its Filter is
// listed, and its PreScore where its Score is: their Filter and Score
// read what those found, so kubesim keeps the halves together (a
// configuration that lists one half alone changes nothing); another
// plugin's PreFilter and PreScore lists are taken as they are.
func fill(fw *scheduler.Framework, lists map[ExtensionPoint][]string, built map[string]scheduler.Plugin, weights map[string]int64) {
	halves := func(pre []string, main []string) []string {
		var out []string
		for _, n := range pre {
			if _, in := built[n].(*inTree); !in || slices.Contains(main, n) {
				out = append(out, n)
			}
		}
		for _, n := range main {
			if _, in := built[n].(*inTree); in && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return out
	}
	// each calls f with every part of the plugins listed.
	each := func(names []string, f func(name string, p scheduler.Plugin)) {
		for _, n := range names {
			for _, p := range partsOf(built[n]) {
				f(n, p)
			}
		}
	}
	each(lists[PreEnqueue], func(_ string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.PreEnqueuePlugin); ok {
			fw.PreEnqueue = append(fw.PreEnqueue, pp)
		}
	})
	each(lists[QueueSort], func(_ string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.QueueSortPlugin); ok {
			fw.QueueSort = pp
		}
	})
	// The in-tree halves: by the Filter and Score lists, in their order
	// (VolumeBinding, PodTopologySpread, InterPodAffinity by default).
	each(halves(lists[PreFilter], lists[Filter]), func(_ string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.PreFilterPlugin); ok {
			fw.PreFilter = append(fw.PreFilter, pp)
		}
	})
	each(lists[Filter], func(_ string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.FilterPlugin); ok {
			fw.Filter = append(fw.Filter, pp)
		}
	})
	each(lists[PostFilter], func(_ string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.PostFilterPlugin); ok {
			fw.PostFilter = append(fw.PostFilter, pp)
		}
	})
	each(halves(lists[PreScore], lists[Score]), func(_ string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.PreScorePlugin); ok {
			fw.PreScore = append(fw.PreScore, pp)
		}
	})
	each(lists[Score], func(n string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.ScorePlugin); ok {
			fw.Score = append(fw.Score, scheduler.WeightedScorePlugin{ScorePlugin: pp, Weight: weights[n]})
		}
	})
	each(lists[Reserve], func(_ string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.ReservePlugin); ok {
			fw.Reserve = append(fw.Reserve, pp)
		}
	})
	each(lists[Permit], func(_ string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.PermitPlugin); ok {
			fw.Permit = append(fw.Permit, pp)
		}
	})
	each(lists[PreBind], func(_ string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.PreBindPlugin); ok {
			fw.PreBind = append(fw.PreBind, pp)
		}
	})
	each(lists[Bind], func(_ string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.BindPlugin); ok {
			fw.Bind = append(fw.Bind, pp)
		}
	})
	each(lists[PostBind], func(_ string, p scheduler.Plugin) {
		if pp, ok := p.(scheduler.PostBindPlugin); ok {
			fw.PostBind = append(fw.PostBind, pp)
		}
	})
}
