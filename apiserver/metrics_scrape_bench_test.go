package apiserver_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkMetricsScrape measures one /metrics scrape of a server that
// has served 1,000 creates, 1,000 gets and lists of pods (the series a
// busy server has), in CPU per scrape and bytes answered.
func BenchmarkMetricsScrape(b *testing.B) {
	h := inProcessServer(b)
	for i := range 1000 {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/pods", strings.NewReader(string(podJSON(fmt.Sprintf("p-%d", i)))))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(httptest.NewRecorder(), req)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, fmt.Sprintf("/api/v1/namespaces/default/pods/p-%d", i), nil))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods?limit=1", nil))
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	size := 0
	for range b.N {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("scrape: %d", rec.Code)
		}
		size = rec.Body.Len()
	}
	b.StopTimer()
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "µs-cpu/op")
	b.ReportMetric(float64(size), "bytes/scrape")
}
