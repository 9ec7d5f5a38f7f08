package apiserver_test

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
	"github.com/kubesim/kubesim/store/etcdstore"
	"github.com/kubesim/kubesim/store/etcdstore/etcdtest"
)

// BenchmarkCreatesByStore measures durable pod creates/s over HTTPS from 8
// and from 64 keep-alive clients, with the bbolt store and with a real
// etcd (one member on this machine, started by etcdtest), side by side
// (docs/performance.md, "Pod creates over etcd beside bbolt").
func BenchmarkCreatesByStore(b *testing.B) {
	for _, backend := range []string{"bbolt", "etcd"} {
		for _, clients := range []int{8, 64} {
			b.Run(fmt.Sprintf("%s/%dclients", backend, clients), func(b *testing.B) {
				benchCreatesOn(b, openBenchStore(b, backend), clients)
			})
		}
	}
}

func openBenchStore(b *testing.B, backend string) store.Interface {
	if backend == "bbolt" {
		st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(b.TempDir(), boltstore.FileName)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return st
	}
	e, err := etcdtest.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Stop)
	st, err := etcdstore.Open(etcdstore.Config{Endpoints: []string{e.URL}, Prefix: "/bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

func benchCreatesOn(b *testing.B, st store.Interface, clients int) {
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clock.Real{}, Rand: rand.Reader, Resources: kinds.Builtin()})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Bootstrap(context.Background()); err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.EnableHTTP2 = false
	ts.StartTLS()
	b.Cleanup(ts.Close)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: clients}}
	url := ts.URL + "/api/v1/namespaces/default/pods"
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				code, err := post(c, url, "application/json", podJSON(fmt.Sprintf("p%d", i)))
				if err != nil || code != http.StatusCreated {
					b.Errorf("create: %d %v", code, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "creates/s")
}
