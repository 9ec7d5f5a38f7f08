package handlers

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/store"
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

// TestCorruptObjectFailsSafe: a stored value that does not decode does not
// hide the others from a list (it is named in a warning), a GET of it is a
// 500 naming its key, and an admin deletes it with
// ignoreStoreReadErrorWithClusterBreakingPotential=true.
func TestCorruptObjectFailsSafe(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"a", "c"} {
		e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"`+n+`","labels":{"app":"x"}},"data":{"k":"v"}}`).expect(201)
	}
	// A store hands back a damaged entry with no value (store.KeyValue's
	// contract; boltstore's checksums find the damage).
	key := "/registry/core/configmaps/default/b"
	_, err := e.store.Create(context.Background(), key, nil, store.CreateOptions{})
	require.NoError(t, err)

	for _, path := range []string{"/api/v1/namespaces/default/configmaps", "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dx", "/api/v1/configmaps?fieldSelector=metadata.name%21%3Dzz"} {
		r := e.do("GET", path, "", "").expect(200)
		items := r.obj()["items"].([]any)
		assert.Len(t, items, 2, path)
		assert.Contains(t, r.header.Get("Warning"), "corrupt object: key "+key, path)
	}
	r := e.doH("GET", "/api/v1/namespaces/default/configmaps", "", "", map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}).expect(200)
	assert.Contains(t, r.header.Get("Warning"), key)

	r = e.do("GET", "/api/v1/namespaces/default/configmaps/b", "", "")
	require.Equal(t, 500, r.code)
	assert.Contains(t, r.status().Message, "corrupt object: key "+key)

	// An ordinary delete cannot read it either; the unsafe one removes it.
	r = e.do("DELETE", "/api/v1/namespaces/default/configmaps/b", "", "")
	require.Equal(t, 500, r.code)
	assert.Contains(t, r.status().Message, "ignoreStoreReadErrorWithClusterBreakingPotential=true")
	e.do("DELETE", "/api/v1/namespaces/default/configmaps/b?ignoreStoreReadErrorWithClusterBreakingPotential=true", "", "").expect(200)
	r = e.do("GET", "/api/v1/namespaces/default/configmaps", "", "").expect(200)
	assert.Empty(t, r.header.Get("Warning"))
	assert.Len(t, r.obj()["items"].([]any), 2)
	// The option does nothing to an object that decodes: a normal delete.
	e.do("DELETE", "/api/v1/namespaces/default/configmaps/a", "application/json", `{"ignoreStoreReadErrorWithClusterBreakingPotential":true}`).expect(200)
	e.do("GET", "/api/v1/namespaces/default/configmaps/a", "", "").expect(404)
}
