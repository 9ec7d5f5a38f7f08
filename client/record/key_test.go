package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

// keyFields names each field an event key is made of and how to change
// it in an event.
var keyFields = map[string]func(*corev1.Event){
	"source.component":    func(e *corev1.Event) { e.Source.Component = "kubelet-x" },
	"source.host":         func(e *corev1.Event) { e.Source.Host = "node-2" },
	"kind":                func(e *corev1.Event) { e.InvolvedObject.Kind = "Node" },
	"namespace":           func(e *corev1.Event) { e.InvolvedObject.Namespace = "other" },
	"name":                func(e *corev1.Event) { e.InvolvedObject.Name = "web-2" },
	"fieldPath":           func(e *corev1.Event) { e.InvolvedObject.FieldPath = "spec.containers{b}" },
	"uid":                 func(e *corev1.Event) { e.InvolvedObject.UID = "uid-2" },
	"apiVersion":          func(e *corev1.Event) { e.InvolvedObject.APIVersion = "v2" },
	"type":                func(e *corev1.Event) { e.Type = "Warning" },
	"reason":              func(e *corev1.Event) { e.Reason = "Killing" },
	"message":             func(e *corev1.Event) { e.Message = "Started container b" },
	"reportingController": func(e *corev1.Event) { e.ReportingController = "other" },
	"reportingInstance":   func(e *corev1.Event) { e.ReportingInstance = "other-node-1" },
}

func sampleEvent() *corev1.Event {
	return &corev1.Event{
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-1", UID: "uid-1",
			APIVersion: "v1", FieldPath: "spec.containers{a}"},
		Source: corev1.EventSource{Component: "kubelet", Host: "node-1"},
		Type:   "Normal", Reason: "Started", Message: "Started container a",
		ReportingController: "kubelet", ReportingInstance: "kubelet-node-1",
	}
}

// The correlator's keys are digests of the fields client-go joins into
// its string keys: two events differing only in a field of a key have
// different keys (they are never folded into one), and events differing
// only in fields outside it share the key.
func TestEventKeysDifferInEveryFieldTheyAreMadeOf(t *testing.T) {
	keys := []struct {
		name   string
		key    func(*corev1.Event) digest
		fields []string
	}{
		{"eventKey", eventKey, []string{"source.component", "source.host", "kind", "namespace", "name", "fieldPath", "uid",
			"apiVersion", "type", "reason", "message"}},
		{"aggregateKey", aggregateKey, []string{"source.component", "source.host", "kind", "namespace", "name", "uid",
			"apiVersion", "type", "reason", "reportingController", "reportingInstance"}},
		{"spamKey", spamKey, []string{"source.component", "source.host", "kind", "namespace", "name", "uid", "apiVersion"}},
	}
	for _, k := range keys {
		in := map[string]bool{}
		for _, f := range k.fields {
			in[f] = true
		}
		base := k.key(sampleEvent())
		for field, change := range keyFields {
			ev := sampleEvent()
			change(ev)
			if in[field] {
				assert.NotEqual(t, base, k.key(ev), "%s: events differing only in %s", k.name, field)
			} else {
				assert.Equal(t, base, k.key(ev), "%s: %s is not part of it", k.name, field)
			}
		}
	}
}

// Fields are not simply run together: moving a boundary between two of
// them makes another key.
func TestDigestKeepsFieldBoundaries(t *testing.T) {
	assert.NotEqual(t, digestOf("ab", "c"), digestOf("a", "bc"))
	assert.NotEqual(t, digestOf("a\x00", "b"), digestOf("a", "\x00b"))
	assert.NotEqual(t, digestOf("", "a"), digestOf("a", ""))
	assert.NotEqual(t, digestOf("a"), digestOf("a", ""))
	assert.Equal(t, digestOf("a", "b"), digestOf("a", "b"))
	long := string(make([]byte, 2000)) // past the stack buffer
	assert.NotEqual(t, digestOf(long, "a"), digestOf(long, "b"))
}
