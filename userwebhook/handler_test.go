package userwebhook

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func review(op, object string) string {
	return `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","operation":"` + op +
		`","kind":{"group":"auth.ilinux.io","version":"v1beta1","kind":"User"},"object":` + object + `}}`
}

func TestHandler(t *testing.T) {
	tests := []struct {
		name, path, method, contentType, body string
		// code is the HTTP status; for 200 the review's answer follows.
		code    int
		allowed bool
		patch   string
		message string
		status  int32
	}{
		{name: "no groups: defaulted", path: "/mutate", body: review("CREATE", `{"metadata":{"name":"alice"},"spec":{"userID":1}}`),
			code: 200, allowed: true, patch: `[{"op":"add","path":"/spec/groups","value":["users"]}]`},
		{name: "empty groups: defaulted", path: "/mutate", body: review("UPDATE", `{"metadata":{"name":"alice"},"spec":{"groups":[]}}`),
			code: 200, allowed: true, patch: `[{"op":"add","path":"/spec/groups","value":["users"]}]`},
		{name: "no spec: spec added", path: "/mutate", body: review("CREATE", `{"metadata":{"name":"alice"}}`),
			code: 200, allowed: true, patch: `[{"op":"add","path":"/spec","value":{"groups":["users"]}}]`},
		{name: "groups kept", path: "/mutate", body: review("CREATE", `{"metadata":{"name":"bob"},"spec":{"groups":["dev"]}}`),
			code: 200, allowed: true},
		{name: "delete not mutated", path: "/mutate", body: review("DELETE", `null`), code: 200, allowed: true},
		{name: "plain name allowed", path: "/validate", body: review("CREATE", `{"metadata":{"name":"alice"}}`), code: 200, allowed: true},
		{name: "root refused", path: "/validate", body: review("CREATE", `{"metadata":{"name":"root"}}`),
			code: 200, message: `the user name "root" is reserved`, status: 403},
		{name: "system- refused", path: "/validate", body: review("UPDATE", `{"metadata":{"name":"system-x"}}`),
			code: 200, message: `user names starting with "system-" are reserved for the system`, status: 403},
		{name: "object not a User", path: "/validate", body: review("CREATE", `[1]`),
			code: 200, message: "could not decode the User", status: 400},
		{name: "garbage", path: "/validate", body: `{not json`, code: 400},
		{name: "no request", path: "/mutate", body: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, code: 400},
		{name: "v1beta1 review", path: "/mutate", body: strings.Replace(review("CREATE", `{}`), "admission.k8s.io/v1", "admission.k8s.io/v1beta1", 1), code: 400},
		{name: "GET", path: "/mutate", method: http.MethodGet, code: 405},
		{name: "not JSON", path: "/mutate", contentType: "text/plain", body: review("CREATE", `{}`), code: 415},
		{name: "unknown path", path: "/other", body: review("CREATE", `{}`), code: 404},
	}
	h := Handler()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method, ct := tc.method, tc.contentType
			if method == "" {
				method = http.MethodPost
			}
			if ct == "" {
				ct = "application/json"
			}
			r := httptest.NewRequest(method, tc.path, strings.NewReader(tc.body))
			r.Header.Set("Content-Type", ct)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			require.Equal(t, tc.code, w.Code, w.Body.String())
			if tc.code != 200 {
				return
			}
			var out admissionv1.AdmissionReview
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out))
			assert.Equal(t, "admission.k8s.io/v1", out.APIVersion)
			assert.Equal(t, "AdmissionReview", out.Kind)
			require.NotNil(t, out.Response)
			assert.Equal(t, types.UID("u-1"), out.Response.UID, "the uid is echoed")
			assert.Equal(t, tc.allowed, out.Response.Allowed)
			if tc.patch != "" {
				require.NotNil(t, out.Response.PatchType)
				assert.Equal(t, admissionv1.PatchTypeJSONPatch, *out.Response.PatchType)
				assert.JSONEq(t, tc.patch, string(out.Response.Patch))
			} else {
				assert.Nil(t, out.Response.PatchType)
				assert.Empty(t, out.Response.Patch)
			}
			if tc.message != "" {
				require.NotNil(t, out.Response.Result)
				assert.Contains(t, out.Response.Result.Message, tc.message)
				assert.Equal(t, tc.status, out.Response.Result.Code)
			}
		})
	}
}

func TestConvert(t *testing.T) {
	h := Handler()
	post := func(body string) (int, apiextensionsv1.ConversionReview) {
		r := httptest.NewRequest(http.MethodPost, "/convert", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var out apiextensionsv1.ConversionReview
		if w.Code == 200 {
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out))
		}
		return w.Code, out
	}
	review := func(desired string, objs ...string) string {
		return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"c-1","desiredAPIVersion":"` +
			desired + `","objects":[` + strings.Join(objs, ",") + `]}}`
	}
	old := `{"apiVersion":"auth.ilinux.io/v1beta1","kind":"User","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"userID":7,"groups":["g"]}}`
	cur := `{"apiVersion":"auth.ilinux.io/v1","kind":"User","metadata":{"name":"b"},"spec":{"id":8}}`

	code, out := post(review("auth.ilinux.io/v1", old, cur))
	require.Equal(t, 200, code)
	require.NotNil(t, out.Response)
	assert.Equal(t, types.UID("c-1"), out.Response.UID)
	assert.Equal(t, metav1.StatusSuccess, out.Response.Result.Status)
	require.Len(t, out.Response.ConvertedObjects, 2)
	assert.JSONEq(t, `{"apiVersion":"auth.ilinux.io/v1","kind":"User","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"id":7,"groups":["g"]}}`, string(out.Response.ConvertedObjects[0].Raw))
	assert.JSONEq(t, cur, string(out.Response.ConvertedObjects[1].Raw), "already in the desired version")

	code, out = post(review("auth.ilinux.io/v1beta1", cur))
	require.Equal(t, 200, code)
	assert.JSONEq(t, `{"apiVersion":"auth.ilinux.io/v1beta1","kind":"User","metadata":{"name":"b"},"spec":{"userID":8}}`, string(out.Response.ConvertedObjects[0].Raw))

	code, out = post(review("auth.ilinux.io/v2", old))
	require.Equal(t, 200, code)
	assert.Equal(t, metav1.StatusFailure, out.Response.Result.Status)
	assert.Equal(t, `unsupported version "auth.ilinux.io/v2"`, out.Response.Result.Message)
	assert.Empty(t, out.Response.ConvertedObjects)

	code, _ = post(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}`)
	assert.Equal(t, 400, code)
	code, _ = post(`nope`)
	assert.Equal(t, 400, code)
}
