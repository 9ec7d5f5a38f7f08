package patch

import (
	"github.com/kubesim/kubesim/api/unstructured"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMergePatch(t *testing.T) {
	tests := []struct {
		name, original, patch, want string
		code                        int // expected *Error code, 0 for success
	}{
		// RFC 7386 Appendix A, the rows whose target is an object.
		{name: "rfc replace", original: `{"a":"b"}`, patch: `{"a":"c"}`, want: `{"a":"c"}`},
		{name: "rfc add", original: `{"a":"b"}`, patch: `{"b":"c"}`, want: `{"a":"b","b":"c"}`},
		{name: "rfc delete", original: `{"a":"b"}`, patch: `{"a":null}`, want: `{}`},
		{name: "rfc delete one of two", original: `{"a":"b","b":"c"}`, patch: `{"a":null}`, want: `{"b":"c"}`},
		{name: "rfc array replaces", original: `{"a":["b"]}`, patch: `{"a":"c"}`, want: `{"a":"c"}`},
		{name: "rfc value by array", original: `{"a":"c"}`, patch: `{"a":["b"]}`, want: `{"a":["b"]}`},
		{name: "rfc nested", original: `{"a":{"b":"c"}}`, patch: `{"a":{"b":"d","c":null}}`, want: `{"a":{"b":"d"}}`},
		{name: "rfc array of objects replaced", original: `{"a":[{"b":"c"}]}`, patch: `{"a":[1]}`, want: `{"a":[1]}`},
		{name: "rfc nested null dropped", original: `{"e":null}`, patch: `{"a":1}`, want: `{"a":1,"e":null}`},
		{name: "rfc deep add prunes nulls", original: `{}`, patch: `{"a":{"bb":{"ccc":null}}}`, want: `{"a":{"bb":{}}}`},
		{name: "rfc array patch replaces doc", original: `{"a":"foo"}`, patch: `["c"]`, want: `["c"]`},
		// The Kubernetes documentation's merge patch of a Deployment's tolerations:
		// lists are replaced, not merged.
		{
			name:     "k8s docs tolerations replaced",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"patch-demo-ctr","image":"nginx"}],"tolerations":[{"effect":"NoSchedule","key":"dedicated","value":"test-team"}]}}}}`,
			patch:    `{"spec":{"template":{"spec":{"containers":[{"name":"patch-demo-ctr-3","image":"gcr.io/google-samples/hello-app:2.0"}]}}}}`,
			want:     `{"spec":{"template":{"spec":{"containers":[{"image":"gcr.io/google-samples/hello-app:2.0","name":"patch-demo-ctr-3"}],"tolerations":[{"effect":"NoSchedule","key":"dedicated","value":"test-team"}]}}}}`,
		},
		{name: "kubectl scale", original: `{"spec":{"replicas":1,"selector":{}}}`, patch: `{"spec":{"replicas":3}}`, want: `{"spec":{"replicas":3,"selector":{}}}`},
		{name: "big integers survive", original: `{"a":9007199254740993}`, patch: `{"b":1.5}`, want: `{"a":9007199254740993,"b":1.5}`},
		{name: "patch null", original: `{"a":1}`, patch: `null`, code: http.StatusBadRequest},
		{name: "patch scalar", original: `{"a":1}`, patch: `"x"`, code: http.StatusBadRequest},
		{name: "patch not json", original: `{"a":1}`, patch: `{"a":`, code: http.StatusBadRequest},
		{name: "document not json", original: `{`, patch: `{}`, code: http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MergePatch([]byte(tt.original), []byte(tt.patch))
			if tt.code != 0 {
				var perr *Error
				require.ErrorAs(t, err, &perr)
				assert.Equal(t, tt.code, perr.Code)
				if tt.code == http.StatusBadRequest {
					assert.Equal(t, "Invalid JSON Patch", perr.Error())
				}
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

func TestMergePatchMapLeavesInputsAlone(t *testing.T) {
	orig := map[string]any{"a": map[string]any{"b": "c"}}
	patch := map[string]any{"a": map[string]any{"b": nil, "d": map[string]any{"e": nil}}}
	got := MergePatchMap(orig, patch)
	assert.Equal(t, map[string]any{"a": map[string]any{"d": map[string]any{}}}, got)
	assert.Equal(t, map[string]any{"a": map[string]any{"b": "c"}}, orig)
	assert.Equal(t, map[string]any{"a": map[string]any{"b": nil, "d": map[string]any{"e": nil}}}, patch)
}

func FuzzMergePatch(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1}}`), []byte(`{"a":{"b":null,"c":[1,null]}}`))
	f.Add([]byte(`{"a":"b"}`), []byte(`["c"]`))
	f.Add([]byte(`[]`), []byte(`{"a":null}`))
	f.Add([]byte(`{}`), []byte(`null`))
	f.Fuzz(func(t *testing.T, original, patch []byte) {
		out, err := MergePatch(original, patch)
		if err != nil {
			return
		}
		// Whatever succeeds must be valid JSON, and applying the same patch
		// again must change nothing (merge patches are idempotent).
		again, err := MergePatch(out, patch)
		if err != nil {
			t.Fatalf("second application failed: %v", err)
		}
		a, _ := decodeJSON(out)
		b, _ := decodeJSON(again)
		if !unstructured.Equal(a, b) {
			t.Fatalf("not idempotent: %s then %s", out, again)
		}
	})
}
