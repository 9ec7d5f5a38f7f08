package handlers

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// BenchmarkDecodePod decodes a typical pod body through the fast path.
func BenchmarkDecodePod(b *testing.B) {
	res := &registry.Resource{Version: "v1", Name: "pods", Kind: "Pod",
		New: func() api.Object { return &corev1.Pod{} }, Schema: schema.FromGoType(reflect.TypeOf(corev1.Pod{}))}
	body := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"default","labels":{"app":"web","tier":"frontend"},"annotations":{"a":"b"}},"spec":{"nodeName":"node-1","containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"200m","memory":"256Mi"}},"env":[{"name":"A","value":"1"}]}]}}`)
	d := &decoder{res: res, validation: "Warn", fast: &decodeCache{}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.decode(body); err != nil {
			b.Fatal(err)
		}
	}
}
