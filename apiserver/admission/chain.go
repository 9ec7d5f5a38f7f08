package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Chain is the ordered list of admission plugins, as kube-apiserver's
// --enable-admission-plugins orders them: each is a MutationInterface, a
// ValidationInterface or both. The registry runs Mutate before its own
// validation and Validate after it.
type Chain []any

// Mutate runs the mutating plugins in order; the first refusal ends the
// chain and is the request's answer. When a plugin that asked for it (a
// webhook with reinvocationPolicy IfNeeded) saw the object before a later
// plugin changed it, every mutating plugin runs once more — once: a plugin
// that keeps changing the object does not make the chain loop.
func (c Chain) Mutate(ctx context.Context, a *Attributes) (err error) {
	t := newPluginTimer(ctx, StepAdmit)
	if t.m != nil {
		defer func() { t.m.ObserveStep(StepAdmit, a.Operation, err != nil, t.start, t.last) }()
	}
	a.reinvocation = &reinvocation{calledAt: map[string]int{}}
	if err := c.mutateOnce(ctx, a, &t); err != nil {
		return err
	}
	if !a.reinvocation.needed() {
		return nil
	}
	a.reinvocation.reinvoking = true
	return c.mutateOnce(ctx, a, &t)
}

func (c Chain) mutateOnce(ctx context.Context, a *Attributes, t *pluginTimer) error {
	for _, p := range c {
		m, ok := p.(MutationInterface)
		if !ok || !handles(p, a.Operation) {
			continue
		}
		_, own := p.(StepReporter)
		// The object is compared before and after only when someone
		// looks: a trace, or a plugin waiting to be reinvoked.
		watch := a.Object != nil && !own && (recording(ctx) || len(a.reinvocation.calledAt) > 0)
		var before []byte
		if watch {
			before, _ = json.Marshal(a.Object)
			t.restart() // the plugin's time, not the encoding's
		}
		err := m.Admit(ctx, a)
		t.observe(p, a.Operation, err != nil)
		if err != nil {
			if !own {
				RecordStep(ctx, Step{Phase: PhaseMutating, Plugin: pluginName(p), Attributes: a, Denied: err.Error()})
			}
			return err
		}
		if watch {
			after, _ := json.Marshal(a.Object)
			// Most plugins change nothing in most writes (a Lease
			// renewal): equal bytes need no diff, which decodes both.
			if bytes.Equal(before, after) {
				continue
			}
			if patch := Diff(before, after); patch != nil {
				a.ObjectChanged()
				RecordStep(ctx, Step{Phase: PhaseMutating, Plugin: pluginName(p), Attributes: a, Patch: string(patch)})
			}
			t.restart()
		}
	}
	return nil
}

// Validate runs the validating plugins in order (a validating webhook
// plugin calls its webhooks in parallel); the first refusal is the answer.
func (c Chain) Validate(ctx context.Context, a *Attributes) (err error) {
	t := newPluginTimer(ctx, StepValidate)
	if t.m != nil {
		defer func() { t.m.ObserveStep(StepValidate, a.Operation, err != nil, t.start, t.last) }()
	}
	for _, p := range c {
		v, ok := p.(ValidationInterface)
		if !ok || !handles(p, a.Operation) {
			continue
		}
		err := v.Validate(ctx, a)
		t.observe(p, a.Operation, err != nil)
		if err != nil {
			if _, own := p.(StepReporter); !own {
				RecordStep(ctx, Step{Phase: PhaseValidating, Plugin: pluginName(p), Attributes: a, Denied: err.Error()})
			}
			return err
		}
	}
	return nil
}

// pluginTimer times one half of the chain and each plugin call in it
// (apiserver_admission_step_admission_duration_seconds and
// apiserver_admission_controller_admission_duration_seconds), when the
// write's context carries Metrics. One call's end is the next one's
// start, and the last one's the half's end, so that a half reads the
// clock once per plugin called, plus once, instead of twice per plugin
// and twice more for the half: what lies between two calls is a type
// check or two, and where the chain does more (the JSON a trace
// compares) it restarts the timer.
type pluginTimer struct {
	m    Metrics
	step string
	// start is when the half began, last when the last call ended.
	start, last time.Time
}

func newPluginTimer(ctx context.Context, step string) pluginTimer {
	t := pluginTimer{m: MetricsFrom(ctx), step: step}
	if t.m != nil {
		t.start = t.m.Now()
		t.last = t.start
	}
	return t
}

// restart starts the next call's time now.
func (t *pluginTimer) restart() {
	if t.m != nil {
		t.last = t.m.Now()
	}
}

// observe records the call of p that just returned.
func (t *pluginTimer) observe(p any, op Operation, rejected bool) {
	if t.m != nil {
		t.last = t.m.ObservePlugin(pluginName(p), t.step, op, rejected, t.last)
	}
}

// Names are the chain's plugins' names, in order, as the trace shows
// them.
func (c Chain) Names() []string {
	out := make([]string, len(c))
	for i, p := range c {
		out[i] = pluginName(p)
	}
	return out
}

// pluginName is what the trace calls p.
func pluginName(p any) string {
	if n, ok := p.(Named); ok {
		return n.PluginName()
	}
	t := reflect.TypeOf(p)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// reinvocation remembers, for one admission, how often the object changed
// and when each reinvocable plugin last saw it
// (admission.ReinvocationContext).
type reinvocation struct {
	changes    int
	calledAt   map[string]int
	reinvoking bool
}

func (r *reinvocation) needed() bool {
	for _, at := range r.calledAt {
		if at < r.changes {
			return true
		}
	}
	return false
}

// ObjectChanged tells the chain a plugin changed the object (the chain
// sees a built-in plugin's changes itself; a webhook plugin reports each
// webhook's patch).
func (a *Attributes) ObjectChanged() {
	if a.reinvocation != nil {
		a.reinvocation.changes++
	}
}

// CalledReinvocable notes that the reinvocable key (a webhook with
// reinvocationPolicy IfNeeded) has seen the object as it is now.
func (a *Attributes) CalledReinvocable(key string) {
	if a.reinvocation != nil {
		a.reinvocation.calledAt[key] = a.reinvocation.changes
	}
}

// IsReinvoke reports whether this is the chain's second pass.
func (a *Attributes) IsReinvoke() bool {
	return a.reinvocation != nil && a.reinvocation.reinvoking
}

// ShouldReinvoke reports, on the second pass, whether key saw the object
// before a later plugin changed it.
func (a *Attributes) ShouldReinvoke(key string) bool {
	if !a.IsReinvoke() {
		return false
	}
	at, ok := a.reinvocation.calledAt[key]
	return ok && at < a.reinvocation.changes
}

// The phases of the chain.
const (
	PhaseMutating   = "mutating"
	PhaseValidating = "validating"
)

// Step is what one plugin or webhook did to one request that the trace
// shows: a change (Patch, a JSON patch) or a refusal (Denied).
type Step struct {
	Phase string
	// Plugin is the plugin's name, or `webhook "<name>"`.
	Plugin     string
	Attributes *Attributes
	Patch      string
	Denied     string
	// Ignored is a failed webhook call that failurePolicy Ignore let pass.
	Ignored string
}

// String renders the step as one trace line.
func (s Step) String() string {
	a := s.Attributes
	target := a.Resource.Resource
	if a.Subresource != "" {
		target += "/" + a.Subresource
	}
	target += " " + a.Name
	if a.Namespace != "" {
		target = fmt.Sprintf("%s %s/%s", a.Resource.Resource, a.Namespace, a.Name)
		if a.Subresource != "" {
			target = fmt.Sprintf("%s/%s %s/%s", a.Resource.Resource, a.Subresource, a.Namespace, a.Name)
		}
	}
	head := fmt.Sprintf("admission %s %s %s %s", s.Phase, s.Plugin, strings.ToLower(string(a.Operation)), target)
	switch {
	case s.Denied != "":
		return head + ": denied: " + s.Denied
	case s.Ignored != "":
		return head + ": failed, ignored: " + s.Ignored
	default:
		return head + ": patched " + shortPatch(s.Patch)
	}
}

// maxPatchShown is the longest patch a trace line shows whole; a longer
// one is shown as its operations and paths (a ServiceAccount plugin's
// volume, say), so that the trace stays readable.
const maxPatchShown = 160

func shortPatch(patch string) string {
	if len(patch) <= maxPatchShown {
		return patch
	}
	var ops []struct{ Op, Path string }
	if json.Unmarshal([]byte(patch), &ops) != nil {
		return patch[:maxPatchShown] + "..."
	}
	parts := make([]string, len(ops))
	for i, o := range ops {
		parts[i] = o.Op + " " + o.Path
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// StepReporter is implemented by plugins that record their own steps (the
// webhook plugins, one step per webhook) instead of letting the chain
// record one for the whole plugin.
type StepReporter interface {
	ReportsSteps()
}
