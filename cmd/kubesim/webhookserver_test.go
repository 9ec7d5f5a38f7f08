package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/pki"
)

// webhookServer is an admission webhook a test serves: HTTPS with a
// certificate of a CA of its own, as a webhook behind a Service has, so
// that a configuration calling it must carry that CA in its caBundle.
type webhookServer struct {
	// URL is https://127.0.0.1:<port>; a configuration's clientConfig.url
	// adds the path the test's handler tells webhooks apart by.
	URL string
	// CABundle is the CA's PEM in base64: clientConfig.caBundle.
	CABundle string
}

// startWebhook serves h until the test ends.
func startWebhook(t *testing.T, h http.Handler) *webhookServer {
	t.Helper()
	b, err := pki.EnsureServing(t.TempDir(), nil, time.Now(), rand.Reader)
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = b.ServerTLSConfig()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &webhookServer{URL: srv.URL, CABundle: base64.StdEncoding.EncodeToString(b.CAPEM)}
}

// reviewHandler answers AdmissionReviews: respond is given the URL path
// and the review's request — as *api.AdmissionRequest, or as a
// map[string]any to see the JSON as sent — and its answer goes back as
// the response of a review of the same apiVersion and kind.
func reviewHandler[Req, Resp any](respond func(path string, req Req) Resp) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Request    Req    `json:"request"`
		}
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Response   Resp   `json:"response"`
		}{review.APIVersion, review.Kind, respond(r.URL.Path, review.Request)})
	})
}
