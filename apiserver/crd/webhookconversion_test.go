package crd_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/pki"
)

// conversionCRD serves stable.example.com CronTabs at v1 (stored, with
// spec.cronSpec) and v2 (spec.schedule), converted by a webhook at url.
func conversionCRD(url string, ca []byte) string {
	spec := `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"crontabs.stable.example.com"},
"spec":{"group":"stable.example.com","scope":"Namespaced",
 "names":{"plural":"crontabs","singular":"crontab","kind":"CronTab"},
 "conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],
   "clientConfig":{"url":"` + url + `","caBundle":"` + base64.StdEncoding.EncodeToString(ca) + `"}}},
 "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":` + spec + `}},
             {"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":` + spec + `}}]}}`
}

// converter is a conversion webhook: cronSpec (v1) <-> schedule (v2).
// mode picks a misbehaviour.
func converter(mode *atomic.Value, calls *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var review apiextensionsv1.ConversionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req := review.Request
		resp := &apiextensionsv1.ConversionResponse{UID: req.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
		for _, o := range req.Objects {
			var m map[string]any
			_ = json.Unmarshal(o.Raw, &m)
			spec, _ := m["spec"].(map[string]any)
			if req.DesiredAPIVersion == "stable.example.com/v2" {
				spec["schedule"] = spec["cronSpec"]
				delete(spec, "cronSpec")
			} else {
				spec["cronSpec"] = spec["schedule"]
				delete(spec, "schedule")
			}
			m["apiVersion"] = req.DesiredAPIVersion
			switch mode.Load() {
			case "rename":
				m["metadata"].(map[string]any)["name"] = "other"
			case "label":
				md := m["metadata"].(map[string]any)
				md["labels"].(map[string]any)["converted"] = "yes"
				delete(md, "creationTimestamp")
			}
			data, _ := json.Marshal(m)
			resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: data})
		}
		switch mode.Load() {
		case "500":
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		case "garbage":
			_, _ = w.Write([]byte("not json"))
			return
		case "uid":
			resp.UID = "someone-else"
		case "count":
			resp.ConvertedObjects = append(resp.ConvertedObjects, resp.ConvertedObjects...)
		case "failed":
			resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: "cannot convert this one"}
		case "version":
			resp.ConvertedObjects = resp.ConvertedObjects[:0]
			for _, o := range req.Objects {
				resp.ConvertedObjects = append(resp.ConvertedObjects, o)
			}
		}
		_ = json.NewEncoder(w).Encode(apiextensionsv1.ConversionReview{TypeMeta: review.TypeMeta, Response: resp})
	}
}

func TestConversionWebhook(t *testing.T) {
	b, err := pki.EnsureServing(t.TempDir(), nil, time.Now(), rand.Reader)
	require.NoError(t, err)
	var mode atomic.Value
	mode.Store("ok")
	var calls atomic.Int64
	srv := httptest.NewUnstartedServer(converter(&mode, &calls))
	srv.TLS = b.ServerTLSConfig()
	srv.StartTLS()
	t.Cleanup(srv.Close)

	env := apiservertest.New(t)
	h := env.Server.Handler()
	code, body := raw(t, h, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", conversionCRD(srv.URL+"/convert", b.CAPEM))
	require.Equal(t, 201, code, "%v", body)
	v1 := "/apis/stable.example.com/v1/namespaces/default/crontabs"
	v2 := "/apis/stable.example.com/v2/namespaces/default/crontabs"

	// Written at v2: converted to the storage version v1 and back.
	code, body = raw(t, h, "POST", v2, `{"apiVersion":"stable.example.com/v2","kind":"CronTab","metadata":{"name":"ct","labels":{"a":"b"}},"spec":{"schedule":"* * * * *"}}`)
	require.Equal(t, 201, code, "%v", body)
	assert.Equal(t, "stable.example.com/v2", body["apiVersion"])
	assert.Equal(t, map[string]any{"schedule": "* * * * *"}, body["spec"])
	before := calls.Load()
	code, body = raw(t, h, "GET", v1+"/ct", "")
	require.Equal(t, 200, code, "%v", body)
	assert.Equal(t, map[string]any{"cronSpec": "* * * * *"}, body["spec"], "stored in v1")
	assert.Equal(t, before, calls.Load(), "reading the storage version calls no webhook")
	code, body = raw(t, h, "GET", v2+"/ct", "")
	require.Equal(t, 200, code, "%v", body)
	assert.Equal(t, map[string]any{"schedule": "* * * * *"}, body["spec"])
	assert.Equal(t, map[string]any{"a": "b"}, body["metadata"].(map[string]any)["labels"])
	// A second object, then one list: one review for the page.
	code, _ = raw(t, h, "POST", v1, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"ct2"},"spec":{"cronSpec":"0 * * * *"}}`)
	require.Equal(t, 201, code)
	before = calls.Load()
	code, body = raw(t, h, "GET", v2, "")
	require.Equal(t, 200, code, "%v", body)
	items := body["items"].([]any)
	require.Len(t, items, 2)
	assert.Equal(t, map[string]any{"schedule": "0 * * * *"}, items[1].(map[string]any)["spec"])
	assert.Equal(t, before+1, calls.Load())

	prefix := "Internal error occurred: conversion webhook for stable.example.com/v1, Kind=CronTab "
	for _, tc := range []struct{ mode, message string }{
		{"500", `failed: an error on the server ("boom") has prevented the request from succeeding`},
		{"garbage", "failed: invalid character 'o' in literal null (expecting 'u')"},
		{"uid", `failed: expected response.uid="`},
		{"count", "returned 2 objects, expected 1"},
		{"failed", "failed: cannot convert this one"},
		{"version", `returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)`},
		{"rename", `returned invalid object: must have the same name: ct != other`},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			mode.Store(tc.mode)
			code, body := raw(t, h, "GET", v2+"/ct", "")
			assert.Equal(t, 500, code)
			assert.Equal(t, "InternalError", body["reason"])
			assert.Contains(t, body["message"], prefix+tc.message)
		})
	}
	// In a list, the objects are counted (from 1, as the real converter
	// counts them once decoded).
	mode.Store("version")
	code, body = raw(t, h, "GET", v2, "")
	assert.Equal(t, 500, code)
	assert.Contains(t, body["message"], prefix+"returned invalid converted object at index 1: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)")
	// Labels the webhook changes are kept, the rest of metadata is the
	// original's.
	mode.Store("label")
	code, body = raw(t, h, "GET", v2+"/ct", "")
	require.Equal(t, 200, code, "%v", body)
	meta := body["metadata"].(map[string]any)
	assert.Equal(t, map[string]any{"a": "b", "converted": "yes"}, meta["labels"])
	assert.NotEmpty(t, meta["creationTimestamp"], "restored from the original")

	// Unreachable: the write is refused, nothing stored.
	mode.Store("ok")
	srv.Close()
	code, body = raw(t, h, "POST", v2, `{"apiVersion":"stable.example.com/v2","kind":"CronTab","metadata":{"name":"ct3"},"spec":{"schedule":"1 * * * *"}}`)
	assert.Equal(t, 500, code)
	msg, _ := body["message"].(string)
	assert.True(t, strings.HasPrefix(msg, `Internal error occurred: conversion webhook for stable.example.com/v2, Kind=CronTab failed: Post "`+srv.URL+`/convert?timeout=30s": `), msg)
	code, _ = raw(t, h, "GET", v1+"/ct3", "")
	assert.Equal(t, 404, code, "nothing stored")
}
