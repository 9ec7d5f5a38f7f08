package handlers

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// allocated reports the bytes fn allocates: a count that a busy machine
// does not change, unlike a time.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func nestedWidget(name string, depth int) string {
	return `{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"size":1,"deep":` +
		strings.Repeat(`{"a":`, depth) + `1` + strings.Repeat(`}`, depth) + `}}`
}

// TestDeepApplyIsBounded: applying a custom resource nested 3,000 deep
// once took seconds and gigabytes (every field kept its whole path). It is
// now linear; the figure is logged and bounded per input byte.
func TestDeepApplyIsBounded(t *testing.T) {
	e := newEnv(t)
	body := nestedWidget("deep", 3000)
	var r *resp
	alloc := allocated(func() {
		r = e.do("PATCH", "/apis/lab.example.com/v1/namespaces/default/widgets/deep?fieldManager=m&fieldValidation=Ignore", "application/apply-patch+yaml", body)
	})
	r.expect(201)
	t.Logf("apply of %d bytes nested 3000 deep: %.1f MiB allocated", len(body), float64(alloc)/(1<<20))
	assert.Less(t, alloc, uint64(50<<20), "apply of a 3,000-deep object allocated %d bytes", alloc)

	// Deeper than Kubernetes' decoders go (10,000) is refused, not walked.
	before := e.store.Revision()
	r = e.do("PATCH", "/apis/lab.example.com/v1/namespaces/default/widgets/deeper?fieldManager=m", "application/apply-patch+yaml", nestedWidget("deeper", 10001))
	require.Equal(t, 400, r.code, "%s", r.body)
	assert.Contains(t, r.status().Message, "exceeded max depth")
	r = e.do("POST", "/apis/lab.example.com/v1/namespaces/default/widgets", "application/json", nestedWidget("deeper", 10001))
	require.Equal(t, 400, r.code, "%s", r.body)
	assert.Contains(t, r.status().Message, "exceeded max depth")
	assert.Equal(t, before, e.store.Revision(), "refused writes changed nothing")
}

// TestPatchOutputIsBounded: no patch type can make an object larger than
// the registry stores, and a JSON patch cannot copy its way there.
func TestPatchOutputIsBounded(t *testing.T) {
	e := newEnv(t)
	e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"c"},"data":{"a":"`+strings.Repeat("x", 1000)+`"}}`).expect(201)
	before := e.store.Revision()

	var ops []string
	for i := range 21 {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/data","path":"/metadata/annotations"},{"op":"copy","from":"/metadata/annotations","path":"/data/c%d"}`, i))
	}
	r := e.do("PATCH", "/api/v1/namespaces/default/configmaps/c", "application/json-patch+json", "["+strings.Join(ops, ",")+"]")
	require.Equal(t, 422, r.code, "%s", r.body)
	assert.Contains(t, r.status().Message, "Unable to complete the copy, the accumulated size increase of copy is")

	r = e.do("PATCH", "/api/v1/namespaces/default/configmaps/c", "application/strategic-merge-patch+json", `{"data":{"$patch":"bogus"}}`)
	require.Equal(t, 422, r.code, "%s", r.body)
	assert.Contains(t, r.status().Message, "unknown patch type: bogus")
	assert.Equal(t, before, e.store.Revision(), "refused patches changed nothing")

	// A merge patch under the body limit cannot take an object past what
	// the registry stores (MaxObjectBytes).
	e.h.MaxBodyBytes = 4 << 20
	e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"big"},"data":{"a":"`+strings.Repeat("x", registry.MaxObjectBytes-40*1024)+`"}}`).expect(201)
	e.h.MaxBodyBytes = 64 << 10
	before = e.store.Revision()
	r = e.do("PATCH", "/api/v1/namespaces/default/configmaps/big", "application/merge-patch+json", `{"data":{"b":"`+strings.Repeat("y", 60*1024)+`"}}`)
	require.Equal(t, 413, r.code, "%s", r.body)
	assert.Equal(t, "Request entity too large: limit is 3145728", r.status().Message)
	assert.Equal(t, before, e.store.Revision(), "the refused patch changed nothing")
}
