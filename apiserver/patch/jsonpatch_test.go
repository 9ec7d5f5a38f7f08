package patch

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONPatch(t *testing.T) {
	tests := []struct {
		name, doc, patch, want string
		code                   int
		msg                    string
	}{
		// RFC 6902 Appendix A.
		{name: "A.1 add object member", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/baz","value":"qux"}]`, want: `{"baz":"qux","foo":"bar"}`},
		{name: "A.2 add array element", doc: `{"foo":["bar","baz"]}`, patch: `[{"op":"add","path":"/foo/1","value":"qux"}]`, want: `{"foo":["bar","qux","baz"]}`},
		{name: "A.3 remove member", doc: `{"baz":"qux","foo":"bar"}`, patch: `[{"op":"remove","path":"/baz"}]`, want: `{"foo":"bar"}`},
		{name: "A.4 remove element", doc: `{"foo":["bar","qux","baz"]}`, patch: `[{"op":"remove","path":"/foo/1"}]`, want: `{"foo":["bar","baz"]}`},
		{name: "A.5 replace", doc: `{"baz":"qux","foo":"bar"}`, patch: `[{"op":"replace","path":"/baz","value":"boo"}]`, want: `{"baz":"boo","foo":"bar"}`},
		{name: "A.6 move member", doc: `{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`, patch: `[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`, want: `{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`},
		{name: "A.7 move element", doc: `{"foo":["all","grass","cows","eat"]}`, patch: `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`, want: `{"foo":["all","cows","eat","grass"]}`},
		{name: "A.8 test success", doc: `{"baz":"qux","foo":["a",2,"c"]}`, patch: `[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`, want: `{"baz":"qux","foo":["a",2,"c"]}`},
		{name: "A.9 test failure", doc: `{"baz":"qux"}`, patch: `[{"op":"test","path":"/baz","value":"bar"}]`, code: 422, msg: "testing value /baz failed: test failed"},
		{name: "A.10 add nested", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/child","value":{"grandchild":{}}}]`, want: `{"child":{"grandchild":{}},"foo":"bar"}`},
		{name: "A.11 ignore unknown members", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/baz","value":"qux","xyz":123}]`, want: `{"baz":"qux","foo":"bar"}`},
		{name: "A.12 add to nonexistent target", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/baz/bat","value":"qux"}]`, code: 422, msg: `add operation does not apply: doc is missing path: "/baz/bat": missing value`},
		{name: "A.14 escape ordering", doc: `{"/":9,"~1":10}`, patch: `[{"op":"test","path":"/~01","value":10}]`, want: `{"/":9,"~1":10}`},
		{name: "A.15 comparing strings and numbers", doc: `{"/":9,"~1":10}`, patch: `[{"op":"test","path":"/~01","value":"10"}]`, code: 422, msg: "testing value /~01 failed: test failed"},
		{name: "A.16 add array value", doc: `{"foo":["bar"]}`, patch: `[{"op":"add","path":"/foo/-","value":["abc","def"]}]`, want: `{"foo":["bar",["abc","def"]]}`},
		// Kubernetes usage.
		{
			name:  "k8s docs replace image",
			doc:   `{"spec":{"template":{"spec":{"containers":[{"name":"patch-demo-ctr","image":"nginx"}]}}}}`,
			patch: `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"new-image"}]`,
			want:  `{"spec":{"template":{"spec":{"containers":[{"image":"new-image","name":"patch-demo-ctr"}]}}}}`,
		},
		{name: "label with slash escaped", doc: `{"metadata":{"labels":{}}}`, patch: `[{"op":"add","path":"/metadata/labels/app.kubernetes.io~1name","value":"web"}]`, want: `{"metadata":{"labels":{"app.kubernetes.io/name":"web"}}}`},
		{name: "tilde escaped", doc: `{}`, patch: `[{"op":"add","path":"/a~0b","value":1}]`, want: `{"a~b":1}`},
		{name: "append to finalizers", doc: `{"metadata":{"finalizers":["a"]}}`, patch: `[{"op":"add","path":"/metadata/finalizers/-","value":"b"}]`, want: `{"metadata":{"finalizers":["a","b"]}}`},
		{name: "append to nested list in list", doc: `{"a":[[1],[2]]}`, patch: `[{"op":"add","path":"/a/1/-","value":3}]`, want: `{"a":[[1],[2,3]]}`},
		{name: "negative index", doc: `{"a":[1,2,3]}`, patch: `[{"op":"remove","path":"/a/-1"}]`, want: `{"a":[1,2]}`},
		{name: "copy", doc: `{"a":{"b":[1]}}`, patch: `[{"op":"copy","from":"/a","path":"/c"},{"op":"add","path":"/c/b/-","value":2}]`, want: `{"a":{"b":[1]},"c":{"b":[1,2]}}`},
		{name: "replace missing member adds (evanphx v4)", doc: `{"spec":{}}`, patch: `[{"op":"replace","path":"/spec/foo","value":1}]`, want: `{"spec":{"foo":1}}`},
		{name: "replace whole doc", doc: `{"a":1}`, patch: `[{"op":"replace","path":"","value":{"b":2}}]`, want: `{"b":2}`},
		{name: "test null against missing", doc: `{"a":1}`, patch: `[{"op":"test","path":"/b","value":null}]`, want: `{"a":1}`},
		{name: "big int kept", doc: `{"a":9007199254740993}`, patch: `[]`, want: `{"a":9007199254740993}`},
		// Errors, with evanphx/json-patch v4 wording.
		{name: "replace under missing path", doc: `{}`, patch: `[{"op":"replace","path":"/spec/foo","value":1}]`, code: 422, msg: "replace operation does not apply: doc is missing path: /spec/foo: missing value"},
		{name: "replace missing index", doc: `{"a":[]}`, patch: `[{"op":"replace","path":"/a/0","value":1}]`, code: 422, msg: "replace operation does not apply: doc is missing key: /a/0: missing value"},
		{name: "remove missing member", doc: `{"a":{}}`, patch: `[{"op":"remove","path":"/a/b"}]`, code: 422, msg: "error in remove for path: '/a/b': Unable to remove nonexistent key: b: missing value"},
		{name: "remove under missing path", doc: `{}`, patch: `[{"op":"remove","path":"/spec/foo"}]`, code: 422, msg: `remove operation does not apply: doc is missing path: "/spec/foo": missing value`},
		{name: "add past end", doc: `{"a":[1]}`, patch: `[{"op":"add","path":"/a/5","value":1}]`, code: 422, msg: "error in add for path: '/a/5': Unable to access invalid index: 5: invalid index referenced"},
		{name: "add bad index", doc: `{"a":[1]}`, patch: `[{"op":"add","path":"/a/x","value":1}]`, code: 422, msg: `error in add for path: '/a/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`},
		{name: "move from missing", doc: `{}`, patch: `[{"op":"move","from":"/a/b","path":"/c"}]`, code: 422, msg: "move operation does not apply: doc is missing from path: /a/b: missing value"},
		{name: "move into own child", doc: `{"a":{}}`, patch: `[{"op":"move","from":"/a","path":"/a/b"}]`, code: 422, msg: "move operation does not apply: doc is missing destination path: /a/b: missing value"},
		{name: "copy to missing", doc: `{"a":1}`, patch: `[{"op":"copy","from":"/a","path":"/x/y"}]`, code: 422, msg: "copy operation does not apply: doc is missing destination path: /x/y: missing value"},
		{name: "missing path", doc: `{}`, patch: `[{"op":"add","value":1}]`, code: 422, msg: "add operation failed to decode path: missing value"},
		{name: "missing from", doc: `{}`, patch: `[{"op":"move","path":"/a"}]`, code: 422, msg: "move operation failed to decode from: operation, missing from field: missing value"},
		{name: "unknown op", doc: `{}`, patch: `[{"op":"frobnicate","path":"/a"}]`, code: 422, msg: "Unexpected kind: frobnicate"},
		{name: "no op", doc: `{}`, patch: `[{"path":"/a"}]`, code: 422, msg: "Unexpected kind: unknown"},
		{name: "later op fails", doc: `{"a":1}`, patch: `[{"op":"add","path":"/b","value":2},{"op":"test","path":"/a","value":2}]`, code: 422, msg: "testing value /a failed: test failed"},
		{name: "patch not a list", doc: `{}`, patch: `{"op":"add"}`, code: 400, msg: "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
		{name: "operation not an object", doc: `{}`, patch: `["add"]`, code: 400, msg: "json: cannot unmarshal string into Go value of type jsonpatch.Operation"},
		{name: "patch not json", doc: `{}`, patch: `[`, code: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSONPatch([]byte(tt.doc), []byte(tt.patch))
			if tt.code != 0 {
				var perr *Error
				require.ErrorAs(t, err, &perr)
				assert.Equal(t, tt.code, perr.Code)
				if tt.msg != "" {
					assert.Equal(t, tt.msg, perr.Message)
				}
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
			assert.Equal(t, tt.want, string(got)) // numbers and order survive exactly
		})
	}
}

func TestJSONPatchTooManyOperations(t *testing.T) {
	ops := strings.Repeat(`{"op":"test","path":"/a","value":1},`, MaxJSONPatchOperations)
	_, err := JSONPatch([]byte(`{"a":1}`), []byte("["+ops+`{"op":"test","path":"/a","value":1}]`))
	var perr *Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, http.StatusRequestEntityTooLarge, perr.Code)
	assert.Equal(t, fmt.Sprintf("The allowed maximum operations in a JSON patch is 10000, got %d", MaxJSONPatchOperations+1), perr.Message)
}

func FuzzJSONPatch(f *testing.F) {
	f.Add([]byte(`{"foo":["bar","baz"],"a":{"b":null}}`), []byte(`[{"op":"add","path":"/foo/1","value":"qux"},{"op":"move","from":"/foo/0","path":"/a/c"}]`))
	f.Add([]byte(`{"a":[[1],[2]]}`), []byte(`[{"op":"copy","from":"/a/0","path":"/a/1/-"},{"op":"remove","path":"/a/-2"}]`))
	f.Add([]byte(`[1,2]`), []byte(`[{"op":"replace","path":"","value":[3]},{"op":"test","path":"/0","value":3}]`))
	f.Add([]byte(`{}`), []byte(`[{"op":"add","path":"/~1/~0","value":1}]`))
	f.Fuzz(func(t *testing.T, doc, patch []byte) {
		before := string(doc)
		out, err := JSONPatch(doc, patch)
		if string(doc) != before {
			t.Fatalf("input modified")
		}
		if err == nil && len(doc) > 0 {
			if _, derr := decodeJSON(out); derr != nil {
				t.Fatalf("invalid output %q: %v", out, derr)
			}
		}
	})
}
