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
	}
	// Build each plugin enabled anywhere once; a name the registry lacks is
	// reported where a point lists it.
	built := map[string]*Plugin{}
	for _, n := range enabledNames(plugins) {
		factory, ok := reg[n]
		if !ok {
			continue
		}
		p, err := factory(args[n])
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
			case !p.implements(ps.point):
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

	fw := &scheduler.Framework{}
	if prof.PercentageOfNodesToScore != nil {
		fw.PercentageOfNodesToScore = *prof.PercentageOfNodesToScore
	} else if globalPercentage != nil {
		fw.PercentageOfNodesToScore = *globalPercentage
	}
	// kubesim runs a plugin's PreFilter with its Filter and its PreScore
	// with its Score: the Filter and Score lists decide.
	for _, n := range lists[Filter] {
		fw.Filters = append(fw.Filters, built[n].Filters...)
	}
	weights := scoreWeights(append(slices.Clone(plugins.Score.Enabled), plugins.MultiPoint.Enabled...))
	for _, n := range lists[Score] {
		if sp := built[n].Score; sp != nil {
			s := *sp
			s.Weight = weights[n]
			fw.Scores = append(fw.Scores, s)
		}
	}
	p := scheduler.Profile{SchedulerName: name, Framework: fw,
		Preemption:    slices.Contains(lists[PostFilter], "DefaultPreemption"),
		VolumeBinding: slices.Contains(lists[Filter], "VolumeBinding"),
	}
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
func expandMultiPoint(point ExtensionPoint, own []string, set configv1.PluginSet, multi []configv1.Plugin, built map[string]*Plugin) ([]string, error) {
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
		case !p.implements(point), disabled[mp.Name]:
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
