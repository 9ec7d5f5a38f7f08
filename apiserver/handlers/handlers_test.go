package handlers

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

// widgetSchema is a custom resource schema like the reference's Widget.
func widgetSchema() *api.JSONSchemaProps {
	var s api.JSONSchemaProps
	must(json.Unmarshal([]byte(`{"type":"object","properties":{
		"spec":{"type":"object","properties":{
			"size":{"type":"integer","minimum":1,"maximum":10},
			"color":{"type":"string"},
			"replicas":{"type":"integer"}}},
		"status":{"type":"object","properties":{
			"replicas":{"type":"integer"},"selector":{"type":"string"},"phase":{"type":"string"}}}}}`), &s))
	return &s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// widgetStrategy validates widgets against their schema.
type widgetStrategy struct{ registry.DefaultStrategy }

func (widgetStrategy) Validate(obj api.Object) field.ErrorList {
	m, _ := obj.(*unstructured.Unstructured).ToMap()
	return schema.Validate(widgetSchema(), m, nil)
}

func (w widgetStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList { return w.Validate(obj) }

type testEnv struct {
	t     *testing.T
	h     *Handler
	store store.Interface
	clock *clock.Fake
}

func newEnv(t *testing.T) *testEnv {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName)})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ids := registry.NewIDs(rand.Reader)
	resources := []*registry.Resource{
		{Version: "v1", Name: "namespaces", Kind: "Namespace", ListKind: "NamespaceList",
			New: func() api.Object { return &corev1.Namespace{} }, Schema: schema.FromGoType(reflect.TypeOf(corev1.Namespace{})),
			StrategicMergePatch: true},
		{Version: "v1", Name: "configmaps", Kind: "ConfigMap", ListKind: "ConfigMapList", Namespaced: true,
			New: func() api.Object { return &corev1.ConfigMap{} }, Schema: schema.FromGoType(reflect.TypeOf(corev1.ConfigMap{})),
			StrategicMergePatch: true},
		{Group: "apps", Version: "v1", Name: "deployments", Kind: "Deployment", ListKind: "DeploymentList", Namespaced: true,
			New: func() api.Object { return &appsv1.Deployment{} }, Schema: schema.FromGoType(reflect.TypeOf(appsv1.Deployment{})),
			StrategicMergePatch: true, Scale: &registry.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}},
		{Group: "lab.example.com", Version: "v1", Name: "widgets", Kind: "Widget", ListKind: "WidgetList", Namespaced: true,
			New: func() api.Object { return &unstructured.Unstructured{} }, Schema: widgetSchema(),
			Strategy: widgetStrategy{}, StatusSubresource: true, Generation: registry.SpecGeneration(),
			Scale: &registry.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"}},
	}
	stores := map[string]*registry.Store{}
	lifecycle := &admission.NamespaceLifecycle{Get: func(ctx context.Context, name string) (*corev1.Namespace, error) {
		obj, err := stores["/v1/namespaces"].Get(ctx, "", name)
		if err != nil {
			return nil, err
		}
		return obj.(*corev1.Namespace), nil
	}}
	for _, r := range resources {
		s, err := registry.NewStore(registry.Config{Resource: r, Storage: st, Clock: clk, IDs: ids, Admission: admission.Chain{lifecycle}})
		require.NoError(t, err)
		stores[r.Group+"/"+r.Version+"/"+r.Name] = s
	}
	lookup := func(g, v, r string) (*registry.Store, bool) { s, ok := stores[g+"/"+v+"/"+r]; return s, ok }
	env := &testEnv{t: t, h: &Handler{Lookup: lookup, Clock: clk, MaxBodyBytes: 64 * 1024}, store: st, clock: clk}
	env.do("POST", "/api/v1/namespaces", "", `{"metadata":{"name":"default"}}`).expect(201)
	return env
}

type resp struct {
	t      *testing.T
	code   int
	header http.Header
	body   []byte
}

func (e *testEnv) doH(method, path, contentType, body string, header map[string]string) *resp {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return &resp{t: e.t, code: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

func (e *testEnv) do(method, path, contentType, body string) *resp {
	return e.doH(method, path, contentType, body, nil)
}

func (r *resp) expect(code int) *resp {
	r.t.Helper()
	require.Equal(r.t, code, r.code, "body: %s", r.body)
	return r
}

func (r *resp) obj() map[string]any {
	r.t.Helper()
	m, err := unstructured.DecodeMap(r.body)
	require.NoError(r.t, err, "%s", r.body)
	return m
}

func (r *resp) status() metav1.Status {
	r.t.Helper()
	var st metav1.Status
	require.NoError(r.t, json.Unmarshal(r.body, &st))
	require.Equal(r.t, "Status", st.Kind)
	return st
}

func get(m map[string]any, path ...string) any {
	v, _ := unstructured.NestedField(m, path...)
	return v
}

func TestCreateGetAndAlreadyExists(t *testing.T) {
	e := newEnv(t)
	created := e.do("POST", "/api/v1/namespaces/default/configmaps", "application/json",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"app":"x"}},"data":{"k":"v"}}`).expect(201).obj()
	assert.NotEmpty(t, get(created, "metadata", "uid"))
	assert.Equal(t, "2026-01-01T00:00:00Z", get(created, "metadata", "creationTimestamp"))
	assert.NotEmpty(t, get(created, "metadata", "resourceVersion"))
	assert.Equal(t, "default", get(created, "metadata", "namespace"))

	got := e.do("GET", "/api/v1/namespaces/default/configmaps/a", "", "").expect(200).obj()
	assert.Equal(t, created, got)

	st := e.do("POST", "/api/v1/namespaces/default/configmaps", "application/json",
		`{"metadata":{"name":"a"}}`).expect(409).status()
	assert.Equal(t, metav1.StatusReasonAlreadyExists, st.Reason)
	assert.Equal(t, `configmaps "a" already exists`, st.Message)

	st = e.do("GET", "/api/v1/namespaces/default/configmaps/nope", "", "").expect(404).status()
	assert.Equal(t, `configmaps "nope" not found`, st.Message)

	// YAML bodies work too.
	e.do("POST", "/api/v1/namespaces/default/configmaps", "application/yaml", "metadata:\n  name: y\ndata:\n  k: v\n").expect(201)
}

func TestGenerateName(t *testing.T) {
	e := newEnv(t)
	o := e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"generateName":"web-"}}`).expect(201).obj()
	name := get(o, "metadata", "name").(string)
	assert.Regexp(t, `^web-[bcdfghjklmnpqrstvwxz2456789]{5}$`, name)
}

func TestBadInputChangesNothing(t *testing.T) {
	e := newEnv(t)
	before := e.store.Revision()
	cases := []struct {
		name, method, path, ct, body string
		code                         int
		reason                       metav1.StatusReason
		msg                          string
	}{
		{"malformed json", "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"metadata":`, 400, metav1.StatusReasonBadRequest, "couldn't get version/kind; json parse error"},
		{"not an object", "POST", "/api/v1/namespaces/default/configmaps", "application/json", `[1,2]`, 400, metav1.StatusReasonBadRequest, "json parse error"},
		{"wrong kind", "POST", "/api/v1/namespaces/default/configmaps", "", `{"kind":"Secret","metadata":{"name":"x"}}`, 400, metav1.StatusReasonBadRequest, "must be of type ConfigMap"},
		{"wrong apiVersion", "POST", "/api/v1/namespaces/default/configmaps", "", `{"apiVersion":"apps/v1","metadata":{"name":"x"}}`, 400, metav1.StatusReasonBadRequest, "the API version in the data (apps/v1) does not match the expected API version (v1)"},
		{"namespace mismatch", "POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"x","namespace":"other"}}`, 400, metav1.StatusReasonBadRequest, "the namespace of the provided object does not match the namespace sent on the request"},
		{"missing name", "POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{}}`, 422, metav1.StatusReasonInvalid, "metadata.name: Required value: name or generateName is required"},
		{"bad name", "POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"Bad_Name"}}`, 422, metav1.StatusReasonInvalid, `metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`},
		{"missing namespace", "POST", "/api/v1/namespaces/nope/configmaps", "", `{"metadata":{"name":"x"}}`, 404, metav1.StatusReasonNotFound, `namespaces "nope" not found`},
		{"strict unknown field", "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", "", `{"metadata":{"name":"x"},"spec":{"a":1}}`, 400, metav1.StatusReasonBadRequest, `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"`},
		{"bad fieldValidation", "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Loud", "", `{"metadata":{"name":"x"}}`, 400, metav1.StatusReasonBadRequest, "fieldValidation"},
		{"unsupported media type", "POST", "/api/v1/namespaces/default/configmaps", "text/plain", `hi`, 415, metav1.StatusReasonUnsupportedMediaType, "unknown format"},
		{"too large", "POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"x"},"data":{"k":"` + strings.Repeat("a", 70*1024) + `"}}`, 413, metav1.StatusReasonRequestEntityTooLarge, "Request entity too large"},
		{"garbage path", "GET", "/api/v1/namespaces/default/nothings", "", "", 404, metav1.StatusReasonNotFound, "the server could not find the requested resource"},
		{"bad subresource", "GET", "/api/v1/namespaces/default/configmaps/a/status", "", "", 404, metav1.StatusReasonNotFound, "could not find"},
		{"bad label selector", "GET", "/api/v1/namespaces/default/configmaps?labelSelector=a+in+b", "", "", 400, metav1.StatusReasonBadRequest, "unable to parse requirement"},
		{"unknown field selector", "GET", "/api/v1/namespaces/default/configmaps?fieldSelector=spec.foo%3Dbar", "", "", 400, metav1.StatusReasonBadRequest, "field label not supported: spec.foo"},
		{"bad patch type", "PATCH", "/api/v1/namespaces/default/configmaps/a", "application/xml", `<a/>`, 415, metav1.StatusReasonUnsupportedMediaType, "application/json-patch+json"},
		{"empty body", "POST", "/api/v1/namespaces/default/configmaps", "", ``, 400, metav1.StatusReasonBadRequest, "empty"},
		{"bad continue", "GET", "/api/v1/namespaces/default/configmaps?limit=1&continue=zzz", "", "", 400, metav1.StatusReasonBadRequest, "continue key is not valid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(c.method, c.path, c.ct, c.body)
			require.Equal(t, c.code, r.code, "%s", r.body)
			st := r.status()
			assert.Equal(t, c.reason, st.Reason)
			assert.Contains(t, st.Message, c.msg)
			assert.Equal(t, int32(c.code), st.Code)
		})
	}
	assert.Equal(t, before, e.store.Revision(), "bad input changed nothing")
}

func TestUnknownFieldsWarnByDefaultAndDropUnderIgnore(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"w"},"bogus":1}`).expect(201)
	assert.Equal(t, `299 - "unknown field \"bogus\""`, r.header.Get("Warning"))
	assert.NotContains(t, r.obj(), "bogus")
	r = e.do("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Ignore", "", `{"metadata":{"name":"i"},"bogus":1}`).expect(201)
	assert.Empty(t, r.header.Get("Warning"))
}

func TestListSelectorsAndPaging(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"a", "b", "c", "d"} {
		app := "web"
		if n == "d" {
			app = "db"
		}
		e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"`+n+`","labels":{"app":"`+app+`"}}}`).expect(201)
	}
	names := func(r *resp) []string {
		var out []string
		for _, it := range r.obj()["items"].([]any) {
			out = append(out, get(it.(map[string]any), "metadata", "name").(string))
		}
		return out
	}
	l := e.do("GET", "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb", "", "").expect(200)
	assert.Equal(t, []string{"a", "b", "c"}, names(l))
	assert.Equal(t, "ConfigMapList", l.obj()["kind"])
	assert.Equal(t, []string{"d"}, names(e.do("GET", "/api/v1/namespaces/default/configmaps?labelSelector=app+notin+(web)", "", "")))
	assert.Equal(t, []string{"b"}, names(e.do("GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Db", "", "")))

	p1 := e.do("GET", "/api/v1/namespaces/default/configmaps?limit=2&labelSelector=app%3Dweb", "", "").expect(200)
	assert.Equal(t, []string{"a", "b"}, names(p1))
	cont := get(p1.obj(), "metadata", "continue").(string)
	require.NotEmpty(t, cont)
	p2 := e.do("GET", "/api/v1/namespaces/default/configmaps?limit=2&labelSelector=app%3Dweb&continue="+cont, "", "").expect(200)
	assert.Equal(t, []string{"c"}, names(p2))
	assert.Nil(t, get(p2.obj(), "metadata", "continue"))
}

// Every page of a list shows the first page's snapshot, as etcd's range
// reads at the first page's revision give kube-apiserver: an object
// deleted between two pages is still in page 2 as it was, one changed
// since keeps its old data and resourceVersion, one created since is not
// there. Once that revision is compacted the token answers 410 Expired
// with a token in the Status that goes on, inconsistently, at the latest
// revision.
func TestContinueServesTheFirstPagesSnapshot(t *testing.T) {
	e := newEnv(t)
	cms := "/api/v1/namespaces/default/configmaps"
	was := map[string]map[string]any{}
	for _, n := range []string{"a", "b", "c", "d"} {
		was[n] = e.do("POST", cms, "", `{"metadata":{"name":"`+n+`"},"data":{"v":"1"}}`).expect(201).obj()
	}
	names := func(r *resp) []string {
		var out []string
		for _, it := range r.obj()["items"].([]any) {
			out = append(out, get(it.(map[string]any), "metadata", "name").(string))
		}
		return out
	}
	p1 := e.do("GET", cms+"?limit=2", "", "").expect(200)
	assert.Equal(t, []string{"a", "b"}, names(p1))
	rv := get(p1.obj(), "metadata", "resourceVersion")
	cont := get(p1.obj(), "metadata", "continue").(string)

	e.do("DELETE", cms+"/c", "", "").expect(200)
	e.do("PATCH", cms+"/d", "application/merge-patch+json", `{"data":{"v":"2"}}`).expect(200)
	e.do("POST", cms, "", `{"metadata":{"name":"bb"}}`).expect(201)

	p2 := e.do("GET", cms+"?limit=2&continue="+url.QueryEscape(cont), "", "").expect(200)
	assert.Equal(t, []string{"c", "d"}, names(p2), "the deleted object is still there, the created one not yet")
	assert.Equal(t, rv, get(p2.obj(), "metadata", "resourceVersion"), "page 2 is at page 1's revision")
	assert.Nil(t, get(p2.obj(), "metadata", "continue"))
	items := p2.obj()["items"].([]any)
	for i, n := range []string{"c", "d"} {
		assert.Equal(t, was[n], items[i], "%s as it was at page 1's revision", n)
	}

	// Compacted: 410 Expired, kube-apiserver's words, and a token that
	// lists the rest as it is now.
	require.NoError(t, e.store.Compact(context.Background(), e.store.Revision()))
	r := e.do("GET", cms+"?limit=2&continue="+url.QueryEscape(cont), "", "").expect(410)
	st := r.status()
	assert.Equal(t, metav1.StatusReasonExpired, st.Reason)
	assert.Equal(t, int32(410), st.Code)
	assert.Equal(t, "The provided continue parameter is too old to display a consistent list result. "+
		"You can start a new list without the continue parameter, or use the continue token in this response to "+
		"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - "+
		"objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.", st.Message)
	inconsistent, _ := get(r.obj(), "metadata", "continue").(string)
	require.NotEmpty(t, inconsistent, "the Status carries a continue token")
	rest := e.do("GET", cms+"?limit=2&continue="+url.QueryEscape(inconsistent), "", "").expect(200)
	assert.Equal(t, []string{"bb", "d"}, names(rest), "after b, as things are now")
	assert.Equal(t, strconv.FormatInt(e.store.Revision(), 10), get(rest.obj(), "metadata", "resourceVersion"))
	assert.Equal(t, "2", get(rest.obj()["items"].([]any)[1].(map[string]any), "data", "v"))
}

func TestUpdateConflictAndPatches(t *testing.T) {
	e := newEnv(t)
	o := e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"a"},"data":{"x":"1"}}`).expect(201).obj()
	rv := get(o, "metadata", "resourceVersion").(string)

	e.do("PUT", "/api/v1/namespaces/default/configmaps/a", "", `{"metadata":{"name":"a","resourceVersion":"`+rv+`"},"data":{"x":"2"}}`).expect(200)
	st := e.do("PUT", "/api/v1/namespaces/default/configmaps/a", "", `{"metadata":{"name":"a","resourceVersion":"`+rv+`"},"data":{"x":"3"}}`).expect(409).status()
	assert.Equal(t, `Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again`, st.Message)
	assert.Equal(t, metav1.StatusReasonConflict, st.Reason)
	e.do("PUT", "/api/v1/namespaces/default/configmaps/a", "", `{"metadata":{"name":"b"}}`).expect(400)

	m := e.do("PATCH", "/api/v1/namespaces/default/configmaps/a", "application/merge-patch+json", `{"data":{"y":"m"}}`).expect(200).obj()
	assert.Equal(t, map[string]any{"x": "2", "y": "m"}, m["data"])
	j := e.do("PATCH", "/api/v1/namespaces/default/configmaps/a", "application/json-patch+json", `[{"op":"remove","path":"/data/x"}]`).expect(200).obj()
	assert.Equal(t, map[string]any{"y": "m"}, j["data"])
	s := e.do("PATCH", "/api/v1/namespaces/default/configmaps/a", "application/strategic-merge-patch+json", `{"metadata":{"labels":{"l":"v"}}}`).expect(200).obj()
	assert.Equal(t, "v", get(s, "metadata", "labels", "l"))
	e.do("PATCH", "/api/v1/namespaces/default/configmaps/a", "application/json-patch+json", `[{"op":"test","path":"/data/y","value":"no"}]`).expect(422)
	e.do("PATCH", "/api/v1/namespaces/default/configmaps/missing", "application/merge-patch+json", `{}`).expect(404)
	// A patch naming a stale resourceVersion is a conflict.
	e.do("PATCH", "/api/v1/namespaces/default/configmaps/a", "application/merge-patch+json", `{"metadata":{"resourceVersion":"`+rv+`"},"data":{"z":"1"}}`).expect(409)
	// A no-op write keeps the resourceVersion.
	cur := e.do("GET", "/api/v1/namespaces/default/configmaps/a", "", "").obj()
	same := e.do("PATCH", "/api/v1/namespaces/default/configmaps/a", "application/merge-patch+json", `{}`).expect(200).obj()
	assert.Equal(t, get(cur, "metadata", "resourceVersion"), get(same, "metadata", "resourceVersion"))
}

func TestServerSideApplyRemovesWhatTheManagerDropped(t *testing.T) {
	e := newEnv(t)
	path := "/api/v1/namespaces/default/configmaps/sa?fieldManager=kubectl&force=false"
	e.do("PATCH", path, "application/apply-patch+yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa\ndata:\n  a: \"1\"\n  b: \"2\"\n").expect(201)
	o := e.do("PATCH", path, "application/apply-patch+yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa\ndata:\n  a: \"1\"\n").expect(200).obj()
	assert.Equal(t, map[string]any{"a": "1"}, o["data"])
	assert.NotEmpty(t, get(o, "metadata", "managedFields"))
}

func TestDryRunPersistsNothing(t *testing.T) {
	e := newEnv(t)
	before := e.store.Revision()
	e.do("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", "", `{"metadata":{"name":"d"}}`).expect(201)
	assert.Equal(t, before, e.store.Revision())
	e.do("GET", "/api/v1/namespaces/default/configmaps/d", "", "").expect(404)
}

func TestDeleteWithFinalizer(t *testing.T) {
	e := newEnv(t)
	e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"f","finalizers":["example.com/hold"]}}`).expect(201)
	o := e.do("DELETE", "/api/v1/namespaces/default/configmaps/f", "", "").expect(200).obj()
	assert.NotNil(t, get(o, "metadata", "deletionTimestamp"), "marked, not gone")
	e.do("GET", "/api/v1/namespaces/default/configmaps/f", "", "").expect(200)
	st := e.do("PATCH", "/api/v1/namespaces/default/configmaps/f", "application/merge-patch+json", `{"metadata":{"finalizers":["example.com/hold","another"]}}`).expect(422).status()
	assert.Contains(t, st.Message, "no new finalizers can be added if the object is being deleted")
	e.do("PATCH", "/api/v1/namespaces/default/configmaps/f", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`).expect(200)
	e.do("GET", "/api/v1/namespaces/default/configmaps/f", "", "").expect(404)

	e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"g"}}`).expect(201)
	st = e.do("DELETE", "/api/v1/namespaces/default/configmaps/g", "", "").expect(200).status()
	assert.Equal(t, metav1.StatusSuccess, st.Status)
	assert.Equal(t, "g", st.Details.Name)
	e.do("DELETE", "/api/v1/namespaces/default/configmaps/g", "", "").expect(404)

	// Foreground propagation leaves the owner waiting on foregroundDeletion.
	e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"fg"}}`).expect(201)
	o = e.do("DELETE", "/api/v1/namespaces/default/configmaps/fg", "", `{"propagationPolicy":"Foreground"}`).expect(200).obj()
	assert.Equal(t, []any{"foregroundDeletion"}, get(o, "metadata", "finalizers"))
	e.do("DELETE", "/api/v1/namespaces/default/configmaps/fg", "", `{"propagationPolicy":"Sideways"}`).expect(422)

	// deletecollection deletes only what matches.
	for _, n := range []string{"c1", "c2"} {
		e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"`+n+`","labels":{"del":"yes"}}}`).expect(201)
	}
	e.do("DELETE", "/api/v1/namespaces/default/configmaps?labelSelector=del%3Dyes", "", "").expect(200)
	e.do("GET", "/api/v1/namespaces/default/configmaps/c1", "", "").expect(404)
	e.do("GET", "/api/v1/namespaces/default/configmaps/fg", "", "").expect(200)

	// Preconditions.
	st = e.do("DELETE", "/api/v1/namespaces/default/configmaps/fg", "", `{"preconditions":{"uid":"nope"}}`).expect(409).status()
	assert.Contains(t, st.Message, "Precondition failed: UID in precondition: nope")
}

func TestTableOutput(t *testing.T) {
	e := newEnv(t)
	e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"t"}}`).expect(201)
	e.clock.Step(5*time.Minute + 3*time.Second)
	accept := map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}
	tbl := e.doH("GET", "/api/v1/namespaces/default/configmaps", "", "", accept).expect(200).obj()
	assert.Equal(t, "Table", tbl["kind"])
	row := tbl["rows"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{"t", "5m3s"}, row["cells"])
	assert.Equal(t, "PartialObjectMetadata", get(row, "object", "kind"))
	one := e.doH("GET", "/api/v1/namespaces/default/configmaps/t", "", "", accept).expect(200).obj()
	assert.Len(t, one["rows"], 1)
	e.doH("GET", "/api/v1/namespaces/default/configmaps", "", "", map[string]string{"Accept": "text/html"}).expect(406)
}

func TestStatusSubresourceAndGeneration(t *testing.T) {
	e := newEnv(t)
	base := "/apis/lab.example.com/v1/namespaces/default/widgets"
	o := e.do("POST", base, "", `{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":2,"replicas":1},"status":{"phase":"Ignored"}}`).expect(201).obj()
	assert.Nil(t, o["status"], "status in a create body is ignored")
	assert.Equal(t, int64(1), get(o, "metadata", "generation"))

	o = e.do("PATCH", base+"/w/status", "application/merge-patch+json", `{"status":{"phase":"Ready"},"spec":{"size":9}}`).expect(200).obj()
	assert.Equal(t, "Ready", get(o, "status", "phase"))
	assert.Equal(t, int64(2), get(o, "spec", "size"), "a status write cannot change spec")
	assert.Equal(t, int64(1), get(o, "metadata", "generation"), "status writes do not move generation")

	o = e.do("PATCH", base+"/w", "application/merge-patch+json", `{"status":{"phase":"Hacked"},"spec":{"size":3}}`).expect(200).obj()
	assert.Equal(t, "Ready", get(o, "status", "phase"), "a spec write cannot change status")
	assert.Equal(t, int64(2), get(o, "metadata", "generation"))

	st := e.do("PATCH", base+"/w", "application/merge-patch+json", `{"spec":{"size":99}}`).expect(422).status()
	assert.Contains(t, st.Message, "spec.size in body should be less than or equal to 10")
	e.do("PATCH", base+"/w", "application/strategic-merge-patch+json", `{"spec":{"size":4}}`).expect(415)

	sc := e.do("GET", base+"/w/scale", "", "").expect(200).obj()
	assert.Equal(t, "Scale", sc["kind"])
	assert.Equal(t, int64(1), get(sc, "spec", "replicas"))
	sc = e.do("PATCH", base+"/w/scale", "application/merge-patch+json", `{"spec":{"replicas":5}}`).expect(200).obj()
	assert.Equal(t, int64(5), get(sc, "spec", "replicas"))
	o = e.do("GET", base+"/w", "", "").expect(200).obj()
	assert.Equal(t, int64(5), get(o, "spec", "replicas"))
	e.do("PATCH", base+"/w/scale", "application/merge-patch+json", `{"spec":{"replicas":-1}}`).expect(422)
}

// watchLines opens a watch over a real HTTP server and returns its events.
func watchLines(t *testing.T, srv *httptest.Server, path string) (<-chan map[string]any, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	require.Equal(t, 200, res.StatusCode)
	out := make(chan map[string]any, 100)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			m, err := unstructured.DecodeMap(sc.Bytes())
			if err == nil {
				out <- m
			}
		}
	}()
	return out, func() { cancel(); res.Body.Close() }
}

func next(t *testing.T, ch <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "watch closed")
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no watch event")
	}
	return nil
}

func TestWatchStreamsEventsAndExpired(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"a","labels":{"app":"web"}}}`).expect(201)
	evs, stop := watchLines(t, srv, "/api/v1/namespaces/default/configmaps?watch=1&labelSelector=app%3Dweb")
	defer stop()
	ev := next(t, evs)
	assert.Equal(t, "ADDED", ev["type"])
	assert.Equal(t, "a", get(ev, "object", "metadata", "name"))
	e.do("PATCH", "/api/v1/namespaces/default/configmaps/a", "application/merge-patch+json", `{"data":{"k":"v"}}`).expect(200)
	assert.Equal(t, "MODIFIED", next(t, evs)["type"])
	// Stops matching the selector: DELETED for this watcher.
	e.do("PATCH", "/api/v1/namespaces/default/configmaps/a", "application/merge-patch+json", `{"metadata":{"labels":{"app":"db"}}}`).expect(200)
	assert.Equal(t, "DELETED", next(t, evs)["type"])

	// The API server compacts old history; a watch from before it expired.
	require.NoError(t, e.store.Compact(context.Background(), e.store.Revision()))
	evs2, stop2 := watchLines(t, srv, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1")
	defer stop2()
	ev = next(t, evs2)
	assert.Equal(t, "ERROR", ev["type"])
	assert.Equal(t, int64(410), get(ev, "object", "code"))
	assert.Equal(t, "Expired", get(ev, "object", "reason"))
}

// Guard against the test double drifting from real Kubernetes shapes: a
// created object must decode as the typed kind.
func TestCreatedObjectDecodesTyped(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"typed"},"data":{"a":"b"}}`).expect(201)
	var cm corev1.ConfigMap
	require.NoError(t, json.Unmarshal(r.body, &cm))
	assert.Equal(t, "b", cm.Data["a"])
	assert.Equal(t, "ConfigMap", cm.Kind)
	assert.Equal(t, "v1", cm.APIVersion)
}
