package serving

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/metrics/metricstest"
)

// apiserver_current_inflight_requests shows the requests each pool holds,
// and lets them go when they are answered; watches are not held.
func TestInflightIsReported(t *testing.T) {
	reg := prometheus.NewRegistry()
	f := &Inflight{}
	require.NoError(t, reg.Register(f))
	release := make(chan struct{})
	entered := make(chan struct{}, 4)
	h := f.WithMaxInFlightLimit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	}), 10, 10)
	kind := func(k string) float64 {
		fams, err := metricstest.Gather(reg)
		require.NoError(t, err)
		return fams.Sum("apiserver_current_inflight_requests", map[string]string{"request_kind": k})
	}
	done := make(chan struct{})
	for _, req := range []*http.Request{
		httptest.NewRequest("GET", "/api/v1/pods", nil),
		httptest.NewRequest("POST", "/api/v1/namespaces/default/pods", nil),
		httptest.NewRequest("PUT", "/api/v1/namespaces/default/pods/p", nil),
		httptest.NewRequest("GET", "/api/v1/pods?watch=true", nil),
	} {
		go func() {
			h.ServeHTTP(httptest.NewRecorder(), req)
			done <- struct{}{}
		}()
	}
	for range 4 {
		select {
		case <-entered:
		case <-time.After(30 * time.Second):
			t.Fatal("the requests never reached the handler")
		}
	}
	assert.Equal(t, 1.0, kind("readOnly"), "the watch is not counted")
	assert.Equal(t, 2.0, kind("mutating"))
	close(release)
	for range 4 {
		<-done
	}
	assert.Equal(t, 0.0, kind("readOnly"))
	assert.Equal(t, 0.0, kind("mutating"))
}
