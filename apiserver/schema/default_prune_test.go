package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

const widgetSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer, default: 1}
      mode: {type: string, default: fast}
      note: {type: string, nullable: true}
      owner: {type: string}
      ports:
        type: array
        items:
          type: object
          properties:
            port: {type: integer}
            protocol: {type: string, default: TCP}
      labels:
        type: object
        additionalProperties:
          type: object
          properties:
            value: {type: string}
            weight: {type: integer, default: 10}
      extra:
        type: object
        x-kubernetes-preserve-unknown-fields: true
        properties:
          strict:
            type: object
            properties:
              keep: {type: string}
      template:
        type: object
        x-kubernetes-embedded-resource: true
        properties:
          spec:
            type: object
            properties:
              image: {type: string}
  status:
    type: object
    default: {}
    properties:
      phase: {type: string, default: Pending}
`

func TestDefault(t *testing.T) {
	s := mustSchema(t, widgetSchema)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"inside array items", `{"spec":{"ports":[{"port":80},{"port":53,"protocol":"UDP"}]}}`,
			`{"spec":{"mode":"fast","ports":[{"port":80,"protocol":"TCP"},{"port":53,"protocol":"UDP"}],"replicas":1},"status":{"phase":"Pending"}}`},
		{"inside map values", `{"spec":{"labels":{"a":{"value":"x"}}}}`,
			`{"spec":{"labels":{"a":{"value":"x","weight":10}},"mode":"fast","replicas":1},"status":{"phase":"Pending"}}`},
		{"set values stay", `{"spec":{"replicas":3,"mode":"slow"},"status":{"phase":"Running"}}`,
			`{"spec":{"mode":"slow","replicas":3},"status":{"phase":"Running"}}`},
		{"null gets the default", `{"spec":{"replicas":null}}`,
			`{"spec":{"mode":"fast","replicas":1},"status":{"phase":"Pending"}}`},
		{"defaulted object is defaulted inside", `{}`,
			`{"status":{"phase":"Pending"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := mustObj(t, tt.in)
			Default(s, obj)
			assert.JSONEq(t, tt.want, toJSON(t, obj))
		})
	}
}

func TestDefaultDoesNotShareValues(t *testing.T) {
	s := mustSchema(t, `{type: object, properties: {a: {type: object, default: {x: 1}, properties: {x: {type: integer}}}}}`)
	o1 := mustObj(t, `{}`).(map[string]any)
	o2 := mustObj(t, `{}`).(map[string]any)
	Default(s, o1)
	Default(s, o2)
	o1["a"].(map[string]any)["x"] = int64(2)
	assert.Equal(t, int64(1), o2["a"].(map[string]any)["x"])
}

func TestPrune(t *testing.T) {
	s := mustSchema(t, widgetSchema)
	tests := []struct {
		name    string
		in      string
		want    string
		unknown []string
	}{
		{"unknown field pruned", `{"apiVersion":"a/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"owner":"me","shoeSize":44}}`,
			`{"apiVersion":"a/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"owner":"me"}}`, []string{"spec.shoeSize"}},
		{"unknown in list items and maps", `{"spec":{"ports":[{"port":1,"bad":true}],"labels":{"k":{"value":"v","x":1}}},"top":1}`,
			`{"spec":{"ports":[{"port":1}],"labels":{"k":{"value":"v"}}}}`, []string{"spec.labels.k.x", "spec.ports[0].bad", "top"}},
		{"preserve keeps unknown, prunes known", `{"spec":{"extra":{"free":{"a":1},"strict":{"keep":"k","drop":1}}}}`,
			`{"spec":{"extra":{"free":{"a":1},"strict":{"keep":"k"}}}}`, []string{"spec.extra.strict.drop"}},
		{"embedded resource keeps type and object meta", `{"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"b"}},"spec":{"image":"nginx","junk":1},"other":2}}}`,
			`{"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"b"}},"spec":{"image":"nginx"}}}}`, []string{"spec.template.other", "spec.template.spec.junk"}},
		{"nulls: non-nullable without default dropped, nullable kept, defaulted kept", `{"spec":{"owner":null,"note":null,"replicas":null}}`,
			`{"spec":{"note":null,"replicas":null}}`, nil},
		{"unknown object value pruned whole", `{"spec":{"weird":{"a":{"b":1}}}}`,
			`{"spec":{}}`, []string{"spec.weird"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := mustObj(t, tt.in)
			unknown := Prune(s, obj, PruneOptions{IsResourceRoot: true})
			assert.JSONEq(t, tt.want, toJSON(t, obj))
			assert.Equal(t, tt.unknown, unknown)
		})
	}
}

func TestPruneNotResourceRoot(t *testing.T) {
	s := mustSchema(t, `{type: object, properties: {spec: {type: object}}}`)
	obj := mustObj(t, `{"kind":"X","spec":{}}`)
	// Like Kubernetes, a top-level kind is removed but not called unknown.
	assert.Empty(t, Prune(s, obj, PruneOptions{}))
	assert.JSONEq(t, `{"spec":{}}`, toJSON(t, obj))
}

func TestPruneKeepNulls(t *testing.T) {
	s := mustSchema(t, `{type: object, properties: {a: {type: string}}}`)
	obj := mustObj(t, `{"a":null}`)
	Prune(s, obj, PruneOptions{KeepNulls: true})
	assert.JSONEq(t, `{"a":null}`, toJSON(t, obj))
	Prune(s, obj, PruneOptions{})
	assert.JSONEq(t, `{}`, toJSON(t, obj))
}

// TestPruneDefaultValidate runs the apiserver's order on a create body.
func TestPruneDefaultValidate(t *testing.T) {
	s := mustSchema(t, widgetSchema)
	obj := mustObj(t, `{"apiVersion":"a/v1","kind":"W","metadata":{"name":"w"},"spec":{"ports":[{"port":80}],"owner":null,"shoe":1}}`)
	assert.Equal(t, []string{"spec.shoe"}, Prune(s, obj, PruneOptions{IsResourceRoot: true}))
	Default(s, obj)
	assert.Empty(t, Validate(s, obj, nil))
	assert.JSONEq(t, `{"apiVersion":"a/v1","kind":"W","metadata":{"name":"w"},"spec":{"mode":"fast","ports":[{"port":80,"protocol":"TCP"}],"replicas":1},"status":{"phase":"Pending"}}`, toJSON(t, obj))
}
