package openapi_test

import (
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/openapi"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// firstGet answers one request with a new handler: the first request of
// an API server, which builds what it asks for.
func firstGet(b *testing.B, h http.Handler, path, accept string) int {
	b.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
	return rec.Body.Len()
}

// loop runs f as the benchmark's body and reports the CPU the process
// spent per run (ms-cpu/op) beside the wall time: on a shared machine the
// wall time stretches with the load, the CPU much less.
func loop(b *testing.B, f func()) {
	start, n := processCPU(), 0
	for b.Loop() {
		f()
		n++
	}
	b.ReportMetric(float64((processCPU()-start).Microseconds())/1000/float64(n), "ms-cpu/op")
}

// processCPU is the CPU time this process has used (user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSwaggerDocument builds /openapi/v2 for every built-in kind and
// encodes it as protobuf and as JSON, as a new handler does on the first
// request for each; it reports the sizes of the two bodies.
func BenchmarkSwaggerDocument(b *testing.B) {
	rs := kinds.Builtin()
	var jsonLen, protoLen int
	loop(b, func() {
		h := openapi.NewHandler(func() []*registry.Resource { return rs })
		protoLen = firstGet(b, h, "/openapi/v2", clientGoAccept)
		jsonLen = firstGet(b, h, "/openapi/v2", "application/json")
	})
	b.ReportMetric(float64(jsonLen), "json-bytes")
	b.ReportMetric(float64(protoLen), "proto-bytes")
}

// BenchmarkSwaggerDocumentProtobuf is the first /openapi/v2 of client-go
// (kubectl, helm), which asks for protobuf alone.
func BenchmarkSwaggerDocumentProtobuf(b *testing.B) {
	rs := kinds.Builtin()
	var protoLen int
	loop(b, func() {
		h := openapi.NewHandler(func() []*registry.Resource { return rs })
		protoLen = firstGet(b, h, "/openapi/v2", clientGoAccept)
	})
	b.ReportMetric(float64(protoLen), "proto-bytes")
}

// BenchmarkIndex is the first /openapi/v3, kubectl's first request before
// apply, create or explain: it builds every group-version's document to
// hash it.
func BenchmarkIndex(b *testing.B) {
	rs := kinds.Builtin()
	loop(b, func() {
		h := openapi.NewHandler(func() []*registry.Resource { return rs })
		firstGet(b, h, "/openapi/v3", "")
	})
}

// BenchmarkDocumentAppsV1 builds one v3 document (/openapi/v3/apis/apps/v1).
func BenchmarkDocumentAppsV1(b *testing.B) {
	rs := kinds.Builtin()
	var n int
	loop(b, func() {
		doc, err := openapi.Document("apps/v1", rs)
		if err != nil {
			b.Fatal(err)
		}
		n = len(doc)
	})
	b.ReportMetric(float64(n), "json-bytes")
}

// BenchmarkBuiltinSchemas makes the built-in kinds, their schemas
// generated from the Go types (schema.FromGoType), as every API server
// does once at start.
func BenchmarkBuiltinSchemas(b *testing.B) {
	loop(b, func() {
		if len(kinds.Builtin()) == 0 {
			b.Fatal("no kinds")
		}
	})
}
