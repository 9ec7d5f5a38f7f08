package handlers

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/protobuf"
)

// The Accept headers client-go's metadata client sends (k8s.io/client-go/
// metadata), for an object and a watch, and for a list.
const (
	metaAccept     = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	metaListAccept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	metaJSON       = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	metaListJSON   = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
	widgetsPath    = "/apis/lab.example.com/v1/namespaces/default/widgets"
)

func accept(v string) map[string]string { return map[string]string{"Accept": v} }

// metadataEnv has a ConfigMap and a Widget (a custom resource) with labels
// and data beyond their metadata.
func metadataEnv(t *testing.T) *testEnv {
	e := newEnv(t)
	e.do("POST", cmPath, "", `{"metadata":{"name":"a","labels":{"app":"web"},"annotations":{"note":"x"}},"data":{"k":"v"}}`).expect(201)
	e.do("POST", cmPath, "", `{"metadata":{"name":"b"},"data":{"k":"w"}}`).expect(201)
	e.do("POST", widgetsPath, "", `{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"app":"web"}},"spec":{"size":3}}`).expect(201)
	return e
}

// GET with as=PartialObjectMetadata answers the object's metadata alone,
// in JSON or protobuf, for built-in kinds and custom resources alike (a
// custom resource has no protobuf form, its metadata has).
func TestPartialObjectMetadataGet(t *testing.T) {
	e := metadataEnv(t)
	full := e.do("GET", cmPath+"/a", "", "").expect(200).obj()

	got := e.doH("GET", cmPath+"/a", "", "", accept(metaJSON)).expect(200)
	assert.Equal(t, "application/json", got.header.Get("Content-Type"))
	m := got.obj()
	assert.Equal(t, map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": full["metadata"]}, m)

	beta := e.doH("GET", cmPath+"/a", "", "", accept("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1")).expect(200).obj()
	assert.Equal(t, "meta.k8s.io/v1beta1", beta["apiVersion"])

	for _, path := range []string{cmPath + "/a", widgetsPath + "/w"} {
		r := e.doH("GET", path, "", "", accept(metaAccept)).expect(200)
		p := decodePB[metav1.PartialObjectMetadata](t, r)
		assert.Equal(t, "PartialObjectMetadata", p.Kind, path)
		assert.Equal(t, "meta.k8s.io/v1", p.APIVersion, path)
		assert.Equal(t, "web", p.Labels["app"], path)
		assert.NotEmpty(t, p.UID, path)
		assert.NotEmpty(t, p.ResourceVersion, path)
	}
	// A custom resource asked in JSON: its metadata, not its spec.
	w := e.doH("GET", widgetsPath+"/w", "", "", accept(metaJSON)).expect(200).obj()
	assert.Equal(t, "PartialObjectMetadata", w["kind"])
	assert.NotContains(t, w, "spec")
	assert.Equal(t, "w", get(w, "metadata", "name"))

	// The scale subresource's metadata.
	e.do("POST", "/apis/apps/v1/namespaces/default/deployments", "", `{"metadata":{"name":"d"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`).expect(201)
	sc := e.doH("GET", "/apis/apps/v1/namespaces/default/deployments/d/scale", "", "", accept(metaJSON)).expect(200).obj()
	assert.Equal(t, "PartialObjectMetadata", sc["kind"])
	assert.Equal(t, "d", get(sc, "metadata", "name"))
}

// LIST with as=PartialObjectMetadataList answers a PartialObjectMetadataList
// whose items are PartialObjectMetadata, with the list's resourceVersion and
// continue token; selectors and paging apply.
func TestPartialObjectMetadataList(t *testing.T) {
	e := metadataEnv(t)
	l := e.doH("GET", cmPath, "", "", accept(metaListJSON)).expect(200).obj()
	assert.Equal(t, "PartialObjectMetadataList", l["kind"])
	assert.Equal(t, "meta.k8s.io/v1", l["apiVersion"])
	assert.NotEmpty(t, get(l, "metadata", "resourceVersion"))
	items := l["items"].([]any)
	require.Len(t, items, 2)
	first := items[0].(map[string]any)
	assert.Equal(t, "PartialObjectMetadata", first["kind"])
	assert.Equal(t, "meta.k8s.io/v1", first["apiVersion"])
	assert.Equal(t, "a", get(first, "metadata", "name"))
	assert.NotContains(t, first, "data")

	paged := e.doH("GET", cmPath+"?limit=1", "", "", accept(metaListJSON)).expect(200).obj()
	assert.Len(t, paged["items"], 1)
	assert.NotEmpty(t, get(paged, "metadata", "continue"))
	sel := e.doH("GET", cmPath+"?labelSelector=app%3Dweb", "", "", accept(metaListJSON)).expect(200).obj()
	assert.Len(t, sel["items"], 1)

	for _, path := range []string{cmPath, widgetsPath} {
		r := e.doH("GET", path, "", "", accept(metaListAccept)).expect(200)
		require.Equal(t, pbType, r.header.Get("Content-Type"), path)
		var list metav1.PartialObjectMetadataList
		_, kind, err := protobuf.Decode(r.body, &list)
		require.NoError(t, err, path)
		assert.Equal(t, "PartialObjectMetadataList", kind, path)
		assert.NotEmpty(t, list.ResourceVersion, path)
		require.NotEmpty(t, list.Items, path)
		assert.NotEmpty(t, list.Items[0].Name, path)
	}
}

// The shapes that cannot be: a PartialObjectMetadata of a list, a
// PartialObjectMetadataList of an object, a meta group Kubernetes does not
// have. The answer is 406, as kube-apiserver words it, and a write asked
// in the wrong shape writes nothing.
func TestPartialObjectMetadataNotAcceptable(t *testing.T) {
	e := metadataEnv(t)
	st := e.doH("GET", cmPath, "", "", accept(metaJSON)).expect(406).status()
	assert.Equal(t, metav1.StatusReasonNotAcceptable, st.Reason)
	assert.Equal(t, "you requested PartialObjectMetadata, but the requested object is a list (*v1.ConfigMapList)", st.Message)
	st = e.doH("GET", cmPath+"/a", "", "", accept(metaListJSON)).expect(406).status()
	assert.Equal(t, "you requested PartialObjectMetadataList, but the requested object is not a list (*v1.ConfigMap)", st.Message)
	st = e.doH("GET", widgetsPath+"/w", "", "", accept(metaListJSON)).expect(406).status()
	assert.Equal(t, "you requested PartialObjectMetadataList, but the requested object is not a list (*unstructured.Unstructured)", st.Message)
	st = e.doH("GET", widgetsPath, "", "", accept(metaJSON)).expect(406).status()
	assert.Equal(t, "you requested PartialObjectMetadata, but the requested object is a list (*unstructured.UnstructuredList)", st.Message)

	st = e.doH("GET", cmPath+"/a", "", "", accept("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2")).expect(406).status()
	assert.Equal(t, "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf", st.Message)
	e.doH("GET", cmPath+"/a", "", "", accept("application/json;as=PartialObjectMetadata;g=apps;v=v1")).expect(406)
	// A Table is JSON only; PartialObjectMetadata may be protobuf.
	e.doH("GET", cmPath+"/a", "", "", accept("application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1")).expect(406)

	before := e.store.Revision()
	e.doH("POST", cmPath, "", `{"metadata":{"name":"n"}}`, accept(metaListJSON)).expect(406)
	e.doH("DELETE", cmPath+"?labelSelector=app%3Dweb", "", "", accept(metaJSON)).expect(406)
	assert.Equal(t, before, e.store.Revision(), "nothing written")
	e.do("GET", cmPath+"/n", "", "").expect(404)
}

// A write asked for PartialObjectMetadata answers the written object's
// metadata, as kube-apiserver transforms every answer.
func TestPartialObjectMetadataWrites(t *testing.T) {
	e := metadataEnv(t)
	c := e.doH("POST", cmPath, "", `{"metadata":{"name":"n","labels":{"x":"y"}},"data":{"k":"v"}}`, accept(metaJSON)).expect(201).obj()
	assert.Equal(t, "PartialObjectMetadata", c["kind"])
	assert.Equal(t, "y", get(c, "metadata", "labels", "x"))
	assert.NotContains(t, c, "data")
	p := e.doH("PATCH", cmPath+"/n", "application/merge-patch+json", `{"metadata":{"labels":{"x":"z"}}}`, accept(metaAccept)).expect(200)
	assert.Equal(t, "z", decodePB[metav1.PartialObjectMetadata](t, p).Labels["x"])
	d := e.doH("DELETE", cmPath+"?labelSelector=x%3Dz", "", "", accept(metaListJSON)).expect(200).obj()
	assert.Equal(t, "PartialObjectMetadataList", d["kind"])
	assert.Len(t, d["items"], 1)
}

// A watch with as=PartialObjectMetadata carries PartialObjectMetadata
// objects in its events, bookmarks included, in JSON and protobuf, for
// custom resources too: what a metadata informer keeps.
func TestPartialObjectMetadataWatch(t *testing.T) {
	e := metadataEnv(t)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(path, acceptHeader string) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
		req.Header.Set("Accept", acceptHeader)
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { res.Body.Close() })
		require.Equal(t, 200, res.StatusCode)
		return res
	}

	// JSON, as a watch-list: the state, its bookmark, then a change.
	res := open(cmPath+"?"+watchList, metaJSON)
	assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
	events := make(chan map[string]any, 16)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				events <- ev
			}
		}
	}()
	for _, want := range []string{"ADDED a", "ADDED b"} {
		ev := nextLong(t, events)
		assert.Equal(t, want, eventLine(ev))
		assert.Equal(t, "PartialObjectMetadata", get(ev, "object", "kind"))
		assert.Equal(t, "meta.k8s.io/v1", get(ev, "object", "apiVersion"))
		assert.Nil(t, get(ev, "object", "data"))
	}
	bm := nextLong(t, events)
	assert.Equal(t, "BOOKMARK", bm["type"])
	assert.Equal(t, "PartialObjectMetadata", get(bm, "object", "kind"))
	assert.Equal(t, "true", get(bm, "object", "metadata", "annotations", "k8s.io/initial-events-end"))
	e.do("PATCH", cmPath+"/a", "application/merge-patch+json", `{"metadata":{"labels":{"app":"api"}}}`).expect(200)
	ev := nextLong(t, events)
	assert.Equal(t, "MODIFIED a", eventLine(ev))
	assert.Equal(t, "api", get(ev, "object", "metadata", "labels", "app"))

	// Protobuf, for a custom resource.
	res = open(widgetsPath+"?watch=true", metaAccept)
	assert.Equal(t, "application/vnd.kubernetes.protobuf;stream=watch", res.Header.Get("Content-Type"))
	msg, err := protobuf.ReadFrame(res.Body)
	require.NoError(t, err)
	typ, object, err := protobuf.DecodeWatchEvent(msg)
	require.NoError(t, err)
	assert.Equal(t, "ADDED", typ)
	var p metav1.PartialObjectMetadata
	_, kind, err := protobuf.Decode(object, &p)
	require.NoError(t, err)
	assert.Equal(t, "PartialObjectMetadata", kind)
	assert.Equal(t, "w", p.Name)
	assert.Equal(t, "web", p.Labels["app"])
}
