package kinds

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/fieldmap"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
	"github.com/kubesim/kubesim/store"
)

// --- events.k8s.io/v1 Event ---

// EventsGroupName is the events API group.
const EventsGroupName = "events.k8s.io"

// eventsResources serves events.k8s.io/v1 Events from the storage of the
// core group's Events, as kube-apiserver does (one REST storage, two
// groups): an Event written through either group is read through both.
// The stored form is core/v1's; this version converts on the way in and
// out with pkg/apis/events/v1's field mapping (EventToCore, EventFromCore).
func eventsResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{{
		Group: EventsGroupName, Version: "v1", Name: "events", SingularName: "event", Kind: "Event", ListKind: "EventList",
		ShortNames: []string{"ev"}, Namespaced: true,
		New:                  func() api.Object { return &eventsv1.Event{} },
		StrategicMergePatch:  true,
		Strategy:             eventsV1Strategy{},
		Schema:               gen.FromGoType(reflect.TypeOf(eventsv1.Event{})),
		StorageGroupResource: k8sschema.GroupResource{Resource: "events"},
		ToStored:             eventV1ToStored,
		FromStored:           eventV1FromStored,
		DecorateStorage: func(st store.Interface) store.Interface {
			return store.Converting{Interface: st, ToStored: eventV1ToStored, FromStored: eventV1FromStored}
		},
		Table:  eventsV1Table(),
		Fields: eventsV1Fields,
	}}
}

// EventToCore converts an events.k8s.io/v1 Event to the core/v1 form it
// is stored in (Convert_v1_Event_To_core_Event), by eventMapping.
func EventToCore(e *eventsv1.Event) *corev1.Event {
	out := &corev1.Event{}
	fieldmap.AToB(eventMapping(e.DeepCopy(), out))
	out.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}
	return out
}

// EventFromCore is the way back (Convert_core_Event_To_v1_Event), by the
// same eventMapping.
func EventFromCore(e *corev1.Event) *eventsv1.Event {
	out := &eventsv1.Event{}
	fieldmap.BToA(eventMapping(out, e.DeepCopy()))
	out.TypeMeta = metav1.TypeMeta{APIVersion: EventsGroupName + "/v1", Kind: "Event"}
	return out
}

// eventMapping is pkg/apis/events/v1's field mapping, written once for
// both directions: each line names an events.k8s.io/v1 field of v and
// the core/v1 field of c that holds it. Regarding is involvedObject, note
// is message, deprecatedSource, deprecatedCount and the deprecated
// timestamps are source, count and the timestamps; the other fields have
// the same names (reportingController is the core field spelled
// reportingComponent in JSON). Every field but TypeMeta is listed.
func eventMapping(v *eventsv1.Event, c *corev1.Event) []fieldmap.Pair {
	return []fieldmap.Pair{
		fieldmap.Same[metav1.ObjectMeta]{A: &v.ObjectMeta, B: &c.ObjectMeta},
		fieldmap.Same[metav1.MicroTime]{A: &v.EventTime, B: &c.EventTime},
		// Each group has an EventSeries of its own, with the same fields
		// (a field added to one would stop these compiling).
		fieldmap.Convert[*eventsv1.EventSeries, *corev1.EventSeries]{A: &v.Series, B: &c.Series,
			ToB: func(s *eventsv1.EventSeries) *corev1.EventSeries { return (*corev1.EventSeries)(s) },
			ToA: func(s *corev1.EventSeries) *eventsv1.EventSeries { return (*eventsv1.EventSeries)(s) }},
		fieldmap.Same[string]{A: &v.ReportingController, B: &c.ReportingController},
		fieldmap.Same[string]{A: &v.ReportingInstance, B: &c.ReportingInstance},
		fieldmap.Same[string]{A: &v.Action, B: &c.Action},
		fieldmap.Same[string]{A: &v.Reason, B: &c.Reason},
		fieldmap.Same[corev1.ObjectReference]{A: &v.Regarding, B: &c.InvolvedObject},
		fieldmap.Same[*corev1.ObjectReference]{A: &v.Related, B: &c.Related},
		fieldmap.Same[string]{A: &v.Note, B: &c.Message},
		fieldmap.Same[string]{A: &v.Type, B: &c.Type},
		fieldmap.Same[corev1.EventSource]{A: &v.DeprecatedSource, B: &c.Source},
		fieldmap.Same[metav1.Time]{A: &v.DeprecatedFirstTimestamp, B: &c.FirstTimestamp},
		fieldmap.Same[metav1.Time]{A: &v.DeprecatedLastTimestamp, B: &c.LastTimestamp},
		fieldmap.Same[int32]{A: &v.DeprecatedCount, B: &c.Count},
	}
}

func eventV1ToStored(value []byte) ([]byte, error) {
	var e eventsv1.Event
	if err := json.Unmarshal(value, &e); err != nil {
		return nil, err
	}
	return json.Marshal(EventToCore(&e))
}

func eventV1FromStored(value []byte) []byte {
	if value == nil {
		return nil
	}
	var e corev1.Event
	if err := json.Unmarshal(value, &e); err != nil {
		return value
	}
	out, err := json.Marshal(EventFromCore(&e))
	if err != nil {
		return value
	}
	return out
}

// The lengths an Event's fields may have (pkg/apis/core/validation).
const (
	reportingInstanceLengthLimit = 128
	actionLengthLimit            = 128
	reasonLengthLimit            = 128
	noteLengthLimit              = 1024
)

// eventsV1Strategy validates an Event created through events.k8s.io/v1
// as ValidateEventCreate does for that version: the legacy checks of a
// new-style event (one with eventTime), then the strict ones that only
// this version has. Errors name the fields as the real validation does,
// by their core names where it uses them.
type eventsV1Strategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy.
func (eventsV1Strategy) Validate(obj api.Object) field.ErrorList {
	v1 := obj.(*eventsv1.Event)
	e := EventToCore(v1)
	errs := validateNewStyleEvent(e, "reportingController")
	errs = append(errs, validateEventSeries(e)...)
	if e.Type != corev1.EventTypeNormal && e.Type != corev1.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.Type)))
	}
	if !e.FirstTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("deprecatedFirstTimestamp"), "", "needs to be unset"))
	}
	if !e.LastTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("deprecatedLastTimestamp"), "", "needs to be unset"))
	}
	if e.Count != 0 {
		errs = append(errs, field.Invalid(field.NewPath("deprecatedCount"), "", "needs to be unset"))
	}
	if e.Source.Component != "" || e.Source.Host != "" {
		errs = append(errs, field.Invalid(field.NewPath("deprecatedSource"), "", "needs to be unset"))
	}
	return errs
}

// validateNewStyleEvent is legacyValidateEvent as events.k8s.io/v1 runs
// it: an Event with an eventTime (the new style) must name its reporter,
// action and reason; one without fails for that alone.
func validateNewStyleEvent(e *corev1.Event, reportingControllerField string) field.ErrorList {
	var errs field.ErrorList
	if e.EventTime.IsZero() {
		// An old-style event: only its namespace is checked, and this
		// version requires the time.
		if ns := e.InvolvedObject.Namespace; (ns == "" && e.Namespace != "" && e.Namespace != metav1.NamespaceDefault) || (ns != "" && ns != e.Namespace) {
			errs = append(errs, field.Invalid(field.NewPath("involvedObject", "namespace"), ns, "does not match event.namespace"))
		}
		return append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if e.InvolvedObject.Namespace == "" && e.Namespace != metav1.NamespaceDefault && e.Namespace != metav1.NamespaceSystem {
		errs = append(errs, field.Invalid(field.NewPath("involvedObject", "namespace"), e.InvolvedObject.Namespace, "does not match event.namespace"))
	}
	if e.ReportingController == "" {
		errs = append(errs, field.Required(field.NewPath(reportingControllerField), ""))
	}
	for _, msg := range labels.IsQualifiedName(e.ReportingController) {
		errs = append(errs, field.Invalid(field.NewPath(reportingControllerField), e.ReportingController, msg))
	}
	lengths := []struct {
		name, value string
		limit       int
	}{
		{"reportingInstance", e.ReportingInstance, reportingInstanceLengthLimit},
		{"action", e.Action, actionLengthLimit},
		{"reason", e.Reason, reasonLengthLimit},
	}
	for _, l := range lengths {
		if l.value == "" {
			errs = append(errs, field.Required(field.NewPath(l.name), ""))
		}
		if len(l.value) > l.limit {
			errs = append(errs, field.Invalid(field.NewPath(l.name), "", fmt.Sprintf("can have at most %v characters", l.limit)))
		}
	}
	if len(e.Message) > noteLengthLimit {
		errs = append(errs, field.Invalid(field.NewPath("message"), "", fmt.Sprintf("can have at most %v characters", noteLengthLimit)))
	}
	return errs
}

// validateEventSeries is validateV1EventSeries: a series counts at least
// two occurrences and says when it saw the last.
func validateEventSeries(e *corev1.Event) field.ErrorList {
	if e.Series == nil {
		return nil
	}
	var errs field.ErrorList
	if e.Series.Count < 2 {
		errs = append(errs, field.Invalid(field.NewPath("series", "count"), "", "should be at least 2"))
	}
	if e.Series.LastObservedTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("series", "lastObservedTime"), ""))
	}
	return errs
}

// ValidateUpdate implements registry.Strategy (ValidateEventUpdate for
// events.k8s.io/v1): only the series may change.
func (s eventsV1Strategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	e, o := EventToCore(obj.(*eventsv1.Event)), EventToCore(old.(*eventsv1.Event))
	errs := validateNewStyleEvent(e, "reportingController")
	if !reflect.DeepEqual(e.Series, o.Series) {
		errs = append(errs, validateEventSeries(e)...)
	}
	immutable := []struct {
		name     string
		cur, was any
	}{
		{"involvedObject", e.InvolvedObject, o.InvolvedObject},
		{"reason", e.Reason, o.Reason},
		{"message", e.Message, o.Message},
		{"source", e.Source, o.Source},
		{"firstTimestamp", e.FirstTimestamp, o.FirstTimestamp},
		{"lastTimestamp", e.LastTimestamp, o.LastTimestamp},
		{"count", e.Count, o.Count},
		{"type", e.Type, o.Type},
		{"eventTime", e.EventTime, o.EventTime},
		{"action", e.Action, o.Action},
		{"related", e.Related, o.Related},
		{"reportingController", e.ReportingController, o.ReportingController},
		{"reportingInstance", e.ReportingInstance, o.ReportingInstance},
	}
	for _, f := range immutable {
		if !reflect.DeepEqual(f.cur, f.was) {
			errs = append(errs, field.Invalid(field.NewPath(f.name), f.cur, immutableErrMsg))
		}
	}
	return errs
}

// eventsV1Fields are the field selectors of events.k8s.io/v1, its names
// for the core ones (AddFieldLabelConversionsForEvent): regarding.* for
// involvedObject.*, reportingController for reportingComponent.
func eventsV1Fields(obj api.Object) fields.Set {
	e := obj.(*eventsv1.Event)
	return fields.Set{
		"regarding.kind":            e.Regarding.Kind,
		"regarding.namespace":       e.Regarding.Namespace,
		"regarding.name":            e.Regarding.Name,
		"regarding.uid":             string(e.Regarding.UID),
		"regarding.apiVersion":      e.Regarding.APIVersion,
		"regarding.resourceVersion": e.Regarding.ResourceVersion,
		"regarding.fieldPath":       e.Regarding.FieldPath,
		"reason":                    e.Reason,
		"reportingController":       e.ReportingController,
		"type":                      e.Type,
	}
}

// eventsV1Table prints an events.k8s.io Event as kubectl prints any Event
// (the server has one printer for both groups).
func eventsV1Table() *registry.Table {
	core := eventTable()
	return &registry.Table{
		Columns: core.Columns,
		Cells: func(obj api.Object, now time.Time) []any {
			return core.Cells(EventToCore(obj.(*eventsv1.Event)), now)
		},
	}
}
