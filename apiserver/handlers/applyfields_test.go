package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// A server-side apply that names a field a built-in kind does not declare
// is refused as kube-apiserver refuses it, whatever fieldValidation says:
// 500, no reason, the field manager's words with structured-merge-diff's
// paths, and nothing stored.
func TestApplyRefusesUndeclaredFields(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.LoopbackHandler()
	apply := func(path, query, body string) (*httptest.ResponseRecorder, metav1.Status) {
		t.Helper()
		req := httptest.NewRequest("PATCH", path+"?fieldManager=test"+query, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/apply-patch+yaml")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var st metav1.Status
		_ = json.Unmarshal(rec.Body.Bytes(), &st)
		return rec, st
	}
	cases := []struct {
		name, path, body, message string
	}{{
		name: "top level", path: "/api/v1/namespaces/default/configmaps/undeclared",
		body:    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: undeclared\n  namespace: default\ndata:\n  a: b\nfoo: bar\n",
		message: "failed to create typed patch object (default/undeclared; /v1, Kind=ConfigMap): .foo: field not declared in schema",
	}, {
		name: "in a keyed list, and in metadata", path: "/apis/apps/v1/namespaces/default/deployments/web",
		body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","colour":"blue"},"spec":{"selector":{"matchLabels":{"app":"web"}},
			"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx","imagePolicy":"Always"}]}},"foo":1}}`,
		message: "failed to create typed patch object (/web; apps/v1, Kind=Deployment): errors:\n" +
			"  .metadata.colour: field not declared in schema\n" +
			"  .spec.foo: field not declared in schema\n" +
			"  .spec.template.spec.containers[name=\"nginx\"].imagePolicy: field not declared in schema",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, validation := range []string{"", "&fieldValidation=Ignore", "&fieldValidation=Strict"} {
				rec, st := apply(tc.path, validation, tc.body)
				require.Equal(t, http.StatusInternalServerError, rec.Code, rec.Body.String())
				assert.Equal(t, metav1.StatusReason(""), st.Reason)
				assert.Equal(t, int32(500), st.Code)
				assert.Equal(t, tc.message, st.Message)
			}
			req := httptest.NewRequest("GET", tc.path, nil)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, http.StatusNotFound, rec.Code, "nothing was stored")
		})
	}

	// Without the undeclared field the same apply creates the object.
	rec, _ := apply("/api/v1/namespaces/default/configmaps/undeclared", "", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: undeclared\ndata:\n  a: b\n")
	assert.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
}
