package admission

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

// labeler is a built-in mutating plugin: it sets a label.
type labeler struct {
	key, value string
	calls      int
}

func (l *labeler) Admit(_ context.Context, a *Attributes) error {
	l.calls++
	m := api.Meta(a.Object)
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[l.key] = l.value
	return nil
}

// createsOnly refuses every create, and sees nothing else.
type createsOnly struct{ seen []Operation }

func (c *createsOnly) Handles(op Operation) bool { return op == Create }
func (c *createsOnly) Validate(_ context.Context, a *Attributes) error {
	c.seen = append(c.seen, a.Operation)
	return errors.New("no creates")
}

// reinvocable asks to be called again when a later plugin changes the
// object, as a webhook with reinvocationPolicy IfNeeded does.
type reinvocable struct{ calls int }

func (r *reinvocable) Admit(_ context.Context, a *Attributes) error {
	if a.IsReinvoke() && !a.ShouldReinvoke("r") {
		return nil
	}
	r.calls++
	a.CalledReinvocable("r")
	return nil
}

func configMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}}
}

func TestChainOrderHandlesAndSteps(t *testing.T) {
	l := &labeler{key: "team", value: "a"}
	v := &createsOnly{}
	chain := Chain{v, l} // validators run after every mutator, wherever they are listed
	ctx, rec := WithRecord(context.Background())
	a := &Attributes{Operation: Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Namespace: "default", Name: "c", Object: configMap()}
	require.NoError(t, chain.Mutate(ctx, a))
	assert.EqualError(t, chain.Validate(ctx, a), "no creates")
	assert.Equal(t, "a", api.Meta(a.Object).Labels["team"])
	steps := rec.Steps()
	require.Len(t, steps, 2)
	assert.Equal(t, `admission mutating labeler create configmaps default/c: patched [{"op":"add","path":"/metadata/labels","value":{"team":"a"}}]`, steps[0].String())
	assert.Equal(t, `admission validating createsOnly create configmaps default/c: denied: no creates`, steps[1].String())

	a.Operation = Update
	assert.NoError(t, chain.Validate(context.Background(), a), "Handles(UPDATE) is false")
	assert.Equal(t, []Operation{Create}, v.seen)
}

// A quiet record (a request whose steps nobody reads) keeps refusals and
// warnings but does not diff the object around built-in plugins.
func TestQuietRecordSkipsBuiltInPatches(t *testing.T) {
	l := &labeler{key: "team", value: "a"}
	v := &createsOnly{}
	ctx, rec := WithQuietRecord(context.Background())
	a := &Attributes{Operation: Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Namespace: "default", Name: "c", Object: configMap()}
	require.NoError(t, Chain{l}.Mutate(ctx, a))
	assert.Equal(t, "a", api.Meta(a.Object).Labels["team"], "the plugin still runs")
	assert.Empty(t, rec.Steps(), "no patch computed")
	AddWarning(ctx, "careful")
	assert.Equal(t, []string{"careful"}, rec.Warnings())
	assert.EqualError(t, Chain{v}.Validate(ctx, a), "no creates")
	steps := rec.Steps()
	require.Len(t, steps, 1, "a refusal is still recorded")
	assert.Equal(t, `admission validating createsOnly create configmaps default/c: denied: no creates`, steps[0].String())
}

func TestChainReinvokesOnceWhenALaterPluginChanged(t *testing.T) {
	r := &reinvocable{}
	l := &labeler{key: "team", value: "a"}
	a := &Attributes{Operation: Create, Object: configMap()}
	require.NoError(t, Chain{r, l}.Mutate(context.Background(), a))
	assert.Equal(t, 2, r.calls, "the labeler changed the object after r saw it")
	assert.Equal(t, 2, l.calls, "built-in plugins run again on reinvocation")

	r, l = &reinvocable{}, &labeler{key: "team", value: "a"}
	a = &Attributes{Operation: Create, Object: configMap()}
	require.NoError(t, Chain{l, r}.Mutate(context.Background(), a))
	assert.Equal(t, 1, r.calls, "nothing changed after r")
	assert.Equal(t, 1, l.calls)
}

// named gives the name the trace shows.
type named struct{ createsOnly }

func (named) PluginName() string { return "Named" }

func TestChainNamesArePluginNamesInOrder(t *testing.T) {
	chain := Chain{&labeler{}, createsOnly{}, named{}, &reinvocable{}}
	assert.Equal(t, []string{"labeler", "createsOnly", "Named", "reinvocable"}, chain.Names(),
		"a plugin's PluginName, else its type's name with or without a pointer")
}

func TestLongPatchesAreShownAsPaths(t *testing.T) {
	long := `[{"op":"add","path":"/spec/volumes","value":"` + strings.Repeat("x", 200) + `"},{"op":"replace","path":"/spec/containers","value":1}]`
	assert.Equal(t, "(add /spec/volumes, replace /spec/containers)", shortPatch(long))
	assert.Equal(t, `[{"op":"add","path":"/a","value":1}]`, shortPatch(`[{"op":"add","path":"/a","value":1}]`))
}

func TestDiff(t *testing.T) {
	assert.Nil(t, Diff([]byte(`{"a":1}`), []byte(`{"a":1}`)))
	assert.JSONEq(t, `[{"op":"remove","path":"/b"},{"op":"replace","path":"/a/x~1y","value":2},{"op":"add","path":"/c","value":[1]}]`,
		string(Diff([]byte(`{"a":{"x/y":1},"b":0}`), []byte(`{"a":{"x/y":2},"c":[1]}`))))
}

// fakeMetrics records what the chain observes, on a clock the plugins
// move.
type fakeMetrics struct {
	now   time.Time
	calls []string
}

func (m *fakeMetrics) Now() time.Time                                            { return m.now }
func (m *fakeMetrics) ObserveStep(string, Operation, bool, time.Time, time.Time) {}
func (m *fakeMetrics) ObserveWebhook(string, string, Operation, bool, time.Time) {}
func (m *fakeMetrics) ObservePlugin(name, step string, op Operation, rejected bool, start time.Time) time.Time {
	m.calls = append(m.calls, fmt.Sprintf("%s %s %s rejected=%t %s", name, step, op, rejected, m.now.Sub(start)))
	return m.now
}

// slow takes d of the metrics' clock in each call, and refuses when told.
type slow struct {
	name   string
	m      *fakeMetrics
	d      time.Duration
	refuse bool
}

func (s *slow) PluginName() string { return s.name }
func (s *slow) Admit(context.Context, *Attributes) error {
	s.m.now = s.m.now.Add(s.d)
	return nil
}
func (s *slow) Validate(context.Context, *Attributes) error {
	s.m.now = s.m.now.Add(s.d)
	if s.refuse {
		return errors.New("refused")
	}
	return nil
}

// Each plugin call is timed on its own, by name, half, operation and
// refusal, whether or not a trace records the chain: the plugins that do
// not handle the operation, and those after a refusal, are not called and
// not counted.
func TestChainTimesEachPluginCall(t *testing.T) {
	for _, traced := range []bool{false, true} {
		m := &fakeMetrics{now: time.Unix(0, 0)}
		chain := Chain{
			&slow{name: "A", m: m, d: 3 * time.Millisecond},
			&labeler{key: "team", value: "a"},
			&slow{name: "B", m: m, d: 5 * time.Millisecond, refuse: true},
			&createsOnly{},
			&slow{name: "C", m: m, d: time.Millisecond},
		}
		ctx := WithMetrics(context.Background(), m)
		if traced {
			ctx, _ = WithRecord(ctx)
		}
		a := &Attributes{Operation: Create, Object: configMap()}
		require.NoError(t, chain.Mutate(ctx, a))
		assert.Error(t, chain.Validate(ctx, a))
		a.Operation = Update
		assert.Error(t, chain.Validate(ctx, a))
		assert.Equal(t, []string{
			"A admit CREATE rejected=false 3ms",
			"labeler admit CREATE rejected=false 0s",
			"B admit CREATE rejected=false 5ms",
			"C admit CREATE rejected=false 1ms",
			"A validate CREATE rejected=false 3ms",
			"B validate CREATE rejected=true 5ms",
			"A validate UPDATE rejected=false 3ms",
			"B validate UPDATE rejected=true 5ms",
		}, m.calls, "traced: %t", traced)
	}
}
