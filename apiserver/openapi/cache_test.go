package openapi

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// Callers of one build that arrive while it runs wait for it and share
// its result; a failure is shared too, and a panic leaves an error, not
// an empty value.
func TestOnceBuildsOnceForConcurrentCallers(t *testing.T) {
	var o once[[]byte]
	var builds atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	results := make([][]byte, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = o.get(func() ([]byte, error) {
				builds.Add(1)
				<-release
				return []byte("doc"), nil
			})
		}()
	}
	close(release)
	wg.Wait()
	assert.Equal(t, int32(1), builds.Load())
	for _, r := range results {
		assert.Equal(t, "doc", string(r))
	}

	var failing once[int]
	boom := errors.New("boom")
	_, err := failing.get(func() (int, error) { return 0, boom })
	assert.Equal(t, boom, err)
	_, err = failing.get(func() (int, error) { return 1, nil })
	assert.Equal(t, boom, err, "the same inputs are not built again")

	var panicking once[[]byte]
	assert.Panics(t, func() { _, _ = panicking.get(func() ([]byte, error) { panic("bug") }) })
	body, err := panicking.get(func() ([]byte, error) { return []byte("late"), nil })
	assert.ErrorIs(t, err, errBuildFailed)
	assert.Nil(t, body)
}

// Concurrent requests for one group-version get one document to build,
// and the index, that group-version and /openapi/v2 asked at once on a
// new handler (what kubectl does when it gives up waiting for the index)
// all answer from it.
func TestHandlerSharesBuildsBetweenConcurrentRequests(t *testing.T) {
	rs := kinds.Builtin()
	h := NewHandler(func() []*registry.Resource { return rs })
	appsV1 := schema.GroupVersion{Group: "apps", Version: "v1"}

	docs := make([]*groupVersionDoc, 8)
	var wg sync.WaitGroup
	for i := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			docs[i] = h.groupVersion(appsV1, rs)
		}()
	}
	wg.Wait()
	for _, d := range docs {
		assert.Same(t, docs[0], d)
	}

	bodies := make([]string, 6)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 3 {
			case 0:
				_, bodies[i] = serve(t, h, "GET", "/openapi/v3")
			case 1:
				_, bodies[i] = serve(t, h, "GET", "/openapi/v3/apis/apps/v1")
			case 2:
				_, bodies[i] = serve(t, h, "GET", "/openapi/v2", "Accept", SwaggerProtoContentTypeDeprecated)
			}
		}()
	}
	wg.Wait()
	for i := range bodies {
		assert.Equal(t, bodies[i%3], bodies[i])
	}
	assert.Same(t, docs[0], h.groupVersions[appsV1], "the first build stayed cached")
	doc, err := docs[0].document()
	require.NoError(t, err)
	assert.Equal(t, string(doc.body), bodies[1])
}

// /openapi/v2 is encoded only as asked: client-go's protobuf request
// leaves JSON unbuilt, in the whole document and in every group-version's
// part.
func TestSwaggerEncodesOnlyWhatIsAsked(t *testing.T) {
	rs := testResources()
	h := NewHandler(func() []*registry.Resource { return rs })
	res, _ := serve(t, h, "GET", "/openapi/v2", "Accept", SwaggerProtoContentTypeDeprecated)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.NotNil(t, h.v2)
	assert.NotNil(t, h.v2.proto.value)
	assert.Nil(t, h.v2.json.value, "no JSON asked for")
	for _, d := range h.v2.parts {
		assert.NotNil(t, d.v2Proto.value.definitions, d.gv)
		assert.Nil(t, d.v2JSON.value.definitions, d.gv)
	}

	res, _ = serve(t, h, "GET", "/openapi/v2", "Accept", "application/json")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.NotNil(t, h.v2.json.value)
}

// A CRD change rebuilds only its group-version: the v2 document is put
// together again from the other group-versions' parts as they were.
func TestSwaggerRebuildsOnlyTheChangedGroupVersion(t *testing.T) {
	rs := testResources()
	h := NewHandler(func() []*registry.Resource { return rs })
	_, before := serve(t, h, "GET", "/openapi/v2", "Accept", "application/json")
	parts := map[schema.GroupVersion]*groupVersionDoc{}
	for _, d := range h.v2.parts {
		parts[d.gv] = d
	}

	rs[3] = &registry.Resource{Group: "lab.example.com", Version: "v1", Name: "widgets", Kind: "Widget", Namespaced: true,
		New:    func() api.Object { return &unstructured.Unstructured{} },
		Schema: &api.JSONSchemaProps{Type: "object", Description: "the widget, second edition"}}
	_, after := serve(t, h, "GET", "/openapi/v2", "Accept", "application/json")
	assert.NotContains(t, before, "second edition")
	assert.Contains(t, after, "second edition")
	for _, d := range h.v2.parts {
		if d.gv == (schema.GroupVersion{Group: "lab.example.com", Version: "v1"}) {
			assert.NotSame(t, parts[d.gv], d)
			continue
		}
		assert.Same(t, parts[d.gv], d, d.gv)
	}
}

// The document spliced from the group-versions' parts is the one encoding
// SwaggerDocument whole gives, in both encodings.
func TestSwaggerSplicedIsTheWholeDocument(t *testing.T) {
	rs := append(kinds.Builtin(), testResources()[3:]...)
	doc, err := SwaggerDocument(rs)
	require.NoError(t, err)
	wantJSON, wantProto, err := EncodeSwagger(doc)
	require.NoError(t, err)
	h := NewHandler(func() []*registry.Resource { return rs })
	_, gotProto := serve(t, h, "GET", "/openapi/v2", "Accept", SwaggerProtoContentTypeDeprecated)
	_, gotJSON := serve(t, h, "GET", "/openapi/v2", "Accept", "application/json")
	assert.True(t, string(wantJSON) == gotJSON, "the JSON differs")
	assert.True(t, string(wantProto) == gotProto, "the protobuf differs")
}

// Build builds every group-version's v3 document ahead, which the index
// then serves without building; a cancelled Build builds nothing.
func TestBuildAhead(t *testing.T) {
	rs := testResources()
	h := NewHandler(func() []*registry.Resource { return rs })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, h.Build(ctx), context.Canceled)
	assert.Empty(t, h.groupVersions)

	require.NoError(t, h.Build(context.Background()))
	require.Len(t, h.groupVersions, len(GroupVersions(rs)))
	built := map[schema.GroupVersion][]byte{}
	for gv, d := range h.groupVersions {
		require.NotNil(t, d.v3.value.body, gv)
		built[gv] = d.v3.value.body
	}
	_, body := serve(t, h, "GET", "/openapi/v3")
	idx, err := Index(rs)
	require.NoError(t, err)
	assert.Contains(t, body, idx.Paths["apis/apps/v1"].ServerRelativeURL)
	for gv, d := range h.groupVersions {
		assert.Same(t, &built[gv][0], &d.v3.value.body[0], "%s served as built ahead", gv)
	}
}
