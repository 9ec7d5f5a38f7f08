package handlers

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

const deployments = "/apis/apps/v1/namespaces/default/deployments"

// warnings returns the messages of a response's Warning headers.
func (r *resp) warnings() []string {
	var out []string
	for _, h := range r.header.Values("Warning") {
		msg, err := strconv.Unquote(strings.TrimPrefix(h, "299 - "))
		require.NoError(r.t, err, h)
		out = append(out, msg)
	}
	return out
}

// Field names match case-sensitively at every depth, as in Kubernetes:
// "Replicas" is not "replicas".
func TestCaseVariantFieldsAreUnknown(t *testing.T) {
	e := newEnv(t)
	before := e.store.Revision()
	body := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"Replicas":3}}`

	st := e.do("POST", deployments+"?fieldValidation=Strict", "application/json", body).expect(400).status()
	assert.Equal(t, `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.Replicas"`, st.Message)
	assert.Equal(t, metav1.StatusReasonBadRequest, st.Reason)
	assert.Equal(t, before, e.store.Revision(), "a refused body stores nothing")

	r := e.do("POST", deployments+"?fieldValidation=Warn", "application/json", body).expect(201)
	assert.Equal(t, []string{`unknown field "spec.Replicas"`}, r.warnings())
	assert.Nil(t, get(r.obj(), "spec", "replicas"), "the case variant sets nothing")

	body = strings.Replace(body, `"web"`, `"quiet"`, 1)
	r = e.do("POST", deployments+"?fieldValidation=Ignore", "application/json", body).expect(201)
	assert.Empty(t, r.warnings())
	assert.Nil(t, get(r.obj(), "spec", "replicas"))

	// The default is Warn.
	body = strings.Replace(body, `"quiet"`, `"dflt"`, 1)
	r = e.do("POST", deployments, "application/json", body).expect(201)
	assert.Equal(t, []string{`unknown field "spec.Replicas"`}, r.warnings())
}

func TestNestedCaseVariantsInDocumentOrder(t *testing.T) {
	e := newEnv(t)
	body := `{"metadata":{"name":"n","Labels":{"a":"b"}},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"spec":{"containers":[{"name":"c","Image":"nginx","image":"busybox"}]}}},"Status":{}}`
	st := e.do("POST", deployments+"?fieldValidation=Strict", "", body).expect(400).status()
	assert.Equal(t, `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: `+
		`unknown field "metadata.Labels", unknown field "spec.template.spec.containers[0].Image", unknown field "Status"`, st.Message)

	r := e.do("POST", deployments, "", body).expect(201)
	assert.Equal(t, []string{`unknown field "metadata.Labels"`, `unknown field "spec.template.spec.containers[0].Image"`, `unknown field "Status"`}, r.warnings())
	o := r.obj()
	assert.Nil(t, get(o, "metadata", "labels"))
	c := get(o, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	assert.Equal(t, "busybox", c["image"], "only the exact name sets the field")
}

func TestDuplicateFields(t *testing.T) {
	e := newEnv(t)
	cms := "/api/v1/namespaces/default/configmaps"
	before := e.store.Revision()
	top := `{"metadata":{"name":"d"},"data":{"a":"1"},"data":{"b":"2"}}`
	nested := `{"metadata":{"name":"first","name":"n2"},"data":{"k":"1","k":"2"}}`

	st := e.do("POST", cms+"?fieldValidation=Strict", "", top).expect(400).status()
	assert.Equal(t, `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"`, st.Message)
	st = e.do("POST", cms+"?fieldValidation=Strict", "", nested).expect(400).status()
	assert.Equal(t, `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", duplicate field "data.k"`, st.Message)
	assert.Equal(t, before, e.store.Revision())

	r := e.do("POST", cms+"?fieldValidation=Warn", "", top).expect(201)
	assert.Equal(t, []string{`duplicate field "data"`}, r.warnings())
	assert.Equal(t, map[string]any{"b": "2"}, r.obj()["data"], "the last one wins")

	r = e.do("POST", cms+"?fieldValidation=Ignore", "", nested).expect(201)
	assert.Empty(t, r.warnings())
	assert.Equal(t, "n2", get(r.obj(), "metadata", "name"))
	assert.Equal(t, "2", get(r.obj(), "data", "k"))

	// A field both unknown and repeated is only unknown for a built-in
	// kind; known fields repeated are duplicates, in document order.
	body := `{"metadata":{"name":"mix"},"spec":{"unknownDupe":1,"unknownDupe":2,"paused":false,"paused":true,"selector":{"matchLabels":{"a":"b"}},"template":{"spec":{"containers":[{"name":"c","unknownNested":1,"imagePullPolicy":"Always","imagePullPolicy":"Never"}]}}}}`
	st = e.do("POST", deployments+"?fieldValidation=Strict", "", body).expect(400).status()
	assert.Equal(t, `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: `+
		`unknown field "spec.unknownDupe", duplicate field "spec.paused", unknown field "spec.template.spec.containers[0].unknownNested", duplicate field "spec.template.spec.containers[0].imagePullPolicy"`, st.Message)
	r = e.do("POST", deployments, "", body).expect(201)
	assert.Equal(t, []string{`unknown field "spec.unknownDupe"`, `duplicate field "spec.paused"`,
		`unknown field "spec.template.spec.containers[0].unknownNested"`, `duplicate field "spec.template.spec.containers[0].imagePullPolicy"`}, r.warnings())
	assert.Equal(t, true, get(r.obj(), "spec", "paused"), "the last one wins")
}

// A custom resource reports every duplicate (from decoding into a map)
// before the unknown fields (from pruning), as the apiextensions-apiserver.
func TestCustomResourceDuplicatesAndCaseVariants(t *testing.T) {
	e := newEnv(t)
	widgets := "/apis/lab.example.com/v1/namespaces/default/widgets"
	body := `{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"size":2,"bogus":1,"bogus":2,"Color":"red"}}`
	st := e.do("POST", widgets+"?fieldValidation=Strict", "", body).expect(400).status()
	assert.Equal(t, `Widget in version "v1" cannot be handled as a Widget: strict decoding error: `+
		`duplicate field "spec.size", duplicate field "spec.bogus", unknown field "spec.Color", unknown field "spec.bogus"`, st.Message)
	r := e.do("POST", widgets, "", body).expect(201)
	assert.Len(t, r.warnings(), 4)
	assert.Equal(t, map[string]any{"size": int64(2)}, r.obj()["spec"])
}

func TestYAMLBodies(t *testing.T) {
	e := newEnv(t)
	cms := "/api/v1/namespaces/default/configmaps"
	dup := "metadata:\n  name: y\ndata:\n  a: \"1\"\n  a: \"2\"\n"
	st := e.do("POST", cms+"?fieldValidation=Strict", "application/yaml", dup).expect(400).status()
	assert.Equal(t, "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 5: key \"a\" already set in map", st.Message)

	r := e.do("POST", cms, "application/yaml", dup).expect(201)
	assert.Equal(t, []string{`line 5: key "a" already set in map`}, r.warnings())
	assert.Equal(t, "2", get(r.obj(), "data", "a"), "the last one wins")

	dup2 := strings.Replace(dup, "name: y", "name: z", 1)
	r = e.do("POST", cms+"?fieldValidation=Ignore", "application/yaml", dup2).expect(201)
	assert.Empty(t, r.warnings())
	assert.Equal(t, "2", get(r.obj(), "data", "a"))

	// Case variants and unknown fields in YAML: YAML's duplicates first,
	// then the unknown fields.
	dep := "metadata:\n  name: yd\n  name: yd\nspec:\n  Replicas: 3\n"
	st = e.do("POST", deployments+"?fieldValidation=Strict", "application/yaml", dep).expect(400).status()
	assert.Equal(t, "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: yaml: unmarshal errors:\n  line 3: key \"name\" already set in map, unknown field \"spec.Replicas\"", st.Message)
	r = e.do("POST", deployments, "application/yaml", dep).expect(201)
	assert.Equal(t, []string{`line 3: key "name" already set in map`, `unknown field "spec.Replicas"`}, r.warnings())
}

// The fast path must give exactly what the careful path gives, and must
// leave to it every body with something to report.
func TestFastPathAgreesWithCarefulPath(t *testing.T) {
	res := &registry.Resource{Group: "apps", Version: "v1", Name: "deployments", Kind: "Deployment",
		New: func() api.Object { return &appsv1.Deployment{} }, Schema: schema.FromGoType(reflect.TypeOf(appsv1.Deployment{}))}
	ok := []string{
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a","labels":{"x":"y"},"creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"replicas":3,"selector":{"matchLabels":{"a":"b"}},"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"nginx","resources":{"limits":{"cpu":"100m","memory":"1Gi"}},"ports":[{"containerPort":80}]}]}}}}`,
		`{"metadata":{"name":"b"},"spec":{"replicas":null}}`,
	}
	for _, body := range ok {
		d := &decoder{res: res, validation: "Strict"}
		fast, fastOK := d.fastDecode([]byte(body))
		require.True(t, fastOK, body)
		m, err := decodeMapOf(body)
		require.NoError(t, err)
		careful, err := d.decodeMap(m)
		require.NoError(t, err)
		assert.Equal(t, careful, fast, body)
	}
	refused := []string{
		`{"spec":{"Replicas":3}}`,
		`{"spec":{"replicas":3,"replicas":4}}`,
		`{"metadata":{"name":"a"},"metadata":{"name":"b"}}`,
		`{"kind":"ReplicaSet"}`,
		`{"spec":{"template":{"spec":{"containers":[{"Name":"c"}]}}}}`,
	}
	for _, body := range refused {
		d := &decoder{res: res, validation: "Strict"}
		_, fastOK := d.fastDecode([]byte(body))
		assert.False(t, fastOK, body)
	}
	// A CRD's schema unions decode objects with their own UnmarshalJSON,
	// where a case variant would pass unseen: CRDs take the careful path.
	assert.False(t, fastDecodable(reflect.TypeOf(&apiextensionsv1.CustomResourceDefinition{}), map[reflect.Type]bool{}))
	assert.True(t, fastDecodable(reflect.TypeOf(&corev1.Pod{}), map[reflect.Type]bool{}))
}

func decodeMapOf(body string) (map[string]any, error) { return unstructured.DecodeMap([]byte(body)) }

// A merge or strategic patch naming a field twice is a duplicate field
// too; the last one is applied.
func TestPatchDuplicateFields(t *testing.T) {
	e := newEnv(t)
	cms := "/api/v1/namespaces/default/configmaps"
	e.do("POST", cms, "", `{"metadata":{"name":"p"},"data":{"a":"0"}}`).expect(201)
	patch := `{"data":{"a":"1","a":"2"}}`
	st := e.do("PATCH", cms+"/p?fieldValidation=Strict", "application/merge-patch+json", patch).expect(400).status()
	assert.Equal(t, `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a"`, st.Message)
	assert.Equal(t, "0", get(e.do("GET", cms+"/p", "", "").obj(), "data", "a"))
	r := e.do("PATCH", cms+"/p", "application/strategic-merge-patch+json", patch).expect(200)
	assert.Equal(t, []string{`duplicate field "data.a"`}, r.warnings())
	assert.Equal(t, "2", get(r.obj(), "data", "a"))
	r = e.do("PATCH", cms+"/p?fieldValidation=Strict", "application/merge-patch+json", `{"data":{"b":"1"},"Data":{"c":"1"}}`).expect(400)
	assert.Contains(t, r.status().Message, `unknown field "Data"`)
}

// DeleteOptions match field names case-sensitively too.
func TestDeleteOptionsCaseSensitive(t *testing.T) {
	e := newEnv(t)
	cms := "/api/v1/namespaces/default/configmaps"
	e.do("POST", cms, "", `{"metadata":{"name":"d"}}`).expect(201)
	st := e.do("DELETE", cms+"/d", "", `{"PropagationPolicy":"Orphan"}`).expect(400).status()
	assert.Contains(t, st.Message, `DeleteOptions in version "v1" cannot be handled as a DeleteOptions: `)
	assert.Contains(t, st.Message, `"PropagationPolicy"`)
	st = e.do("DELETE", cms+"/d", "", `{"propagationPolicy":7}`).expect(400).status()
	assert.Equal(t, `DeleteOptions in version "v1" cannot be handled as a DeleteOptions: json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy of type v1.DeletionPropagation`, st.Message)
	e.do("GET", cms+"/d", "", "").expect(200)
	e.do("DELETE", cms+"/d", "", `{"propagationPolicy":"Background"}`).expect(200)
}

// Server-side apply refuses repeated keys under Strict as kube-apiserver's
// apply decoder does (400, YAML's words with lines) where it used to keep
// the last value and answer 201; Warn warns once per key, and Ignore keeps
// the last value silently. The body may be YAML or JSON.
func TestApplyDuplicateKeys(t *testing.T) {
	e := newEnv(t)
	cms := "/api/v1/namespaces/default/configmaps/"
	const apply = "application/apply-patch+yaml"
	yamlBody := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: \"1\"\n  k: \"2\"\n"
	jsonBody := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},` + "\n" + `"data":{"k":"1","k":"2"}}`
	before := e.store.Revision()

	st := e.do("PATCH", cms+"a?fieldManager=m&fieldValidation=Strict", apply, yamlBody).expect(400).status()
	assert.Equal(t, metav1.StatusReasonBadRequest, st.Reason)
	assert.Equal(t, "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key \"k\" already set in map", st.Message)
	st = e.do("PATCH", cms+"a?fieldManager=m&fieldValidation=Strict", apply, jsonBody).expect(400).status()
	assert.Equal(t, "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 2: key \"k\" already set in map", st.Message)
	assert.Equal(t, before, e.store.Revision(), "a refused apply stores nothing")

	// An update by apply is refused alike.
	e.do("PATCH", cms+"a?fieldManager=m", apply, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: \"0\"\n").expect(201)
	before = e.store.Revision()
	e.do("PATCH", cms+"a?fieldManager=m&fieldValidation=Strict", apply, yamlBody).expect(400)
	assert.Equal(t, before, e.store.Revision())

	r := e.do("PATCH", cms+"a?fieldManager=m&fieldValidation=Warn", apply, yamlBody).expect(200)
	assert.Equal(t, []string{`line 7: key "k" already set in map`}, r.warnings())
	assert.Equal(t, "2", get(r.obj(), "data", "k"), "the last one wins")

	r = e.do("PATCH", cms+"b?fieldManager=m&fieldValidation=Ignore", apply, strings.Replace(yamlBody, "name: a", "name: b", 1)).expect(201)
	assert.Empty(t, r.warnings())
	assert.Equal(t, "2", get(r.obj(), "data", "k"))
}
