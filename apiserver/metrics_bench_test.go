package apiserver_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// inProcessServer is the API server over a bbolt store without fsync,
// called in process without authentication: what is left is the request
// path's own CPU — decode, admission, validation, store, encode — which
// the metrics add to.
func inProcessServer(b *testing.B) http.Handler {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(b.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clock.Real{}, Rand: rand.Reader, Resources: kinds.Builtin()})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Bootstrap(context.Background()); err != nil {
		b.Fatal(err)
	}
	return srv.Handler()
}

// BenchmarkCreatePodInProcess measures one pod create at a time through
// the API server's handler in process, in CPU per create (µs-cpu/op)
// beside the wall time: the figure docs/performance.md compares with and
// without the metrics, which are counted on every request and every
// storage call.
func BenchmarkCreatePodInProcess(b *testing.B) {
	h := inProcessServer(b)
	bodies := make([]string, b.N)
	for i := range bodies {
		bodies[i] = string(podJSON(fmt.Sprintf("p-%d", i)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := range b.N {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/pods", strings.NewReader(bodies[i]))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			b.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "µs-cpu/op")
}
