package patch

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// js decodes a JSON object literal for a test.
func js(t testing.TB, s string) map[string]any {
	t.Helper()
	m, err := DecodeObject([]byte(s))
	require.NoError(t, err, s)
	return m
}

func asJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

const webDeployment = `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{old}"}},
  "spec": {
    "replicas": 2,
    "selector": {"matchLabels": {"app": "web"}},
    "template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {"containers": [{"name": "web", "image": "nginx:1.25", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}
    }
  }
}`

// TestStrategicMergePatchKubectlImageChange is the reference's key
// requirement: `kubectl apply` after changing only the image sends this
// patch, and the ports the server holds must survive it.
func TestStrategicMergePatchKubectlImageChange(t *testing.T) {
	live := js(t, webDeployment)
	patch := js(t, `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{new}"}},
	  "spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],"containers":[{"image":"nginx:1.26","name":"web"}]}}}}`)
	got, err := StrategicMergePatch(live, patch, deploymentSchema)
	require.NoError(t, err)
	want := js(t, webDeployment)
	want["metadata"].(map[string]any)["annotations"] = map[string]any{"kubectl.kubernetes.io/last-applied-configuration": "{new}"}
	c := want["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	c["image"] = "nginx:1.26"
	assert.Equal(t, want, got)
	assert.Equal(t, js(t, webDeployment), live, "the live object must not change")
}

func TestStrategicMergePatch(t *testing.T) {
	podSpec := func(s string) string { return `{"spec":{"template":{"spec":` + s + `}}}` }
	tests := []struct {
		name, original, patch, want string
		schema                      Schema
	}{
		// kubernetes.io "Update API Objects in Place Using kubectl patch".
		{
			name:     "docs: strategic merge adds a container, new one first",
			original: podSpec(`{"containers":[{"name":"patch-demo-ctr","image":"nginx"}]}`),
			patch:    podSpec(`{"containers":[{"name":"patch-demo-ctr-2","image":"redis"}]}`),
			want:     podSpec(`{"containers":[{"name":"patch-demo-ctr-2","image":"redis"},{"name":"patch-demo-ctr","image":"nginx"}]}`),
		},
		{
			name:     "docs: tolerations have no strategy and are replaced",
			original: podSpec(`{"tolerations":[{"effect":"NoSchedule","key":"disktype","value":"ssd"}]}`),
			patch:    podSpec(`{"tolerations":[{"effect":"NoSchedule","key":"dedicated","value":"test-team"}]}`),
			want:     podSpec(`{"tolerations":[{"effect":"NoSchedule","key":"dedicated","value":"test-team"}]}`),
		},
		{
			name:     "docs: $patch replace as a list element replaces the list",
			original: podSpec(`{"containers":[{"name":"a","image":"nginx"},{"name":"b","image":"redis"}]}`),
			patch:    podSpec(`{"containers":[{"name":"patch-demo-ctr-3","image":"gcr.io/google-samples/node-hello:1.0"},{"$patch":"replace"}]}`),
			want:     podSpec(`{"containers":[{"name":"patch-demo-ctr-3","image":"gcr.io/google-samples/node-hello:1.0"}]}`),
		},
		{
			name:     "docs: $retainKeys switches the rollout strategy",
			original: `{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":1}}}}`,
			patch:    `{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}`,
			want:     `{"spec":{"strategy":{"type":"Recreate"}}}`,
		},
		{
			name:     "volume switched from emptyDir to hostPath",
			original: podSpec(`{"volumes":[{"name":"data","emptyDir":{}},{"name":"cache","emptyDir":{}}]}`),
			patch:    podSpec(`{"$setElementOrder/volumes":[{"name":"data"},{"name":"cache"}],"volumes":[{"$retainKeys":["hostPath","name"],"hostPath":{"path":"/tmp"},"name":"data"}]}`),
			want:     podSpec(`{"volumes":[{"name":"data","hostPath":{"path":"/tmp"}},{"name":"cache","emptyDir":{}}]}`),
		},
		{
			name:     "delete a container by merge key",
			original: podSpec(`{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}`),
			patch:    podSpec(`{"$setElementOrder/containers":[{"name":"b"}],"containers":[{"$patch":"delete","name":"a"}]}`),
			want:     podSpec(`{"containers":[{"name":"b","image":"y"}]}`),
		},
		{
			name:     "ports and env merge by key inside a container",
			original: podSpec(`{"containers":[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}],"ports":[{"containerPort":80},{"containerPort":443}]}]}`),
			patch:    podSpec(`{"containers":[{"name":"a","env":[{"name":"Y","value":"3"}],"ports":[{"containerPort":443,"name":"https"}]}]}`),
			want:     podSpec(`{"containers":[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"3"}],"ports":[{"containerPort":80},{"containerPort":443,"name":"https"}]}]}`),
		},
		{
			name:     "setElementOrder keeps a server-only element where it was",
			original: podSpec(`{"containers":[{"name":"a"},{"name":"sidecar"},{"name":"b"}]}`),
			patch:    podSpec(`{"$setElementOrder/containers":[{"name":"a"},{"name":"b"},{"name":"n"}],"containers":[{"name":"n","image":"new"}]}`),
			want:     podSpec(`{"containers":[{"name":"a"},{"name":"sidecar"},{"name":"b"},{"name":"n","image":"new"}]}`),
		},
		{
			name:     "setElementOrder reorders",
			original: podSpec(`{"containers":[{"name":"a"},{"name":"b"}]}`),
			patch:    podSpec(`{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}]}`),
			want:     podSpec(`{"containers":[{"name":"b"},{"name":"a"}]}`),
		},
		{
			name:     "finalizers are a union",
			original: `{"metadata":{"finalizers":["a","b"]}}`,
			patch:    `{"metadata":{"finalizers":["c","a"]}}`,
			want:     `{"metadata":{"finalizers":["c","a","b"]}}`,
		},
		{
			name:     "deleteFromPrimitiveList with setElementOrder",
			original: `{"metadata":{"finalizers":["a","b"]}}`,
			patch:    `{"metadata":{"$setElementOrder/finalizers":["a","c"],"$deleteFromPrimitiveList/finalizers":["b"],"finalizers":["c"]}}`,
			want:     `{"metadata":{"finalizers":["a","c"]}}`,
		},
		{
			name:     "deleteFromPrimitiveList of an absent list adds nothing",
			original: `{"metadata":{}}`,
			patch:    `{"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}}`,
			want:     `{"metadata":{}}`,
		},
		{
			name:     "null deletes, unmatched null is dropped",
			original: `{"metadata":{"labels":{"a":"1","b":"2"}}}`,
			patch:    `{"metadata":{"labels":{"a":null,"zz":null}}}`,
			want:     `{"metadata":{"labels":{"b":"2"}}}`,
		},
		{
			name:     "$patch replace on a map",
			original: `{"metadata":{"labels":{"a":"1","b":"2"}}}`,
			patch:    `{"metadata":{"labels":{"$patch":"replace","c":"3"}}}`,
			want:     `{"metadata":{"labels":{"c":"3"}}}`,
		},
		{
			name:     "$patch delete on a map empties it",
			original: `{"spec":{"nodeSelector":{"a":"1"}}}`,
			patch:    `{"spec":{"nodeSelector":{"$patch":"delete"}}}`,
			want:     `{"spec":{"nodeSelector":{}}}`,
		},
		{
			name:     "$patch merge on a map is the default",
			original: `{"metadata":{"labels":{"a":"1"}}}`,
			patch:    `{"metadata":{"labels":{"$patch":"merge","b":"2"}}}`,
			want:     `{"metadata":{"labels":{"a":"1","b":"2"}}}`,
		},
		{
			name:     "kubectl scale through strategic merge",
			original: webDeployment,
			patch:    `{"spec":{"replicas":5}}`,
			want:     `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{old}"}},"spec":{"replicas":5,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.25","ports":[{"containerPort":80,"protocol":"TCP"}]}]}}}}`,
		},
		{
			name:     "new container's directives and nulls are dropped",
			original: podSpec(`{"containers":[]}`),
			patch:    podSpec(`{"containers":[{"name":"a","image":null,"env":[{"name":"X","value":"1"},{"$patch":"delete","name":"Y"}]}]}`),
			want:     podSpec(`{"containers":[{"name":"a","env":[{"name":"X","value":"1"}]}]}`),
		},
		{
			name:     "a new map that is only a directive is not added",
			original: `{"metadata":{}}`,
			patch:    `{"metadata":{"labels":{"$patch":"delete"},"annotations":{"a":"1","b":null}}}`,
			want:     `{"metadata":{"annotations":{"a":"1"}}}`,
		},
		{
			name:     "type change replaces",
			original: `{"spec":{"replicas":"two"}}`,
			patch:    `{"spec":{"replicas":{"a":1}}}`,
			want:     `{"spec":{"replicas":{"a":1}}}`,
		},
		{
			name:     "unknown schema: lists replaced, maps merged",
			original: `{"spec":{"items":[1,2],"m":{"a":1}}}`,
			patch:    `{"spec":{"items":[3],"m":{"b":2}}}`,
			want:     `{"spec":{"items":[3],"m":{"a":1,"b":2}}}`,
			schema:   nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema := tt.schema
			if schema == nil && tt.name[:7] != "unknown" {
				schema = deploymentSchema
			}
			got, err := StrategicMergePatch(js(t, tt.original), js(t, tt.patch), schema)
			require.NoError(t, err)
			assert.Equal(t, js(t, tt.want), got)
		})
	}
}

func TestStrategicMergePatchErrors(t *testing.T) {
	podSpec := func(s string) string { return `{"spec":{"template":{"spec":` + s + `}}}` }
	tests := []struct {
		name, original, patch string
		code                  int
		msg                   string
	}{
		{name: "unknown $patch", original: `{"metadata":{}}`, patch: `{"metadata":{"$patch":"frob","a":"b"}}`, code: 422, msg: "unknown patch type: frob in map: map[$patch:frob a:b]"},
		{name: "element without merge key", original: podSpec(`{"containers":[{"name":"a"}]}`), patch: podSpec(`{"containers":[{"image":"x"}]}`), code: 500, msg: "map: map[image:x] does not contain declared merge key: name"},
		{name: "delete without merge key", original: podSpec(`{"containers":[{"name":"a"}]}`), patch: podSpec(`{"containers":[{"$patch":"delete"}]}`), code: 500, msg: "map: map[$patch:delete] does not contain declared merge key: name"},
		{name: "merge directive in a list", original: podSpec(`{"containers":[{"name":"a"}]}`), patch: podSpec(`{"containers":[{"$patch":"merge"}]}`), code: 500, msg: "merging lists cannot yet be specified in the patch"},
		{name: "retainKeys not a list", original: `{"spec":{"strategy":{}}}`, patch: `{"spec":{"strategy":{"$retainKeys":"type"}}}`, code: 400, msg: "invalid patch format of retainKeys"},
		{name: "retainKeys missing a patched key", original: `{"spec":{"strategy":{}}}`, patch: `{"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}}`, code: 400, msg: "invalid patch format of retainKeys"},
		{name: "setElementOrder not a list", original: podSpec(`{}`), patch: podSpec(`{"$setElementOrder/containers":"a"}`), code: 500, msg: "expected a []interface {}, but received a string"},
		{name: "setElementOrder bad prefix", original: `{}`, patch: `{"$setElementOrderX":[]}`, code: 400, msg: "invalid patch format of setElementOrder list"},
		{name: "deleteFromPrimitiveList bad prefix", original: `{}`, patch: `{"$deleteFromPrimitiveListX":[]}`, code: 400, msg: "invalid patch format of primitive list"},
		{name: "lists of lists", original: `{"metadata":{"finalizers":[["a"]]}}`, patch: `{"metadata":{"finalizers":[["b"]]}}`, code: 422, msg: "lists of lists are not supported"},
		{name: "mixed element types", original: `{"metadata":{"finalizers":["a"]}}`, patch: `{"metadata":{"finalizers":[1]}}`, code: 500, msg: "list element types are not identical: [[a] [1]]"},
		{name: "setElementOrder out of order", original: podSpec(`{"containers":[{"name":"a"},{"name":"b"}]}`), patch: podSpec(`{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"b"}]}`), code: 500,
			msg: "the order in patch list:\n[map[name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := StrategicMergePatch(js(t, tt.original), js(t, tt.patch), deploymentSchema)
			var perr *Error
			require.ErrorAs(t, err, &perr)
			assert.Equal(t, tt.code, perr.Code)
			assert.Equal(t, tt.msg, perr.Message)
		})
	}
}

func TestDecodeObject(t *testing.T) {
	_, err := DecodeObject([]byte(`[1]`))
	var perr *Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, http.StatusBadRequest, perr.Code)
	assert.Equal(t, "invalid JSON document", perr.Message)
	_, err = DecodeObject([]byte(`{"a":`))
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, http.StatusBadRequest, perr.Code)
	m, err := DecodeObject([]byte(`{"a":1,"b":1.5}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": int64(1), "b": 1.5}, m)
}

func FuzzStrategicMergePatch(f *testing.F) {
	f.Add([]byte(webDeployment), []byte(`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],"containers":[{"image":"nginx:1.26","name":"web"}]}}}}`))
	f.Add([]byte(`{"metadata":{"finalizers":["a","b"]}}`), []byte(`{"metadata":{"$setElementOrder/finalizers":["a",{}],"$deleteFromPrimitiveList/finalizers":["b"],"finalizers":[null]}}`))
	f.Add([]byte(`{"spec":{"template":{"spec":{"volumes":[{"name":"a","emptyDir":{}}]}}}}`), []byte(`{"spec":{"template":{"spec":{"volumes":[{"$retainKeys":["name"],"name":"a"},{"$patch":"replace"}]}}}}`))
	f.Add([]byte(`{"spec":{"template":{"spec":{"containers":[{"name":{}},{"name":[1]}]}}}}`), []byte(`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":{}}],"containers":[{"name":[1],"$patch":"delete"}]}}}}`))
	f.Fuzz(func(t *testing.T, original, patch []byte) {
		o, err := DecodeObject(original)
		if err != nil {
			return
		}
		p, err := DecodeObject(patch)
		if err != nil {
			return
		}
		before := asJSON(t, o)
		for _, s := range []Schema{deploymentSchema, nil} {
			out, err := StrategicMergePatch(o, p, s)
			if err != nil {
				var perr *Error
				if !errorAs(err, &perr) {
					t.Fatalf("untyped error %T: %v", err, err)
				}
				continue
			}
			if _, err := json.Marshal(out); err != nil {
				t.Fatalf("result does not encode: %v", err)
			}
		}
		if asJSON(t, o) != before {
			t.Fatalf("original modified")
		}
	})
}

func errorAs(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

func TestTypedNilSchemaMeansUnknown(t *testing.T) {
	got, err := StrategicMergePatch(js(t, `{"containers":[{"name":"a","x":1}],"other":{"l":[1]}}`),
		js(t, `{"containers":[{"name":"a","y":2}],"other":{"l":[2]}}`), &typedNilSchema{})
	require.NoError(t, err)
	assert.Equal(t, js(t, `{"containers":[{"name":"a","x":1,"y":2}],"other":{"l":[2]}}`), got)
	_, managed, err := Apply(nil, js(t, `{"other":{"l":[2]}}`), "m", nil, false, &typedNilSchema{}, t0)
	require.NoError(t, err)
	assert.Equal(t, `{"f:other":{"f:l":{}}}`, string(managed[0].FieldsV1))
}
