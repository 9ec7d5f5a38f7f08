package openapi_test

import (
	"testing"

	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/openapi"
)

// BenchmarkSwaggerDocument builds and encodes /openapi/v2 for every
// built-in kind, as the handler does on its first request; it reports the
// sizes of the JSON and protobuf bodies.
func BenchmarkSwaggerDocument(b *testing.B) {
	rs := kinds.Builtin()
	var jsonLen, protoLen int
	for b.Loop() {
		doc, err := openapi.SwaggerDocument(rs)
		if err != nil {
			b.Fatal(err)
		}
		j, p, err := openapi.EncodeSwagger(doc)
		if err != nil {
			b.Fatal(err)
		}
		jsonLen, protoLen = len(j), len(p)
	}
	b.ReportMetric(float64(jsonLen), "json-bytes")
	b.ReportMetric(float64(protoLen), "proto-bytes")
}

// BenchmarkDocumentAppsV1 builds one v3 document (/openapi/v3/apis/apps/v1).
func BenchmarkDocumentAppsV1(b *testing.B) {
	rs := kinds.Builtin()
	var n int
	for b.Loop() {
		doc, err := openapi.Document("apps/v1", rs)
		if err != nil {
			b.Fatal(err)
		}
		n = len(doc)
	}
	b.ReportMetric(float64(n), "json-bytes")
}

// BenchmarkBuiltinSchemas makes the built-in kinds, their schemas
// generated from the Go types (schema.FromGoType), as every API server
// does once at start.
func BenchmarkBuiltinSchemas(b *testing.B) {
	for b.Loop() {
		if len(kinds.Builtin()) == 0 {
			b.Fatal("no kinds")
		}
	}
}
