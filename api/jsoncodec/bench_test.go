package jsoncodec_test

import (
	"encoding/json"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/api/unstructured"
)

// The objects kubesim encodes and decodes most: a running pod (status,
// container statuses, quantities, times), a node, an event, and a custom
// resource (an Unstructured, whose content is a map).
func benchObjects(tb testing.TB) []struct {
	name string
	new  func() any
	data []byte
} {
	read := func(p string) []byte {
		b, err := os.ReadFile("../testdata/" + p)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	var others []json.RawMessage
	if err := json.Unmarshal(read("others.json"), &others); err != nil {
		tb.Fatal(err)
	}
	var event []byte
	for _, o := range others {
		var tm metav1.TypeMeta
		if json.Unmarshal(o, &tm) == nil && tm.Kind == "Event" {
			event = o
			break
		}
	}
	cr := []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"my-new-cron-object","namespace":"default","uid":"5f0c2a6e-1b8f-4d0e-8a3b-8b2c1f9e7a22","resourceVersion":"12","creationTimestamp":"2026-01-02T03:04:05Z","generation":1,"labels":{"app":"cron","tier":"batch"},"annotations":{"example.com/owner":"team-a"}},"spec":{"cronSpec":"* * * * */5","image":"my-awesome-cron-image","replicas":3,"paused":false,"schedule":{"timezone":"UTC","window":[1,2,3]},"args":["--verbose","--level=2"]},"status":{"lastRun":"2026-01-02T03:04:05Z","runs":42,"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-01-02T03:04:05Z"}]}}`)
	return []struct {
		name string
		new  func() any
		data []byte
	}{
		{"Pod", func() any { return &corev1.Pod{} }, read("pod.json")},
		{"Node", func() any { return &corev1.Node{} }, read("node.json")},
		{"Event", func() any { return &corev1.Event{} }, event},
		{"CustomResource", func() any { return &unstructured.Unstructured{} }, cr},
	}
}

var codecs = []struct {
	name      string
	marshal   func(any) ([]byte, error)
	unmarshal func([]byte, any) error
}{
	{"encoding-json", json.Marshal, json.Unmarshal},
	{"jsoncodec", jsoncodec.Marshal, jsoncodec.Unmarshal},
}

// go test -run '^$' -bench . -benchmem ./api/jsoncodec/
func BenchmarkMarshal(b *testing.B) {
	for _, o := range benchObjects(b) {
		obj := o.new()
		if err := json.Unmarshal(o.data, obj); err != nil {
			b.Fatal(err)
		}
		for _, c := range codecs {
			b.Run(o.name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.marshal(obj); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	for _, o := range benchObjects(b) {
		obj := o.new()
		if err := json.Unmarshal(o.data, obj); err != nil {
			b.Fatal(err)
		}
		data, err := json.Marshal(obj)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range codecs {
			b.Run(o.name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := c.unmarshal(data, o.new()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// A page of a list answer served from stored bytes (the API server's
// rawListJSON): 500 pods as json.RawMessage, which both codecs check and
// copy rather than encode.
func BenchmarkMarshalRawList500(b *testing.B) {
	pod := benchObjects(b)[0]
	var obj corev1.Pod
	if err := json.Unmarshal(pod.data, &obj); err != nil {
		b.Fatal(err)
	}
	raw, err := json.Marshal(&obj)
	if err != nil {
		b.Fatal(err)
	}
	list := struct {
		Kind       string            `json:"kind"`
		APIVersion string            `json:"apiVersion"`
		Metadata   metav1.ListMeta   `json:"metadata"`
		Items      []json.RawMessage `json:"items"`
	}{Kind: "PodList", APIVersion: "v1"}
	for range 500 {
		list.Items = append(list.Items, raw)
	}
	for _, c := range codecs {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.marshal(&list); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
