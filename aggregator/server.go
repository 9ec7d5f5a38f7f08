package aggregator

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/clock"
)

// ServerConfig composes an aggregator in front of an API server.
type ServerConfig struct {
	// Delegate is the API server behind the aggregator (required): it
	// stores the APIServices, and serves every request not routed away.
	Delegate *apiserver.Server
	// Dial reaches the endpoints of extension API servers (the cluster's
	// pod network); nil dials directly.
	Dial DialFunc
	// ProxyClientCert is the front proxy's client certificate, presented
	// to extension API servers with X-Remote-User (Config.ProxyClientCert).
	ProxyClientCert *tls.Certificate
	Clock           clock.Clock
	Logger          *slog.Logger
}

// Server is the aggregator composed in front of an API server, as
// kube-apiserver's CreateServerChain puts kube-aggregator at the head of
// its delegation chain: one handler chain (recovery, authentication), then
// the aggregator's routing, then the delegate's own routes.
type Server struct {
	delegate *apiserver.Server
	agg      *Aggregator
	handler  http.Handler
	loopback http.Handler
	// bootstrapped turns on the upkeep of local APIServices as resources
	// come and go; before Bootstrap, SyncLocal("onstart") does it at once.
	bootstrapped atomic.Bool
}

// NewServer serves APIServices as a resource of cfg.Delegate and wraps
// its handlers in the aggregator. Call Bootstrap before serving.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.Delegate == nil {
		return nil, errors.New("aggregator: Delegate is required")
	}
	d := cfg.Delegate
	agg, err := New(Config{Store: d.Store, Resources: d.Resources, Dial: cfg.Dial,
		ProxyClientCert: cfg.ProxyClientCert, Clock: cfg.Clock, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	if err := d.AddResource(agg.Resource()); err != nil {
		return nil, err
	}
	s := &Server{delegate: d, agg: agg}
	d.OnResourcesChanged(s.resourcesChanged)
	// Authentication first, then the aggregator decides: the delegate or
	// an extension API server.
	routed := agg.WithAggregation(d.UnprotectedHandler())
	s.handler = d.BuildHandlerChain(routed, false)
	s.loopback = d.BuildHandlerChain(routed, true)
	return s, nil
}

// resourcesChanged keeps a local APIService for every group-version
// served, once Bootstrap has run (kube-apiserver's autoregister and CRD
// registration controllers). It runs in the request that changed a CRD,
// so the APIService is there when the request returns.
func (s *Server) resourcesChanged() {
	if !s.bootstrapped.Load() {
		return
	}
	if err := s.agg.SyncLocal(context.Background(), "true"); err != nil {
		s.agg.cfg.Logger.Error("keeping local APIServices", "err", err)
	}
}

// Bootstrap bootstraps the delegate (system namespaces, stored CRDs), then
// loads the stored APIServices and creates the local ones.
func (s *Server) Bootstrap(ctx context.Context) error {
	if err := s.delegate.Bootstrap(ctx); err != nil {
		return err
	}
	if err := s.agg.Load(ctx); err != nil {
		return fmt.Errorf("loading APIServices: %w", err)
	}
	if err := s.agg.SyncLocal(ctx, "onstart"); err != nil {
		return fmt.Errorf("creating local APIServices: %w", err)
	}
	s.bootstrapped.Store(true)
	return nil
}

// Aggregator is the router.
func (s *Server) Aggregator() *Aggregator { return s.agg }

// Delegate is the API server behind the aggregator.
func (s *Server) Delegate() *apiserver.Server { return s.delegate }

// Resources returns the resources served now: the delegate's, APIServices
// among them.
func (s *Server) Resources() []*registry.Resource { return s.delegate.Resources() }

// Handler is the whole HTTP handler, authentication included.
func (s *Server) Handler() http.Handler { return s.handler }

// LoopbackHandler is the handler without authentication, for in-process
// components of the same control plane. Never serve it on a socket.
func (s *Server) LoopbackHandler() http.Handler { return s.loopback }
