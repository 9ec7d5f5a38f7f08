package schema

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// testTime says "string, date-time" like metav1.Time.
type testTime struct{ sec int64 }

func (testTime) OpenAPISchemaType() []string { return []string{"string"} }
func (testTime) OpenAPISchemaFormat() string { return "date-time" }

// testIntOrString says int-or-string like intstr.IntOrString, with pointer
// receivers to check those are found too.
type testIntOrString struct{ s string }

func (*testIntOrString) OpenAPISchemaType() []string { return []string{"string"} }
func (*testIntOrString) OpenAPISchemaFormat() string { return "int-or-string" }

type testMeta struct {
	Name   string            `json:"name,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

type testPort struct {
	Name   string          `json:"name,omitempty"`
	Port   int32           `json:"port"`
	Target testIntOrString `json:"targetPort,omitempty"`
}

type testContainer struct {
	Name  string     `json:"name" description:"the container's name"`
	Ports []testPort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"port"`
}

type testNode struct {
	Value    string      `json:"value"`
	Children []*testNode `json:"children,omitempty"`
}

type testPod struct {
	testMeta   `json:"metadata,omitempty"`
	TypeMeta   `json:",inline"`
	Containers []testContainer `json:"containers" patchStrategy:"merge" patchMergeKey:"name"`
	Finalizers []string        `json:"finalizers,omitempty" patchStrategy:"merge"`
	Started    *testTime       `json:"started,omitempty"`
	Data       []byte          `json:"data,omitempty"`
	Raw        json.RawMessage `json:"raw,omitempty"`
	Any        any             `json:"any,omitempty"`
	Ratio      float64         `json:"ratio,omitempty"`
	Enabled    bool            `json:"enabled,omitempty"`
	Tree       testNode        `json:"tree,omitempty"`
	Skipped    string          `json:"-"`
	private    string
	Counts     map[string]int64 `json:"counts,omitempty"`
}

// TypeMeta is embedded with inline like metav1.TypeMeta.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

func TestFromGoType(t *testing.T) {
	s := FromGoType(reflect.TypeOf(&testPod{}))
	require.NotNil(t, s)
	assert.Equal(t, "object", s.Type)
	assert.Equal(t, []string{"containers"}, s.Required)

	keys := sortedSchemaKeys(s.Properties)
	assert.Equal(t, []string{"any", "apiVersion", "containers", "counts", "data", "enabled", "finalizers", "kind", "metadata", "ratio", "raw", "started", "tree"}, keys)

	md := s.Properties["metadata"]
	assert.Equal(t, "object", md.Type)
	assert.Equal(t, "string", md.Properties["labels"].AdditionalProperties.Schema.Type)

	c := s.Properties["containers"]
	assert.Equal(t, "merge", c.XPatchStrategy)
	assert.Equal(t, "name", c.XPatchMergeKey)
	require.NotNil(t, c.XListType)
	assert.Equal(t, "map", *c.XListType)
	assert.Equal(t, []string{"name"}, c.XListMapKeys)
	item := c.Items.Schema
	assert.Equal(t, []string{"name"}, item.Required)
	assert.Equal(t, "the container's name", item.Properties["name"].Description)
	ports := item.Properties["ports"]
	assert.Equal(t, []string{"port"}, ports.XListMapKeys)
	port := ports.Items.Schema
	assert.Equal(t, api.JSONSchemaProps{Type: "integer", Format: "int32"}, port.Properties["port"])
	assert.True(t, port.Properties["targetPort"].XIntOrString)
	assert.Empty(t, port.Properties["targetPort"].Type)

	fin := s.Properties["finalizers"]
	assert.Equal(t, "set", *fin.XListType)
	assert.Equal(t, "string", fin.Items.Schema.Type)

	assert.Equal(t, api.JSONSchemaProps{Type: "string", Format: "date-time"}, s.Properties["started"])
	assert.Equal(t, api.JSONSchemaProps{Type: "string", Format: "byte"}, s.Properties["data"])
	assert.True(t, *s.Properties["raw"].XPreserveUnknownFields)
	assert.True(t, *s.Properties["any"].XPreserveUnknownFields)
	assert.Equal(t, "double", s.Properties["ratio"].Format)
	assert.Equal(t, "boolean", s.Properties["enabled"].Type)
	assert.Equal(t, "int64", s.Properties["counts"].AdditionalProperties.Schema.Format)

	// The recursive type is cut at its second visit.
	tree := s.Properties["tree"]
	child := tree.Properties["children"].Items.Schema
	assert.Equal(t, "object", child.Type)
	assert.True(t, *child.XPreserveUnknownFields)
	assert.Nil(t, child.Properties)

	// The generated schema drives validation like a CRD schema.
	obj := mustObj(t, `{"containers":[{"ports":[{"port":"80","targetPort":8080}]}],"started":"2024-01-01T00:00:00Z","data":"??"}`)
	assert.Equal(t, []string{
		`containers[0].ports[0].port: Invalid value: "string": containers[0].ports[0].port in body must be of type integer: "string"`,
		`containers[0].name: Required value`,
		`data: Invalid value: "??": data in body must be of type byte: "??"`,
	}, messages(Validate(s, obj, nil)))
	// It is structural; only the full metadata schema, which the apiserver
	// owns for built-in kinds, is more than a CRD may declare.
	assert.Equal(t, []string{
		`schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
	}, messages(ValidateStructural(s, field.NewPath("schema"))))
	assert.Empty(t, ValidateStructural(FromGoType(reflect.TypeOf(testContainer{})), field.NewPath("schema")))
}

func TestNode(t *testing.T) {
	n := NewNode(FromGoType(reflect.TypeOf(testPod{})))
	c := n.Field("containers")
	require.NotNil(t, c)
	strategy, key := c.PatchStrategy()
	assert.Equal(t, "merge", strategy)
	assert.Equal(t, "name", key)
	lt, keys := c.ListType()
	assert.Equal(t, "map", lt)
	assert.Equal(t, []string{"name"}, keys)
	assert.Equal(t, "string", c.Elem().Field("name").Props.Type)
	assert.Equal(t, "int64", n.Field("counts").Elem().Props.Format)
	assert.Equal(t, "string", n.Field("metadata").Field("labels").Field("anything").Props.Type)

	assert.Nil(t, n.Field("nope"))
	assert.Nil(t, n.Field("enabled").Elem())
	lt, keys = n.Field("enabled").ListType()
	assert.Empty(t, lt)
	assert.Nil(t, keys)

	var nilNode *Node
	assert.Nil(t, nilNode.Field("x"))
	assert.Nil(t, nilNode.Elem())
	s1, s2 := nilNode.PatchStrategy()
	assert.Empty(t, s1+s2)
	lt, keys = nilNode.ListType()
	assert.Empty(t, lt)
	assert.Nil(t, keys)
	assert.Nil(t, NewNode(nil))
	assert.Nil(t, nilNode.Field("a").Elem().Field("b"))
}

// testDocumented documents itself as k8s.io/api's generated
// SwaggerDoc methods do; testDocumentedInline is inlined into it and
// documents its own field.
type testDocumented struct {
	testDocumentedInline `json:",inline"`
	Spec                 testDocumentedSpec   `json:"spec"`
	Other                testDocumentedSpec   `json:"other"`
	Tagged               string               `json:"tagged" description:"from the tag"`
	Plain                string               `json:"plain"`
	List                 []testDocumentedSpec `json:"list"`
}

func (testDocumented) SwaggerDoc() map[string]string {
	return map[string]string{"": "A documented kind.", "spec": "What is wanted.", "tagged": "from the doc", "list": "Several."}
}

type testDocumentedInline struct {
	Kind string `json:"kind"`
}

func (testDocumentedInline) SwaggerDoc() map[string]string {
	return map[string]string{"kind": "Kind is the kind."}
}

type testDocumentedSpec struct {
	Size int `json:"size"`
}

func (testDocumentedSpec) SwaggerDoc() map[string]string {
	return map[string]string{"": "A spec.", "size": "How big."}
}

// FromGoType takes descriptions from the types' SwaggerDoc: a field's
// entry (from the type that declares it, inlined or not) describes the
// field; a struct field without one keeps its type's; a description tag
// wins.
func TestFromGoTypeDescriptions(t *testing.T) {
	s := FromGoType(reflect.TypeOf(testDocumented{}))
	assert.Equal(t, "A documented kind.", s.Description)
	assert.Equal(t, "Kind is the kind.", s.Properties["kind"].Description)
	assert.Equal(t, "What is wanted.", s.Properties["spec"].Description)
	assert.Equal(t, "How big.", s.Properties["spec"].Properties["size"].Description)
	assert.Equal(t, "A spec.", s.Properties["other"].Description)
	assert.Equal(t, "from the tag", s.Properties["tagged"].Description)
	assert.Empty(t, s.Properties["plain"].Description)
	assert.Equal(t, "Several.", s.Properties["list"].Description)
	assert.Equal(t, "A spec.", s.Properties["list"].Items.Schema.Description)
}
