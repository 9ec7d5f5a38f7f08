package crd_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/crd"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	finalizer "github.com/kubesim/kubesim/controllers/crdfinalizer"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/store/boltstore"
)

// widgetCRD is the reference's Widget: structural, status and scale
// subresources, defaults, enum, columns.
const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.lab.example.com"},
"spec":{"group":"lab.example.com","scope":"Namespaced",
 "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"],"categories":["all"]},
 "versions":[{"name":"v1","served":true,"storage":true,
  "subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}},
  "additionalPrinterColumns":[{"name":"Color","type":"string","jsonPath":".spec.color"},{"name":"Replicas","type":"integer","jsonPath":".spec.replicas"}],
  "schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object","required":["color"],"properties":{
     "color":{"type":"string","enum":["red","green","blue"]},
     "size":{"type":"integer","maximum":10,"exclusiveMaximum":true},
     "replicas":{"type":"integer","default":1},
     "ports":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer"},"protocol":{"type":"string","default":"TCP"}}}},
     "note":{"type":"string","nullable":true}}},
   "status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}]}}`

func widgets(c *client.Client) *client.Resource[*unstructured.Unstructured] {
	return client.Dynamic(c, client.ResourceInfo{Group: "lab.example.com", Version: "v1", Resource: "widgets", Namespaced: true})
}

func raw(t testing.TB, h http.Handler, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, "http://in-process"+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var m map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &m)
	return rec.Code, m
}

func createWidgetCRD(t *testing.T, env *apiservertest.Env) {
	t.Helper()
	code, body := raw(t, env.Server.Handler(), "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCRD)
	require.Equal(t, 201, code, "%v", body)
}

func causes(body map[string]any) []string {
	var out []string
	d, _ := body["details"].(map[string]any)
	cs, _ := d["causes"].([]any)
	for _, c := range cs {
		m := c.(map[string]any)
		out = append(out, fmt.Sprintf("%v %v: %v", m["reason"], m["field"], m["message"]))
	}
	return out
}

func TestCustomResourceLifecycle(t *testing.T) {
	env := apiservertest.New(t)
	createWidgetCRD(t, env)
	ctx := context.Background()
	c, err := env.Client.CustomResourceDefinitions().Get(ctx, "", "widgets.lab.example.com")
	require.NoError(t, err)
	assert.True(t, api.IsCRDConditionTrue(c, apiextensionsv1.Established))
	assert.True(t, api.IsCRDConditionTrue(c, apiextensionsv1.NamesAccepted))
	assert.Equal(t, []string{"v1"}, c.Status.StoredVersions)
	assert.Equal(t, "WidgetList", c.Status.AcceptedNames.ListKind)

	// Pruning, defaults inside arrays, nullable null kept, status dropped.
	code, body := raw(t, env.Server.Handler(), "POST", "/apis/lab.example.com/v1/namespaces/default/widgets",
		`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w1"},
		  "spec":{"color":"red","shoeSize":42,"ports":[{"port":80}],"note":null},"status":{"replicas":3}}`)
	require.Equal(t, 201, code, "%v", body)
	spec := body["spec"].(map[string]any)
	assert.NotContains(t, spec, "shoeSize")
	assert.Equal(t, []any{map[string]any{"port": float64(80), "protocol": "TCP"}}, spec["ports"])
	assert.Equal(t, float64(1), spec["replicas"])
	assert.Contains(t, spec, "note")
	assert.NotContains(t, body, "status")

	// Every error in one 422, worded as the reference.
	code, body = raw(t, env.Server.Handler(), "POST", "/apis/lab.example.com/v1/namespaces/default/widgets",
		`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"Bad_Name"},"spec":{"color":"purple","size":10}}`)
	require.Equal(t, 422, code)
	assert.Equal(t, []string{
		`FieldValueInvalid metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		`FieldValueNotSupported spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"`,
		`FieldValueInvalid spec.size: Invalid value: 10: spec.size in body should be less than 10`,
	}, causes(body))

	code, body = raw(t, env.Server.Handler(), "POST", "/apis/lab.example.com/v1/namespaces/default/widgets",
		`{"apiVersion":"lab.example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"color":"red"}}`)
	require.Equal(t, 422, code)
	assert.Equal(t, []string{`FieldValueInvalid kind: Invalid value: "Gadget": must be Widget`}, causes(body))
	// The message names the kind sent, as the real server does.
	assert.Equal(t, `Gadget.lab.example.com "g" is invalid: kind: Invalid value: "Gadget": must be Widget`, body["message"])

	code, body = raw(t, env.Server.Handler(), "POST", "/apis/lab.example.com/v1/namespaces/default/widgets",
		`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red"}}`)
	require.Equal(t, 409, code)
	assert.Equal(t, `widgets.lab.example.com "w1" already exists`, body["message"])

	// Status writes change status only; scale maps the replica paths.
	w := widgets(env.Client)
	obj, err := w.Get(ctx, "default", "w1")
	require.NoError(t, err)
	obj.Content["status"] = map[string]any{"replicas": int64(2)}
	obj.Content["spec"].(map[string]any)["color"] = "blue"
	_, err = w.UpdateStatus(ctx, obj)
	require.NoError(t, err)
	obj, err = w.Get(ctx, "default", "w1")
	require.NoError(t, err)
	assert.Equal(t, "red", obj.Content["spec"].(map[string]any)["color"])
	assert.Equal(t, int64(2), obj.Content["status"].(map[string]any)["replicas"])
	code, body = raw(t, env.Server.Handler(), "GET", "/apis/lab.example.com/v1/namespaces/default/widgets/w1/scale", "")
	require.Equal(t, 200, code)
	assert.Equal(t, float64(1), body["spec"].(map[string]any)["replicas"])
	assert.Equal(t, float64(2), body["status"].(map[string]any)["replicas"])

	// Updates are revalidated.
	obj.Content["spec"].(map[string]any)["color"] = "pink"
	_, err = w.Update(ctx, obj)
	require.Error(t, err)
	assert.True(t, api.IsInvalid(err), "%v", err)

	// A table with the printer columns.
	req, _ := http.NewRequest("GET", "http://in-process/apis/lab.example.com/v1/namespaces/default/widgets", nil)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	rec := httptest.NewRecorder()
	env.Server.Handler().ServeHTTP(rec, req)
	var table metav1.Table
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &table))
	require.Len(t, table.ColumnDefinitions, 3)
	assert.Equal(t, []string{"Name", "Color", "Replicas"}, []string{table.ColumnDefinitions[0].Name, table.ColumnDefinitions[1].Name, table.ColumnDefinitions[2].Name})
	require.Len(t, table.Rows, 1)
	assert.Equal(t, []any{"w1", "red", float64(1)}, table.Rows[0].Cells)
}

func TestNamesConflictAndRelease(t *testing.T) {
	env := apiservertest.New(t)
	createWidgetCRD(t, env)
	clash := strings.NewReplacer(`"widgets.lab.example.com"`, `"gizmos.lab.example.com"`, `"plural":"widgets"`, `"plural":"gizmos"`,
		`"singular":"widget"`, `"singular":"gizmo"`).Replace(widgetCRD)
	code, body := raw(t, env.Server.Handler(), "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", clash)
	require.Equal(t, 201, code, "%v", body)
	ctx := context.Background()
	c, err := env.Client.CustomResourceDefinitions().Get(ctx, "", "gizmos.lab.example.com")
	require.NoError(t, err)
	cond := api.FindCRDCondition(c, apiextensionsv1.NamesAccepted)
	require.NotNil(t, cond)
	assert.Equal(t, apiextensionsv1.ConditionFalse, cond.Status)
	assert.Equal(t, "ListKindConflict", cond.Reason, "the last clash found is reported, as the naming controller does")
	assert.Equal(t, `"WidgetList" is already in use`, cond.Message)
	est := api.FindCRDCondition(c, apiextensionsv1.Established)
	assert.Equal(t, "NotAccepted", est.Reason)
	_, ok := env.Server.Store("lab.example.com", "v1", "gizmos")
	assert.False(t, ok, "not established: not served")

	// The Widget CRD goes (no objects: the finalizer is removed at once by
	// the controller); the gizmos get their names.
	fc, err := finalizer.New(finalizer.Config{Client: env.Client, Clock: env.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	require.NoError(t, env.Client.CustomResourceDefinitions().Delete(ctx, "", "widgets.lab.example.com", nil))
	drive(t, fc)
	_, err = env.Client.CustomResourceDefinitions().Get(ctx, "", "widgets.lab.example.com")
	assert.True(t, api.IsNotFound(err))
	c, err = env.Client.CustomResourceDefinitions().Get(ctx, "", "gizmos.lab.example.com")
	require.NoError(t, err)
	assert.True(t, api.IsCRDConditionTrue(c, apiextensionsv1.Established))
	_, ok = env.Server.Store("lab.example.com", "v1", "gizmos")
	assert.True(t, ok)
}

// drive runs a controller in step mode until it has nothing left.
func drive(t *testing.T, fc *finalizer.Controller) {
	t.Helper()
	ctrl := fc.Controllers()[0]
	for range 100 {
		require.NoError(t, ctrl.Sync(context.Background()))
		if _, ok := ctrl.Step(context.Background()); !ok {
			return
		}
	}
	t.Fatal("controller did not settle")
}

func TestDeletingCRDDeletesItsObjects(t *testing.T) {
	env := apiservertest.New(t)
	createWidgetCRD(t, env)
	ctx := context.Background()
	w := widgets(env.Client)
	for _, n := range []string{"a", "b"} {
		code, body := raw(t, env.Server.Handler(), "POST", "/apis/lab.example.com/v1/namespaces/default/widgets",
			`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"`+n+`"},"spec":{"color":"red"}}`)
		require.Equal(t, 201, code, "%v", body)
	}
	fc, err := finalizer.New(finalizer.Config{Client: env.Client, Clock: env.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	require.NoError(t, env.Client.CustomResourceDefinitions().Delete(ctx, "", "widgets.lab.example.com", nil))
	c, err := env.Client.CustomResourceDefinitions().Get(ctx, "", "widgets.lab.example.com")
	require.NoError(t, err, "held by the finalizer")
	assert.Equal(t, []string{"customresourcecleanup.apiextensions.k8s.io"}, c.Finalizers)
	assert.Equal(t, "InstanceDeletionPending", api.FindCRDCondition(c, apiextensionsv1.Terminating).Reason)
	list, err := w.List(ctx, "", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, list.Items, 2, "still served while terminating")
	drive(t, fc)
	_, err = env.Client.CustomResourceDefinitions().Get(ctx, "", "widgets.lab.example.com")
	assert.True(t, api.IsNotFound(err))
	_, ok := env.Server.Store("lab.example.com", "v1", "widgets")
	assert.False(t, ok)
	// Re-created: no object survived.
	createWidgetCRD(t, env)
	list, err = w.List(ctx, "", client.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, list.Items)
}

func TestCRDValidation(t *testing.T) {
	env := apiservertest.New(t)
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"name must be plural.group", `"name":"widgets.lab.example.com"`, `"name":"widget.lab.example.com"`,
			[]string{`FieldValueInvalid metadata.name: Invalid value: "widget.lab.example.com": must be spec.names.plural+"."+spec.group`}},
		{"exactly one storage version", `"storage":true`, `"storage":false`,
			[]string{`FieldValueInvalid spec.versions: Invalid value: "[v1]": must have exactly one version marked as storage version`,
				`FieldValueInvalid status.storedVersions: Invalid value: "[]": must have at least one stored version`}},
		{"structural: every field typed", `"color":{"type":"string","enum":["red","green","blue"]}`, `"color":{"enum":["red","green","blue"]}`,
			[]string{`FieldValueRequired spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color].type: Required value: must not be empty for specified object fields`}},
		{"group needs a dot", `"group":"lab.example.com"`, `"group":"lab"`,
			[]string{`FieldValueInvalid metadata.name: Invalid value: "widgets.lab.example.com": must be spec.names.plural+"."+spec.group`,
				`FieldValueInvalid spec.group: Invalid value: "lab": should be a domain with at least one dot`}},
		{"column type", `"type":"string","jsonPath":".spec.color"`, `"type":"text","jsonPath":".spec.color"`,
			[]string{`FieldValueInvalid spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string`}},
		// Reported once, under spec.names, as the real server does (not
		// again under status.acceptedNames).
		{"invalid short name", `"shortNames":["wd"]`, `"shortNames":["w_d"]`,
			[]string{`FieldValueInvalid spec.names.shortNames[0]: Invalid value: "w_d": ` + strings.Join(kinds.IsDNS1035Label("w_d"), ",")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(widgetCRD, tc.from, tc.to, 1)
			require.NotEqual(t, widgetCRD, body)
			code, resp := raw(t, env.Server.Handler(), "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body)
			require.Equal(t, 422, code, "%v", resp)
			assert.Equal(t, tc.want, causes(resp))
			_, ok := env.Server.Store("lab.example.com", "v1", "widgets")
			assert.False(t, ok, "an invalid CRD serves nothing")
		})
	}
}

func TestV1beta1ServedAndConverted(t *testing.T) {
	env := apiservertest.New(t)
	seed := `{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","metadata":{"name":"users.auth.ilinux.io"},
	"spec":{"group":"auth.ilinux.io","version":"v1beta1","names":{"kind":"User","plural":"users","singular":"user","shortNames":["u"]},
	"scope":"Namespaced","validation":{"openAPIV3Schema":{"properties":{"spec":{"properties":{
	"userID":{"type":"integer","minimum":1,"maximum":65535},"groups":{"type":"array"},"email":{"type":"string"},
	"password":{"type":"string","format":"password"}},"required":["userID","groups"]}}}}}}`
	req, _ := http.NewRequest("POST", "http://in-process/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions", strings.NewReader(seed))
	rec := httptest.NewRecorder()
	env.Server.Handler().ServeHTTP(rec, req)
	require.Equal(t, 201, rec.Code, rec.Body.String())
	assert.Equal(t, `299 - "`+crd.DeprecationWarningV1beta1+`"`, rec.Header().Get("Warning"))
	var b apiextensionsv1beta1.CustomResourceDefinition
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &b))
	assert.Equal(t, "v1beta1", b.Spec.Version)
	require.NotNil(t, b.Spec.Validation, "the shared schema stays at the top level")
	assert.True(t, *b.Spec.PreserveUnknownFields)

	c, err := env.Client.CustomResourceDefinitions().Get(context.Background(), "", "users.auth.ilinux.io")
	require.NoError(t, err)
	require.Len(t, c.Spec.Versions, 1)
	assert.NotNil(t, c.Spec.Versions[0].Schema)
	assert.True(t, c.Spec.PreserveUnknownFields)
	assert.True(t, api.IsCRDConditionTrue(c, apiextensionsv1.NonStructuralSchema))

	code, body := raw(t, env.Server.Handler(), "POST", "/apis/auth.ilinux.io/v1beta1/namespaces/default/users",
		`{"apiVersion":"auth.ilinux.io/v1beta1","kind":"User","metadata":{"name":"tony"},"spec":{"userID":999999}}`)
	require.Equal(t, 422, code)
	assert.Equal(t, `User.auth.ilinux.io "tony" is invalid: [spec.userID: Invalid value: 999999: spec.userID in body should be less than or equal to 65535, spec.groups: Required value]`, body["message"])
	assert.Equal(t, []string{
		"FieldValueInvalid spec.userID: Invalid value: 999999: spec.userID in body should be less than or equal to 65535",
		"FieldValueRequired spec.groups: Required value"}, causes(body))
	// preserveUnknownFields: unknown fields stay.
	code, body = raw(t, env.Server.Handler(), "POST", "/apis/auth.ilinux.io/v1beta1/namespaces/default/users",
		`{"apiVersion":"auth.ilinux.io/v1beta1","kind":"User","metadata":{"name":"admin"},"spec":{"userID":1,"groups":["a"],"shoeSize":9}}`)
	require.Equal(t, 201, code, "%v", body)
	assert.Equal(t, float64(9), body["spec"].(map[string]any)["shoeSize"])
}

func TestRestartServesStoredCRDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), boltstore.FileName)
	start := func() (*apiserver.Server, func()) {
		st, err := boltstore.Open(boltstore.Config{Path: path, UnsafeNoFsync: true})
		require.NoError(t, err)
		srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clock.NewFake(apiservertest.Start), Rand: rand.Reader, Resources: kinds.Builtin()})
		require.NoError(t, err)
		require.NoError(t, srv.Bootstrap(context.Background()))
		return srv, func() { st.Close() }
	}
	srv, stop := start()
	code, body := raw(t, srv.Handler(), "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCRD)
	require.Equal(t, 201, code, "%v", body)
	stop()
	srv, stop = start()
	defer stop()
	_, ok := srv.Store("lab.example.com", "v1", "widgets")
	assert.True(t, ok)
}

func TestConversionRoundTrip(t *testing.T) {
	pres := false
	in := &apiextensionsv1beta1.CustomResourceDefinition{
		Spec: apiextensionsv1beta1.CustomResourceDefinitionSpec{Group: "g.io", Version: "v1", Scope: apiextensionsv1beta1.ClusterScoped,
			Names:      apiextensionsv1beta1.CustomResourceDefinitionNames{Plural: "xs", Kind: "X"},
			Validation: &apiextensionsv1beta1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1beta1.JSONSchemaProps{Type: "object"}},
			Versions: []apiextensionsv1beta1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true},
				{Name: "v2", Served: true}},
			AdditionalPrinterColumns: []apiextensionsv1beta1.CustomResourceColumnDefinition{{Name: "A", Type: "string", JSONPath: ".spec.a"}},
			PreserveUnknownFields:    &pres,
		}}
	crd.SetDefaultsV1beta1(in)
	v1 := crd.ToV1(in)
	require.Len(t, v1.Spec.Versions, 2)
	for _, v := range v1.Spec.Versions {
		assert.Equal(t, "object", v.Schema.OpenAPIV3Schema.Type)
		assert.Equal(t, ".spec.a", v.AdditionalPrinterColumns[0].JSONPath)
	}
	back := crd.ToV1beta1(v1)
	back.TypeMeta = in.TypeMeta
	assert.Equal(t, in, back)
}

// FuzzCRDValidation throws random CRD bodies at conversion and validation:
// nothing may panic, and a converted CRD converts back stably.
func FuzzCRDValidation(f *testing.F) {
	f.Add([]byte(widgetCRD))
	f.Add([]byte(`{"spec":{"version":"v1","validation":{"openAPIV3Schema":{"properties":{"a":{"items":[{}]}}}}}}`))
	f.Add([]byte(`{"spec":{"versions":[{"name":"v1","subresources":{"scale":{"specReplicasPath":"x"}},"additionalPrinterColumns":[{"jsonPath":""}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var b apiextensionsv1beta1.CustomResourceDefinition
		if json.Unmarshal(data, &b) == nil {
			crd.SetDefaultsV1beta1(&b)
			c := crd.ToV1(&b)
			crd.Validate(c, crd.V1beta1Options(c))
			again := crd.ToV1(crd.ToV1beta1(c))
			assert.Equal(t, len(c.Spec.Versions), len(again.Spec.Versions))
		}
		var c apiextensionsv1.CustomResourceDefinition
		if json.Unmarshal(data, &c) == nil {
			crd.SetDefaults(&c)
			crd.Validate(&c, crd.V1Options())
			crd.ValidateUpdate(&c, &c, crd.V1UpdateOptions(&c))
			for i := range c.Spec.Versions {
				res := crd.NewCustomResource(&c, &c.Spec.Versions[i])
				res.Table.Cells(&unstructured.Unstructured{Content: map[string]any{"spec": map[string]any{"a": []any{int64(1)}}}}, time.Now())
			}
		}
	})
}

// BenchmarkCustomResourceCreate measures custom resource creates/s over
// HTTPS from 8 keep-alive clients, on the Widget schema, with a durable
// store.
func BenchmarkCustomResourceCreate(b *testing.B) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(b.TempDir(), boltstore.FileName)})
	require.NoError(b, err)
	b.Cleanup(func() { st.Close() })
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clock.Real{}, Rand: rand.Reader, Resources: kinds.Builtin()})
	require.NoError(b, err)
	require.NoError(b, srv.Bootstrap(context.Background()))
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.EnableHTTP2 = false
	ts.StartTLS()
	b.Cleanup(ts.Close)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 64}}
	post := func(url string, body []byte) int {
		resp, err := c.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return 0
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(b, 201, post(ts.URL+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", []byte(widgetCRD)))
	url := ts.URL + "/apis/lab.example.com/v1/namespaces/default/widgets"
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				body := fmt.Sprintf(`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w-%d"},"spec":{"color":"green","size":3,"ports":[{"port":80},{"port":443}]}}`, i)
				if post(url, []byte(body)) != 201 {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if failed.Load() > 0 {
		b.Fatalf("%d creates failed", failed.Load())
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "creates/s")
}

// client-go lists custom resources through a watch too: the objects as
// ADDED, a Widget BOOKMARK annotated k8s.io/initial-events-end, then the
// changes.
func TestWatchListOfCustomResources(t *testing.T) {
	env := apiservertest.New(t)
	createWidgetCRD(t, env)
	h := env.Server.Handler()
	code, body := raw(t, h, "POST", "/apis/lab.example.com/v1/namespaces/default/widgets",
		`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red"}}`)
	require.Equal(t, 201, code, "%v", body)
	code, list := raw(t, h, "GET", "/apis/lab.example.com/v1/namespaces/default/widgets", "")
	require.Equal(t, 200, code)
	listRV := list["metadata"].(map[string]any)["resourceVersion"]

	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/apis/lab.example.com/v1/namespaces/default/widgets?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", nil)
	require.NoError(t, err)
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	dec := json.NewDecoder(res.Body)
	next := func() map[string]any {
		var ev map[string]any
		require.NoError(t, dec.Decode(&ev))
		return ev
	}
	ev := next()
	assert.Equal(t, "ADDED", ev["type"])
	assert.Equal(t, "w1", ev["object"].(map[string]any)["metadata"].(map[string]any)["name"])
	ev = next()
	require.Equal(t, "BOOKMARK", ev["type"])
	// Only the resourceVersion and the annotation.
	assert.Equal(t, map[string]any{"apiVersion": "lab.example.com/v1", "kind": "Widget", "metadata": map[string]any{
		"resourceVersion": listRV, "annotations": map[string]any{"k8s.io/initial-events-end": "true"}}}, ev["object"])
	code, body = raw(t, h, "POST", "/apis/lab.example.com/v1/namespaces/default/widgets",
		`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"color":"blue"}}`)
	require.Equal(t, 201, code, "%v", body)
	ev = next()
	assert.Equal(t, "ADDED", ev["type"])
	assert.Equal(t, "w2", ev["object"].(map[string]any)["metadata"].(map[string]any)["name"])
}

// The schema a version is served with is compiled once; a CRD update that
// changes the schema is what the next create is checked and defaulted
// against.
func TestSchemaUpdateTakesEffectAtTheNextCreate(t *testing.T) {
	env := apiservertest.New(t)
	createWidgetCRD(t, env)
	h := env.Server.Handler()
	widgetsPath := "/apis/lab.example.com/v1/namespaces/default/widgets"
	purple := `{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"p"},"spec":{"color":"purple"}}`
	code, body := raw(t, h, "POST", widgetsPath, purple)
	require.Equal(t, 422, code, "%v", body)

	crdPath := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.lab.example.com"
	code, c := raw(t, h, "GET", crdPath, "")
	require.Equal(t, 200, code)
	v := c["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	spec := v["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)
	props := spec["properties"].(map[string]any)
	props["color"].(map[string]any)["enum"] = []any{"red", "green", "blue", "purple"}
	props["replicas"].(map[string]any)["default"] = 3
	updated, err := json.Marshal(c)
	require.NoError(t, err)
	code, body = raw(t, h, "PUT", crdPath, string(updated))
	require.Equal(t, 200, code, "%v", body)

	code, body = raw(t, h, "POST", widgetsPath, purple)
	require.Equal(t, 201, code, "%v", body)
	assert.Equal(t, float64(3), body["spec"].(map[string]any)["replicas"], "the new default")
}

// The decoder finds unknown fields with the served version's compiled
// schema (registry.Resource.CompiledSchema): a field the schema does not
// know is refused under fieldValidation=Strict, and once a CRD update adds
// it, the very next create keeps it — the compiled schema is the new one.
func TestStrictFieldValidationFollowsASchemaUpdate(t *testing.T) {
	env := apiservertest.New(t)
	createWidgetCRD(t, env)
	h := env.Server.Handler()
	widgetsPath := "/apis/lab.example.com/v1/namespaces/default/widgets?fieldValidation=Strict"
	body := func(name string) string {
		return `{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `","bogus":1},"spec":{"color":"red","shape":"round"}}`
	}
	code, resp := raw(t, h, "POST", widgetsPath, body("a"))
	require.Equal(t, 400, code, "%v", resp)
	msg, _ := resp["message"].(string)
	assert.Contains(t, msg, `unknown field "spec.shape"`)
	assert.Contains(t, msg, `unknown field "metadata.bogus"`)

	crdPath := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.lab.example.com"
	code, c := raw(t, h, "GET", crdPath, "")
	require.Equal(t, 200, code)
	v := c["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	spec := v["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)
	spec["properties"].(map[string]any)["shape"] = map[string]any{"type": "string"}
	updated, err := json.Marshal(c)
	require.NoError(t, err)
	code, resp = raw(t, h, "PUT", crdPath, string(updated))
	require.Equal(t, 200, code, "%v", resp)

	code, resp = raw(t, h, "POST", widgetsPath, body("b"))
	require.Equal(t, 400, code, "%v", resp)
	msg, _ = resp["message"].(string)
	assert.NotContains(t, msg, "spec.shape", "the new schema knows spec.shape")
	assert.Contains(t, msg, `unknown field "metadata.bogus"`, "ObjectMeta's compiled schema still refuses what it does not have")
	code, resp = raw(t, h, "POST", widgetsPath, strings.Replace(body("c"), `,"bogus":1`, "", 1))
	require.Equal(t, 201, code, "%v", resp)
	assert.Equal(t, "round", resp["spec"].(map[string]any)["shape"])
}

// A custom resource's body with a name twice in one object is refused
// under fieldValidation=Strict, naming the field (the decoder's scan of
// the body keeps only the duplicates for a custom resource).
func TestStrictFieldValidationReportsDuplicatesOfACustomResource(t *testing.T) {
	env := apiservertest.New(t)
	createWidgetCRD(t, env)
	h := env.Server.Handler()
	code, resp := raw(t, h, "POST", "/apis/lab.example.com/v1/namespaces/default/widgets?fieldValidation=Strict",
		`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"d","name":"d"},"spec":{"color":"red","ports":[{"port":1,"port":2}],"color":"blue"}}`)
	require.Equal(t, 400, code, "%v", resp)
	assert.Equal(t, `Widget in version "v1" cannot be handled as a Widget: strict decoding error: duplicate field "metadata.name", duplicate field "spec.ports[0].port", duplicate field "spec.color"`, resp["message"])
}

// A CRD without a schema (v1beta1, as the course's first one) checks
// nothing: under fieldValidation=Strict every field of a body is kept,
// none is unknown — the decoder has no schema to prune with.
func TestStrictFieldValidationWithoutASchemaKeepsEverything(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.Handler()
	code, body := raw(t, h, "POST", "/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions",
		`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","metadata":{"name":"users.auth.magedu.com"},
		"spec":{"group":"auth.magedu.com","version":"v1beta1","names":{"kind":"User","plural":"users","singular":"user"},"scope":"Namespaced"}}`)
	require.Equal(t, 201, code, "%v", body)
	code, body = raw(t, h, "POST", "/apis/auth.magedu.com/v1beta1/namespaces/default/users?fieldValidation=Strict",
		`{"apiVersion":"auth.magedu.com/v1beta1","kind":"User","metadata":{"name":"admin"},"spec":{"userID":1,"groups":["a"],"password":"p"},"extra":true}`)
	require.Equal(t, 201, code, "%v", body)
	assert.Equal(t, map[string]any{"userID": float64(1), "groups": []any{"a"}, "password": "p"}, body["spec"])
	assert.Equal(t, true, body["extra"])
}
