package apiserver

import (
	"context"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubesim/kubesim/apiserver/healthz"
	"github.com/kubesim/kubesim/apiserver/metrics"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/store"
)

// setUpMetrics registers the server's collectors on Config.Metrics (a
// registry of its own when nil), which /metrics serves.
func (s *Server) setUpMetrics() error {
	if s.cfg.Metrics == nil {
		s.cfg.Metrics = prometheus.NewRegistry()
	}
	sizer, _ := s.cfg.Storage.(store.Sizer) // the bbolt file or etcd; not a wrapped store (step mode)
	m, err := metrics.New(metrics.Config{Registry: s.cfg.Metrics, Clock: s.cfg.Clock, Objects: s.countObjects, Sizer: sizer})
	if err != nil {
		return err
	}
	s.metrics = m
	// /metrics/slis is a registry of its own, as kube-apiserver's: what
	// a probe's scraper reads often, without the whole of /metrics.
	s.slis = prometheus.NewRegistry()
	s.health, err = healthz.NewMetrics(s.slis)
	return err
}

// MetricsRegistry is the registry /metrics serves: the server's metrics,
// and those the cluster's other components registered on it.
func (s *Server) MetricsRegistry() *prometheus.Registry { return s.cfg.Metrics }

// withMetrics counts the non-resource requests that reached a route, for
// the fixed paths metrics.NonResourceLabel knows; the resource requests
// are counted by the route of the resources (routes), which knows
// whether the resource is served: a made-up resource name never becomes
// a label. Both run after authentication and authorization, as
// kube-apiserver instruments its routes.
func (s *Server) withMetrics(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := request.InfoOf(r); !info.IsResourceRequest {
			if path, ok := metrics.NonResourceLabel(info.Path); ok {
				s.metrics.MonitorRequest(w, r, info, path, h.ServeHTTP)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// countObjects counts the stored objects of every resource served, once
// per storage prefix (two versions of a resource share one), for
// apiserver_storage_objects. Resources answered without storage (the
// access reviews) have nothing to count.
func (s *Server) countObjects(ctx context.Context) (map[string]int64, error) {
	counts := map[string]int64{}
	seen := map[string]bool{}
	for _, res := range s.Resources() {
		if res.CreateOnly != nil {
			continue
		}
		st, ok := s.Store(res.Group, res.Version, res.Name)
		if !ok || seen[st.StoragePrefix()] {
			continue
		}
		seen[st.StoragePrefix()] = true
		got, err := s.cfg.Storage.List(ctx, st.StoragePrefix(), store.ListOptions{})
		n := int64(len(got.Items))
		if err != nil {
			n = -1
		}
		counts[res.GroupResource().String()] = n
	}
	return counts, nil
}
