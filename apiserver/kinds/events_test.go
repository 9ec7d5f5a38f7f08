package kinds

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"

	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/apiserver/registry"
)

func newStyleEvent() *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "web.1", Namespace: "default"},
		EventTime:           metav1.NewMicroTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		Regarding:           corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web", UID: "u1"},
		Related:             &corev1.ObjectReference{Kind: "Node", Name: "node-1"},
		Series:              &eventsv1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC))},
		ReportingController: "example.com/controller", ReportingInstance: "controller-host1",
		Action: "Scaling", Reason: "Scaled", Note: "scaled to 3", Type: corev1.EventTypeNormal,
	}
}

// The mapping of pkg/apis/events/v1: regarding is involvedObject, note is
// message, the series and the reporting fields carry over, and a round
// trip loses nothing.
func TestEventConversionMapsFields(t *testing.T) {
	e := newStyleEvent()
	c := EventToCore(e)
	assert.Equal(t, e.Regarding, c.InvolvedObject)
	assert.Equal(t, "scaled to 3", c.Message)
	assert.Equal(t, "example.com/controller", c.ReportingController)
	assert.Equal(t, "controller-host1", c.ReportingInstance)
	assert.Equal(t, int32(2), c.Series.Count)
	assert.Equal(t, "Node", c.Related.Kind)
	assert.Empty(t, c.Source.Component, "deprecatedSource is source: unset stays unset")

	legacy := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "default"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web"},
		Reason: "Pulled", Message: "pulled", Source: corev1.EventSource{Component: "kubelet", Host: "node-1"}, Count: 4,
		FirstTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), LastTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC)), Type: "Normal"}
	v1 := EventFromCore(legacy)
	assert.Equal(t, "pulled", v1.Note)
	assert.Equal(t, legacy.InvolvedObject, v1.Regarding)
	assert.Equal(t, legacy.Source, v1.DeprecatedSource)
	assert.Equal(t, int32(4), v1.DeprecatedCount)
	assert.Equal(t, legacy.FirstTimestamp, v1.DeprecatedFirstTimestamp)
	assert.Equal(t, legacy.LastTimestamp, v1.DeprecatedLastTimestamp)
	back := EventToCore(v1)
	back.TypeMeta = legacy.TypeMeta
	assert.Equal(t, legacy, back)
}

// Every field eventMapping maps survives a round trip either way: an
// Event with every field set (sigs.k8s.io/randfill), converted to the
// other group and back, is what it was. A field added to one direction of
// the mapping and not the other, or one left out, fails here.
func TestEventMappingRoundTrips(t *testing.T) {
	for seed := range int64(5) {
		f := randfill.NewWithSeed(seed).NilChance(0).NumElements(1, 2).Funcs(
			// No string or count left at its zero value by chance.
			func(s *string, c randfill.Continue) { *s = "s" + c.String(8) },
			func(n *int32, c randfill.Continue) { *n = 1 + c.Int31n(1000) },
		)

		var core corev1.Event
		f.Fill(&core)
		core.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}
		requireEveryFieldSet(t, core)
		v1 := EventFromCore(&core)
		requireEveryFieldSet(t, *v1)
		assert.Equal(t, &core, EventToCore(v1), "core -> events.k8s.io -> core, seed %d", seed)

		var events eventsv1.Event
		f.Fill(&events)
		events.TypeMeta = metav1.TypeMeta{APIVersion: EventsGroupName + "/v1", Kind: "Event"}
		requireEveryFieldSet(t, events)
		c := EventToCore(&events)
		requireEveryFieldSet(t, *c)
		assert.Equal(t, &events, EventFromCore(c), "events.k8s.io -> core -> events.k8s.io, seed %d", seed)
	}
}

// requireEveryFieldSet fails unless each top-level field of the struct e
// holds a value, so that a round trip of e checks every field.
func requireEveryFieldSet(t *testing.T, e any) {
	t.Helper()
	v := reflect.ValueOf(e)
	for i := range v.NumField() {
		require.False(t, v.Field(i).IsZero(), "%s.%s.%s is not set", v.Type().PkgPath(), v.Type().Name(), v.Type().Field(i).Name)
	}
}

func TestEventsV1Validation(t *testing.T) {
	st := eventsV1Strategy{}
	assert.Empty(t, st.Validate(newStyleEvent()))
	fieldsOf := func(e *eventsv1.Event) []string {
		var out []string
		for _, err := range st.Validate(e) {
			out = append(out, err.Field)
		}
		return out
	}
	noTime := newStyleEvent()
	noTime.EventTime = metav1.MicroTime{}
	assert.Equal(t, []string{"eventTime"}, fieldsOf(noTime))
	bare := newStyleEvent()
	bare.ReportingController, bare.ReportingInstance, bare.Action, bare.Reason = "", "", "", ""
	// An empty reportingController is also not a qualified name, as in
	// Kubernetes: the first error says it is required.
	assert.Equal(t, []string{"reportingController", "reportingInstance", "action", "reason"}, slices.Compact(fieldsOf(bare)))
	old := newStyleEvent()
	old.DeprecatedCount, old.DeprecatedSource = 3, corev1.EventSource{Component: "x"}
	old.Type = "Info"
	assert.Equal(t, []string{"type", "deprecatedCount", "deprecatedSource"}, fieldsOf(old))
	series := newStyleEvent()
	series.Series.Count = 1
	assert.Equal(t, []string{"series.count"}, fieldsOf(series))

	// Only the series may change.
	cur := newStyleEvent()
	cur.Series.Count = 3
	assert.Empty(t, st.ValidateUpdate(cur, newStyleEvent()))
	cur.Note = "changed"
	errs := st.ValidateUpdate(cur, newStyleEvent())
	require.Len(t, errs, 1)
	assert.Equal(t, "message", errs[0].Field)
}

// One Event, two groups: written through events.k8s.io/v1 it reads back
// through core/v1 (and the other way round), field selectors in each
// group's own names.
func TestEventsServedFromOneStorage(t *testing.T) {
	ctx := context.Background()
	stores := decoratedStores(t)
	core, v1 := stores["/events"], stores[EventsGroupName+"/events"]
	require.NotNil(t, core)
	require.NotNil(t, v1)
	_, err := v1.Create(ctx, "default", newStyleEvent(), registry.CreateOptions{})
	require.NoError(t, err)
	got, err := core.Get(ctx, "default", "web.1")
	require.NoError(t, err)
	ce := got.(*corev1.Event)
	assert.Equal(t, "scaled to 3", ce.Message)
	assert.Equal(t, "web", ce.InvolvedObject.Name)
	assert.Equal(t, "example.com/controller", ce.ReportingController)

	legacy := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "old", Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "db"}, Reason: "Pulled", Message: "pulled", Count: 2,
		Source: corev1.EventSource{Component: "kubelet"}, Type: "Normal"}
	_, err = core.Create(ctx, "default", legacy, registry.CreateOptions{})
	require.NoError(t, err)
	got, err = v1.Get(ctx, "default", "old")
	require.NoError(t, err)
	ve := got.(*eventsv1.Event)
	assert.Equal(t, "pulled", ve.Note)
	assert.Equal(t, "db", ve.Regarding.Name)
	assert.Equal(t, int32(2), ve.DeprecatedCount)
	assert.Equal(t, "kubelet", ve.DeprecatedSource.Component)

	sel, err := fields.ParseSelector("regarding.name=db")
	require.NoError(t, err)
	list, err := v1.List(ctx, "default", registry.ListOptions{Fields: sel})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "old", list.Items[0].(*eventsv1.Event).Name)
	all, err := core.List(ctx, "default", registry.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, all.Items, 2)
}

// decoratedStores is a registry store per built-in resource over one
// bbolt store, keyed group/resource (the first version of each), each
// with its storage decorations (builtinStores).
func decoratedStores(t *testing.T) map[string]*registry.Store {
	all, _ := builtinStores(t, true)
	out := map[string]*registry.Store{}
	for _, st := range all {
		r := st.Resource()
		if _, ok := out[r.Group+"/"+r.Name]; !ok {
			out[r.Group+"/"+r.Name] = st
		}
	}
	return out
}
