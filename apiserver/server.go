package apiserver

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/admission/webhook"
	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/crd"
	"github.com/kubesim/kubesim/apiserver/discovery"
	"github.com/kubesim/kubesim/apiserver/handlers"
	"github.com/kubesim/kubesim/apiserver/healthz"
	"github.com/kubesim/kubesim/apiserver/impersonation"
	"github.com/kubesim/kubesim/apiserver/metrics"
	"github.com/kubesim/kubesim/apiserver/nodeauthz"
	"github.com/kubesim/kubesim/apiserver/openapi"
	"github.com/kubesim/kubesim/apiserver/rbacregistry"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
	"github.com/kubesim/kubesim/apiserver/reviews"
	"github.com/kubesim/kubesim/apiserver/serviceaccount"
	"github.com/kubesim/kubesim/apiserver/serving"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
)

// Version is what /version answers. kubectl's dispatcher on these machines
// picks the kubectl whose minor version matches Minor.
type Version struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

// DefaultVersion is the version kubesim reports: Kubernetes 1.32.
func DefaultVersion() Version {
	return Version{Major: "1", Minor: "32", GitVersion: "v1.32.0-kubesim", GitTreeState: "clean",
		BuildDate: "2026-01-01T00:00:00Z", GoVersion: "go1.26", Compiler: "gc", Platform: "linux/amd64"}
}

// Config assembles a Server.
type Config struct {
	Storage store.Interface
	Clock   clock.Clock
	// Rand is the source of uids and generated names.
	Rand io.Reader
	// Resources are the resources served from the start (kinds.Builtin()).
	Resources []*registry.Resource
	// Authenticator checks bearer tokens; nil lets every request in as
	// the admin (the in-process transport).
	Authenticator authn.Authenticator
	// AuthorizationMode is kube-apiserver's --authorization-mode: modes
	// from authz.ModeNode, authz.ModeRBAC and authz.ModeAlwaysAllow, comma
	// separated and asked in order ("" is AlwaysAllow). With RBAC,
	// authenticated requests are authorized, roles and bindings are checked
	// for escalation, and Bootstrap creates the default cluster roles; with
	// Node, kubelets are kept to their own node (nodeauthz).
	AuthorizationMode string
	// ServiceAccountKey, when set, signs the ServiceAccount tokens of
	// serviceaccounts/NAME/token and verifies those presented
	// (--service-account-signing-key-file); ServiceAccountIssuer is their
	// iss claim and APIAudiences the audiences accepted here (both
	// default to serviceaccount.DefaultIssuer). AnonymousAuth lets requests
	// without credentials in as system:anonymous (--anonymous-auth).
	ServiceAccountKey    *ecdsa.PrivateKey
	ServiceAccountIssuer string
	APIAudiences         []string
	AnonymousAuth        bool
	// ServiceAccountAdmission turns on the ServiceAccount admission
	// plugin, on by default in kube-apiserver. It refuses pods whose
	// account does not exist, so it needs the serviceaccount controller to
	// make each namespace's "default": the cluster turns it on when it runs
	// that controller, and a bare API server (tests) goes without.
	ServiceAccountAdmission bool
	// DefaultNotReadyTolerationSeconds and
	// DefaultUnreachableTolerationSeconds are the tolerationSeconds the
	// DefaultTolerationSeconds admission plugin gives every pod for the
	// not-ready and unreachable taints (kube-apiserver's
	// --default-not-ready-toleration-seconds and
	// --default-unreachable-toleration-seconds; nil: 300).
	DefaultNotReadyTolerationSeconds, DefaultUnreachableTolerationSeconds *int64
	// Audit, when set, logs each authenticated request (kube-apiserver's
	// --audit-log-path).
	Audit *audit.Log
	// Admission are more built-in plugins, run after the built-in ones
	// kubesim has and before the RBAC escalation check, the admission
	// policies and the webhooks (admission_chain.go lists the order).
	Admission []any
	// WebhookDial reaches admission webhooks (the cluster's pod
	// network); nil dials directly.
	WebhookDial func(ctx context.Context, network, addr string) (net.Conn, error)
	Logger      *slog.Logger
	Version     Version
	// MaxBodyBytes caps request bodies (default 3 MiB).
	MaxBodyBytes int64
	// ListMemoryBudget bounds the memory that LIST requests may hold at
	// once, in bytes (serving.ListBudget; listbudget.go): beyond it a
	// list is answered 429, the components keeping a share of their own.
	// 0 is serving.DefaultListBudget; negative turns the budget off.
	ListMemoryBudget int64

	// Metrics is the registry the server's metrics are registered on and
	// that /metrics serves: the cluster's, which its other components
	// share (nil: a registry of the server's own).
	Metrics *prometheus.Registry

	// GenericOnly serves Resources and nothing more: no
	// CustomResourceDefinitions, no namespace lifecycle. An extension API
	// server built on this package sets it. (APIServices are never served
	// here: they are the aggregator's, composed in front of the server by
	// package cluster.)
	GenericOnly bool
}

// Server is a running API server's state: its resources and handler.
type Server struct {
	cfg     Config
	ids     *registry.IDs
	mu      sync.RWMutex
	stores  map[string]*registry.Store
	order   []*registry.Resource
	handler http.Handler
	// loopback is the chain without authentication, for the control
	// plane's own in-process clients (Kubernetes gives them a privileged
	// loopback token instead).
	loopback http.Handler
	// unprotected is the routes without the filters, for a server
	// composed in front of this one.
	unprotected http.Handler
	rest        *handlers.Handler
	crds        *crd.Server
	// listeners hear of every change to the resources served.
	listeners []func()
	// writes counts the answered requests that may have changed what
	// is served (Writes).
	writes atomic.Uint64
	// rbac: the roles and bindings cached for the authorizer, the
	// authorizer of AuthorizationMode and its rule lister.
	rbac       *rbacregistry.Cache
	authorizer authz.Authorizer
	ruleLister authz.RuleResolver
	// admission is the chain every store runs on client writes, and
	// webhookConfigs the webhook configurations and admission policies
	// (and their bindings) it reads, cached (admission_chain.go,
	// admission_config_cache.go).
	admission      admission.Chain
	webhookConfigs map[string]*configCache
	// modes are the --authorization-mode's, in order.
	modes []string
	// authenticator is Config.Authenticator with service account tokens
	// and anonymous added; tokens issues and checks those tokens.
	authenticator authn.Authenticator
	// tokenAuthenticator is authenticator without anonymous: what a
	// TokenReview asks.
	tokenAuthenticator authn.Authenticator
	tokens             *serviceaccount.Tokens
	// lists is the list budget (nil: none).
	lists *serving.ListBudget
	// openapi serves /openapi/, building its documents when first asked
	// for (BuildOpenAPI builds them ahead).
	openapi *openapi.Handler
	// metrics are the server's own collectors, on the registry /metrics
	// serves (metrics.go).
	metrics *metrics.Metrics
	// slis is the registry /metrics/slis serves, and health the health
	// checks' counts on it (health.go).
	slis   *prometheus.Registry
	health *healthz.Metrics
	// bootstrapped is set once Bootstrap succeeded: the readiness of the
	// post-start hook it plays.
	bootstrapped atomic.Bool
}

func storeKey(group, version, resource string) string { return group + "/" + version + "/" + resource }

// New checks cfg and builds the server. Call Bootstrap before serving.
func New(cfg Config) (*Server, error) {
	if cfg.Storage == nil || cfg.Clock == nil || cfg.Rand == nil {
		return nil, errors.New("apiserver: Storage, Clock and Rand are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Version.Minor == "" {
		cfg.Version = DefaultVersion()
	}
	s := &Server{cfg: cfg, ids: registry.NewIDs(cfg.Rand), stores: map[string]*registry.Store{}}
	if err := s.setUpMetrics(); err != nil {
		return nil, err
	}
	switch {
	case cfg.ListMemoryBudget == 0:
		s.lists = serving.NewListBudget(serving.DefaultListBudget)
	case cfg.ListMemoryBudget > 0:
		s.lists = serving.NewListBudget(cfg.ListMemoryBudget)
	}
	// --- authorization: the authorizers of AuthorizationMode, in order ---
	s.rbac = rbacregistry.NewCache(s.Store)
	modes, err := authz.ParseModes(cfg.AuthorizationMode)
	if err != nil {
		return nil, fmt.Errorf("apiserver: %w", err)
	}
	s.modes = modes
	var authorizers []authz.Authorizer
	for _, m := range modes {
		switch m {
		case authz.ModeNode:
			authorizers = append(authorizers, &nodeauthz.Authorizer{Pods: s.podsOnNode, Rules: rbacregistry.NodeRules()})
		case authz.ModeRBAC:
			rbac := &authz.RBAC{Source: s.rbac}
			authorizers = append(authorizers, rbac)
			s.ruleLister = rbac
		case authz.ModeAlwaysAllow:
			authorizers = append(authorizers, authz.AlwaysAllow{})
			s.ruleLister = authz.AlwaysAllow{}
		}
	}
	s.authorizer = authorizers[0]
	if len(authorizers) > 1 {
		s.authorizer = authz.Union(authorizers...)
	}
	if s.ruleLister == nil { // Node alone: nobody else has rules to list
		s.ruleLister = &authz.RBAC{Source: authz.EmptyRuleSource{}}
	}
	// --- end authorization ---
	if err := s.setUpServiceAccountTokens(); err != nil {
		return nil, err
	}
	if !cfg.GenericOnly {
		// Every store admits its client writes through this one chain
		// (admission_chain.go).
		s.webhookConfigs = newConfigCaches()
		chain, err := s.admissionChain()
		if err != nil {
			return nil, err
		}
		s.admission = chain
	}
	s.setUpEviction() // pods/eviction honours PodDisruptionBudgets
	for _, r := range s.cfg.Resources {
		if err := s.AddResource(r); err != nil {
			return nil, err
		}
	}
	if cfg.GenericOnly {
		s.rest = &handlers.Handler{Lookup: s.Store, Clock: cfg.Clock, MaxBodyBytes: cfg.MaxBodyBytes, Metrics: s.metrics}
		s.buildHandlers()
		return s, nil
	}
	// CustomResourceDefinitions are always served, as kube-apiserver
	// always runs the apiextensions-apiserver in front of itself.
	ext, err := crd.New(crd.Config{Registrar: s, Clock: cfg.Clock, Logger: cfg.Logger,
		// Conversion webhooks are reached as admission webhooks are.
		Webhooks: webhook.NewClients(s.resolveService, cfg.WebhookDial), UID: s.ids.UID})
	if err != nil {
		return nil, err
	}
	for _, r := range ext.Resources() {
		if err := s.AddResource(r); err != nil {
			return nil, err
		}
	}
	s.crds = ext
	// The access and identity reviews, answered by the authorizer and
	// never stored.
	for _, r := range reviews.Resources(s.authorizer, s.ruleLister, s.tokenReviewAuthentication()) {
		if err := s.AddResource(r); err != nil {
			return nil, err
		}
	}
	s.rest = &handlers.Handler{Lookup: s.Store, Clock: cfg.Clock, MaxBodyBytes: cfg.MaxBodyBytes, Metrics: s.metrics}
	s.buildHandlers()
	return s, nil
}

// AddResource starts serving res (a CRD's version, say).
func (s *Server) AddResource(res *registry.Resource) error {
	st, err := s.newStore(res)
	if err != nil {
		return err
	}
	s.mu.Lock()
	key := storeKey(res.Group, res.Version, res.Name)
	if _, dup := s.stores[key]; dup {
		s.mu.Unlock()
		return fmt.Errorf("apiserver: resource %s is already served", key)
	}
	s.stores[key] = st
	s.order = append(s.order, res)
	s.mu.Unlock()
	s.resourcesChanged()
	return nil
}

// ReplaceResource serves res in place of the resource with the same group,
// version and name, in one step (a CRD whose schema changed is never
// briefly unserved), or adds it.
func (s *Server) ReplaceResource(res *registry.Resource) error {
	st, err := s.newStore(res)
	if err != nil {
		return err
	}
	defer s.resourcesChanged()
	s.mu.Lock()
	defer s.mu.Unlock()
	key := storeKey(res.Group, res.Version, res.Name)
	s.stores[key] = st
	for i, r := range s.order {
		if r.Group == res.Group && r.Version == res.Version && r.Name == res.Name {
			// A new slice: Resources() callers keep their snapshot.
			s.order = slices.Clone(s.order)
			s.order[i] = res
			return nil
		}
	}
	s.order = append(s.order, res)
	return nil
}

func (s *Server) newStore(res *registry.Resource) (*registry.Store, error) {
	storage := s.cfg.Storage
	if res.DecorateStorage != nil {
		storage = res.DecorateStorage(storage)
	}
	if rbacregistry.IsRBACResource(res.Group, res.Name) {
		storage = s.rbac.Decorate(storage) // writes invalidate the authorizer's cache
	}
	storage = s.decorateWebhookStorage(res, storage)
	// Outermost, so that the decorators above still see the store they
	// look into (kinds.IsShared asks the backend).
	storage = s.metrics.InstrumentStorage(storage, res.GroupResource())
	return registry.NewStore(registry.Config{Resource: res, Storage: storage, Clock: s.cfg.Clock, IDs: s.ids,
		Admission: s.admission})
}

// RemoveResource stops serving a resource; its objects stay in the store.
func (s *Server) RemoveResource(group, version, resource string) {
	defer s.resourcesChanged()
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.stores, storeKey(group, version, resource))
	s.order = slices.DeleteFunc(s.order, func(r *registry.Resource) bool {
		return r.Group == group && r.Version == version && r.Name == resource
	})
}

// OnResourcesChanged registers fn, called after every change to the
// resources served. The aggregator keeps its local APIServices with it;
// fn runs in the request that changed a CRD, so what fn writes is there
// when the request returns.
func (s *Server) OnResourcesChanged(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, fn)
}

func (s *Server) resourcesChanged() {
	s.mu.RLock()
	listeners := s.listeners
	s.mu.RUnlock()
	for _, fn := range listeners {
		fn()
	}
}

// Store returns the storage serving a resource.
func (s *Server) Store(group, version, resource string) (*registry.Store, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st, ok := s.stores[storeKey(group, version, resource)]
	return st, ok
}

// Resources returns the resources served now.
func (s *Server) Resources() []*registry.Resource {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.order)
}

// BuildOpenAPI builds the OpenAPI v3 documents of the kinds served now,
// which the server otherwise builds on the first request for them, as
// kube-apiserver builds its documents at start-up: `kubesim serve` calls
// it once it listens, so that kubectl's first apply finds them built (or
// waits for the build under way) instead of building them itself, which
// on a busy machine can outlast kubectl's patience. In-process clusters
// (tests, the demo, scenarios) do not: most never ask. ctx stops it.
func (s *Server) BuildOpenAPI(ctx context.Context) error { return s.openapi.Build(ctx) }

// Handler is the server's whole HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Authorizer is the server's authorizer: the modes of
// Config.AuthorizationMode in order (benchmarks and reviews ask it).
func (s *Server) Authorizer() authz.Authorizer { return s.authorizer }

// Authenticator is the server's authenticator (Config.Authenticator with
// the ServiceAccount tokens, and anonymous requests if allowed), nil
// without authentication: the web page names the user of a write it
// records with it.
func (s *Server) Authenticator() authn.Authenticator { return s.authenticator }

// LoopbackHandler is the handler without authentication, for in-process
// components of the same control plane. Never serve it on a socket.
func (s *Server) LoopbackHandler() http.Handler { return s.loopback }

// UnprotectedHandler is the server's routes without the filters of its
// chain (panic recovery, authentication): what a server composed in front
// of this one (the aggregator) delegates to from inside its own chain, as
// GenericAPIServer.UnprotectedHandler in Kubernetes.
func (s *Server) UnprotectedHandler() http.Handler { return s.unprotected }

// BuildHandlerChain wraps h in this server's filters: panic recovery, then
// authentication with Config.Authenticator, the audit log, impersonation, and
// authorization (with RBAC)
// unless loopback (Kubernetes' DefaultBuildHandlerChain). The aggregator puts its routing inside the
// same filters, after authentication, so that the user is known.
func (s *Server) BuildHandlerChain(h http.Handler, loopback bool) http.Handler {
	// Innermost: a list is charged once its user is known and allowed.
	h = s.withListBudget(h)
	if loopback {
		// The in-process loopback: no credential to check, but a
		// component's identity attached by LoopbackAs is audited
		// and authorized like any user's; a request without one is the
		// API server's own privileged loopback (both filters pass it).
		if s.authorizes() {
			h = authz.WithAuthorization(h, s.authorizer)
		}
		if s.cfg.Audit != nil {
			h = audit.WithAudit(h, s.cfg.Audit)
		}
		return s.withWriteCount(s.withRecovery(withLoopbackUser(h)))
	}
	if s.authenticator != nil {
		if s.authorizes() {
			// Authorization: after authentication, before the
			// aggregator's routing and the handlers read a body.
			h = authz.WithAuthorization(h, s.authorizer)
		}
		// Impersonation: the authenticated user becomes the
		// one it asks to act as, before authorization and the
		// aggregator's X-Remote-User see it. With AlwaysAllow every
		// impersonation is allowed, as in Kubernetes.
		h = impersonation.WithImpersonation(h, s.authorizer)
		if s.cfg.Audit != nil {
			// The audit log: after authentication, to name the user,
			// and around everything else, to see every answer.
			h = audit.WithAudit(h, s.cfg.Audit)
		}
		h = authn.WithAuthentication(h, s.authenticator, nil)
	}
	return s.withWriteCount(s.withRecovery(h))
}

// ListBudget is the server's list budget (nil when turned off), for its
// counters.
func (s *Server) ListBudget() *serving.ListBudget { return s.lists }

// Writes counts the requests that may have changed what the server
// serves — every request but a read (GET, HEAD, OPTIONS), those the
// aggregator proxies to an extension API server included — each once it
// has been answered. Step mode compares it to skip listing again what no
// request changed (stepper.Config.Changes).
func (s *Server) Writes() uint64 { return s.writes.Load() }

// withWriteCount counts a request that is not a read once it has been
// answered, whatever the answer: a refused write changes nothing, but
// counting it costs only an extra list.
func (s *Server) withWriteCount(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			defer s.writes.Add(1)
		}
		h.ServeHTTP(w, r)
	})
}

// buildHandlers makes the routes and wraps them in the filters every
// request passes.
func (s *Server) buildHandlers() {
	s.unprotected = withRequestInfo(s.withMetrics(s.routes()))
	s.handler = s.BuildHandlerChain(s.unprotected, false)
	s.loopback = s.BuildHandlerChain(s.unprotected, true)
}

// routes are the server's own paths: version, health, OpenAPI, discovery
// and the resources.
func (s *Server) routes() http.Handler {
	r := mux.NewRouter()
	r.SkipClean(true)
	r.HandleFunc("/version", func(w http.ResponseWriter, _ *http.Request) {
		responsewriters.WriteJSON(w, http.StatusOK, s.cfg.Version)
	})
	s.installHealthChecks(func(path string, h http.Handler) { r.Handle(path, h) }) // health.go
	if s.tokens != nil {
		// Service account issuer discovery (serviceaccount/openidmetadata.go).
		config, keys := s.tokens.DiscoveryHandlers("")
		r.Handle(serviceaccount.OpenIDConfigPath, config)
		r.Handle(serviceaccount.JWKSPath, keys)
	}
	r.Handle("/metrics", metrics.Handler(s.cfg.Metrics))
	r.Handle("/metrics/slis", metrics.Handler(s.slis))
	s.openapi = openapi.NewHandler(s.Resources)
	r.PathPrefix("/openapi/").Handler(s.openapi)
	disc := discovery.NewHandler(s.Resources)
	resources := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, _ := request.InfoFrom(req.Context())
		if !info.IsResourceRequest {
			disc.ServeHTTP(w, req)
			return
		}
		st, ok := s.Store(info.APIGroup, info.APIVersion, info.Resource)
		if !ok {
			s.rest.ServeHTTP(w, req) // 404, and not counted (metrics.go)
			return
		}
		if st.Resource().DeprecationWarning != "" {
			w.Header().Add("Warning", fmt.Sprintf("299 - %q", st.Resource().DeprecationWarning))
		}
		s.metrics.MonitorRequest(w, req, info, "", s.rest.ServeHTTP)
	})
	r.PathPrefix("/api").Handler(resources)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		responsewriters.WriteError(w, api.NewPathNotFound())
	})
	return r
}

func withRequestInfo(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info, ok := request.InfoFrom(r.Context()); ok && info.ParsedFrom(r) {
			// The loopback's chain parsed this very request already.
			h.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r.WithContext(request.WithInfo(r.Context(), request.Parse(r))))
	})
}

// withRecovery turns a panic in a handler into a 500 Status: the server
// never dies because of one request.
func (s *Server) withRecovery(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.cfg.Logger.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				data, _ := json.Marshal(responsewriters.ErrorStatus(api.NewInternalError(fmt.Errorf("the server panicked: %v", v))))
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write(data)
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// authorizes says whether requests are authorized at all: not with
// AlwaysAllow alone.
func (s *Server) authorizes() bool {
	return !(len(s.modes) == 1 && s.modes[0] == authz.ModeAlwaysAllow)
}

// podsOnNode lists the pods bound to a node, for the Node authorizer.
func (s *Server) podsOnNode(ctx context.Context, nodeName string) ([]*corev1.Pod, error) {
	st, ok := s.Store("", "v1", "pods")
	if !ok {
		return nil, errors.New("pods are not served")
	}
	res, err := st.List(ctx, "", registry.ListOptions{Fields: fields.OneTermEqualSelector("spec.nodeName", nodeName)})
	if err != nil {
		return nil, err
	}
	var pods []*corev1.Pod
	for _, o := range res.Items {
		if p, ok := o.(*corev1.Pod); ok {
			pods = append(pods, p)
		}
	}
	return pods, nil
}
