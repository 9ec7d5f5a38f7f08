package metricsserver

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
	"github.com/kubesim/kubesim/apiserver/serving"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/sampleapiserver"
)

// ImageName is the image the fake kubelet runs as this server.
const ImageName = "kubesim/metrics-server"

// Version is the version of metrics.k8s.io served.
const Version = "v1beta1"

// DefaultResolution is metrics-server's --metric-resolution default.
const DefaultResolution = 15 * time.Second

// Options configure a Server.
type Options struct {
	// Addr is where to listen ("127.0.0.1:0": a free loopback port).
	Addr string
	// Client reaches the API server: nodes and pods are listed, and
	// SubjectAccessReviews asked, through it.
	Client *client.Client
	// Kubelet reaches https://NODE-ADDRESS:10250 (in kubesim, the
	// kubelet API of the cluster's nodes, in process).
	Kubelet http.RoundTripper
	// Resolution is how old the points may be before a request scrapes
	// again (DefaultResolution); it is also the window reported.
	Resolution    time.Duration
	ScrapeTimeout time.Duration
	// RequestHeaderClientCA is the front-proxy CA: only a client
	// certificate it issued may name the user in X-Remote-User.
	RequestHeaderClientCA     *x509.CertPool
	RequestHeaderAllowedNames []string
	// DataDir holds the serving certificate; empty means a temporary
	// directory removed by Stop, as does EphemeralDataDir.
	DataDir          string
	EphemeralDataDir bool
	Clock            clock.Clock
	Logger           *slog.Logger
}

// Server is a running metrics server.
type Server struct {
	opts    Options
	addr    string
	http    *http.Server
	cleanup func()
	once    sync.Once
	done    chan struct{}

	mu      sync.Mutex
	scraped time.Time
	points  points
}

// New builds a server without listening: Handler serves it (tests, and
// Start).
func New(opts Options) (*Server, error) {
	if opts.Client == nil || opts.Kubelet == nil {
		return nil, errors.New("metrics-server: Client and Kubelet are required")
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Resolution <= 0 {
		opts.Resolution = DefaultResolution
	}
	if opts.ScrapeTimeout <= 0 {
		opts.ScrapeTimeout = 10 * time.Second
	}
	if opts.RequestHeaderAllowedNames == nil {
		opts.RequestHeaderAllowedNames = []string{pki.FrontProxyClientName}
	}
	return &Server{opts: opts, done: make(chan struct{}), cleanup: func() {}}, nil
}

// Start listens with TLS and serves until Stop.
func Start(opts Options) (*Server, error) {
	s, err := New(opts)
	if err != nil {
		return nil, err
	}
	opts = s.opts
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	dir, tmp := opts.DataDir, opts.EphemeralDataDir
	if dir == "" {
		d, err := os.MkdirTemp("", "kubesim-metrics-server-")
		if err != nil {
			return nil, err
		}
		dir, tmp = d, true
	}
	s.cleanup = func() {
		if tmp {
			_ = os.RemoveAll(dir)
		}
	}
	bundle, err := pki.EnsureServing(filepath.Join(dir, "pki"), nil, opts.Clock.Now(), rand.Reader)
	if err != nil {
		s.cleanup()
		return nil, err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		s.cleanup()
		return nil, fmt.Errorf("metrics-server: %w", err)
	}
	s.addr = ln.Addr().String()
	s.http = serving.NewServer(s.Handler(), nil, serving.Options{Logger: opts.Logger})
	cfg := bundle.ServerTLSConfig()
	// The front proxy presents a client certificate; anyone else gets a
	// 401 rather than a failed handshake.
	cfg.ClientAuth = tls.RequestClientCert
	go func() {
		defer close(s.done)
		_ = s.http.Serve(tls.NewListener(ln, cfg))
	}()
	return s, nil
}

// Addr is the real address the server listens on.
func (s *Server) Addr() string { return s.addr }

// Stop closes the listener and every connection. It is safe to call more
// than once.
func (s *Server) Stop() {
	s.once.Do(func() {
		if s.http != nil {
			_ = s.http.Close()
			<-s.done
		}
		s.cleanup()
	})
}

// Handler is the server's routes behind the front-proxy authentication.
func (s *Server) Handler() http.Handler {
	auth := sampleapiserver.RequestHeaderAuthenticator(s.opts.RequestHeaderClientCA, s.opts.RequestHeaderAllowedNames)
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.serve)
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	}
	return authn.WithAuthentication(mux, auth, nil)
}

var groupVersion = metav1.GroupVersionForDiscovery{GroupVersion: api.MetricsGroupName + "/" + Version, Version: Version}

func metricsGroup() metav1.APIGroup {
	return metav1.APIGroup{TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: api.MetricsGroupName,
		Versions: []metav1.GroupVersionForDiscovery{groupVersion}, PreferredVersion: groupVersion}
}

// resourceList is the discovery of metrics.k8s.io/v1beta1.
func resourceList() metav1.APIResourceList {
	verbs := []string{"get", "list"}
	return metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: groupVersion.GroupVersion,
		APIResources: []metav1.APIResource{
			{Name: "nodes", Kind: "NodeMetrics", Verbs: verbs},
			{Name: "pods", Kind: "PodMetrics", Namespaced: true, Verbs: verbs},
		}}
}

// The group-resources errors name, as metrics-server's storage does.
var (
	nodeMetricsResource = schema.GroupResource{Group: api.MetricsGroupName, Resource: "nodemetrics"}
	podMetricsResource  = schema.GroupResource{Group: api.MetricsGroupName, Resource: "podmetrics"}
)

// request is a parsed resource request.
type request struct {
	resource, namespace, name string
}

func (r request) verb() string {
	if r.name != "" {
		return "get"
	}
	return "list"
}

// parse reads /apis/metrics.k8s.io/v1beta1/{nodes[/N] | pods | namespaces/NS/pods[/N]}.
func parse(path string) (request, bool) {
	rest, ok := strings.CutPrefix(path, "/apis/"+api.MetricsGroupName+"/"+Version+"/")
	if !ok {
		return request{}, false
	}
	parts := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	switch {
	case parts[0] == "nodes" && len(parts) <= 2:
		r := request{resource: "nodes"}
		if len(parts) == 2 {
			r.name = parts[1]
		}
		return r, true
	case parts[0] == "pods" && len(parts) == 1:
		return request{resource: "pods"}, true
	case parts[0] == "namespaces" && len(parts) >= 3 && len(parts) <= 4 && parts[2] == "pods":
		r := request{resource: "pods", namespace: parts[1]}
		if len(parts) == 4 {
			r.name = parts[3]
		}
		return r, true
	}
	return request{}, false
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimSuffix(r.URL.Path, "/") {
	case "/apis":
		responsewriters.WriteJSON(w, http.StatusOK, metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
			Groups: []metav1.APIGroup{metricsGroup()}})
		return
	case "/apis/" + api.MetricsGroupName:
		responsewriters.WriteJSON(w, http.StatusOK, metricsGroup())
		return
	case "/apis/" + api.MetricsGroupName + "/" + Version:
		responsewriters.WriteJSON(w, http.StatusOK, resourceList())
		return
	}
	req, ok := parse(r.URL.Path)
	if !ok {
		responsewriters.WriteError(w, api.NewPathNotFound())
		return
	}
	gr := nodeMetricsResource
	if req.resource == "pods" {
		gr = podMetricsResource
	}
	if r.Method != http.MethodGet {
		verb := map[string]string{http.MethodPost: "create", http.MethodPut: "update", http.MethodPatch: "patch", http.MethodDelete: "delete"}[r.Method]
		responsewriters.WriteError(w, api.NewMethodNotSupported(gr, verb))
		return
	}
	if err := s.authorize(r, req); err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
	if err != nil {
		responsewriters.WriteError(w, api.NewBadRequest(err.Error()))
		return
	}
	var out any
	if req.resource == "nodes" {
		out, err = s.nodeMetrics(r.Context(), req, sel)
	} else {
		out, err = s.podMetrics(r.Context(), req, sel)
	}
	if err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	responsewriters.WriteJSON(w, http.StatusOK, out)
}

// authorize asks the API server whether the user the front proxy named
// may get or list the metrics (delegated authorization: the
// system:auth-delegator binding of the manifest lets the server ask).
func (s *Server) authorize(r *http.Request, req request) error {
	user, _ := authn.UserFrom(r.Context())
	if user == nil {
		return api.NewUnauthorized("Unauthorized")
	}
	sar := &authorizationv1.SubjectAccessReview{TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"},
		Spec: authorizationv1.SubjectAccessReviewSpec{User: user.Name, Groups: user.Groups, UID: user.UID, ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: req.namespace, Verb: req.verb(), Group: api.MetricsGroupName, Version: Version, Resource: req.resource, Name: req.name}}}
	sars := client.For(s.opts.Client, client.ResourceInfo{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews"},
		func() *authorizationv1.SubjectAccessReview { return &authorizationv1.SubjectAccessReview{} })
	answer, err := sars.Create(r.Context(), sar)
	if err != nil {
		return api.NewInternalError(fmt.Errorf("authorizing the request: %w", err))
	}
	if answer.Status.Allowed {
		return nil
	}
	return authz.Forbidden(authz.Attributes{User: user, Verb: req.verb(), ResourceRequest: true, Namespace: req.namespace,
		APIGroup: api.MetricsGroupName, APIVersion: Version, Resource: req.resource, Name: req.name}, answer.Status.Reason)
}

func (s *Server) window() metav1.Duration { return metav1.Duration{Duration: s.opts.Resolution} }

func (s *Server) nodeMetrics(ctx context.Context, req request, sel labels.Selector) (any, error) {
	pts := s.fresh(ctx)
	nodes, err := s.opts.Client.Nodes().List(ctx, "", client.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	list := metricsv1beta1.NodeMetricsList{TypeMeta: metav1.TypeMeta{Kind: "NodeMetricsList", APIVersion: groupVersion.GroupVersion}, Items: []metricsv1beta1.NodeMetrics{}}
	for _, n := range nodes.Items {
		p, ok := pts.nodes[n.Name]
		if !ok || (req.name != "" && n.Name != req.name) {
			continue
		}
		list.Items = append(list.Items, metricsv1beta1.NodeMetrics{
			ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels, CreationTimestamp: metav1.NewTime(s.opts.Clock.Now().UTC().Truncate(time.Second))},
			Timestamp:  metav1.NewTime(p.timestamp), Window: s.window(), Usage: p.usage})
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	if req.name == "" {
		return list, nil
	}
	if len(list.Items) == 0 {
		return nil, api.NewNotFound(nodeMetricsResource, req.name)
	}
	m := list.Items[0]
	m.TypeMeta = metav1.TypeMeta{Kind: "NodeMetrics", APIVersion: groupVersion.GroupVersion}
	return m, nil
}

func (s *Server) podMetrics(ctx context.Context, req request, sel labels.Selector) (any, error) {
	pts := s.fresh(ctx)
	var pods []*corev1.Pod
	if req.name != "" {
		p, err := s.opts.Client.Pods().Get(ctx, req.namespace, req.name)
		if api.IsNotFound(err) {
			return nil, api.NewNotFound(podMetricsResource, req.namespace+"/"+req.name)
		}
		if err != nil {
			return nil, err
		}
		pods = []*corev1.Pod{p}
	} else {
		list, err := s.opts.Client.Pods().List(ctx, req.namespace, client.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			return nil, err
		}
		pods = list.Items
	}
	out := metricsv1beta1.PodMetricsList{TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: groupVersion.GroupVersion}, Items: []metricsv1beta1.PodMetrics{}}
	for _, p := range pods {
		pt, ok := pts.pods[p.Namespace+"/"+p.Name]
		if !ok {
			continue
		}
		out.Items = append(out.Items, metricsv1beta1.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels,
				CreationTimestamp: metav1.NewTime(s.opts.Clock.Now().UTC().Truncate(time.Second))},
			Timestamp: metav1.NewTime(pt.timestamp), Window: s.window(), Containers: pt.containers})
	}
	sort.Slice(out.Items, func(i, j int) bool {
		a, b := out.Items[i], out.Items[j]
		return a.Namespace < b.Namespace || a.Namespace == b.Namespace && a.Name < b.Name
	})
	if req.name == "" {
		return out, nil
	}
	if len(out.Items) == 0 {
		return nil, api.NewNotFound(podMetricsResource, req.namespace+"/"+req.name)
	}
	m := out.Items[0]
	m.TypeMeta = metav1.TypeMeta{Kind: "PodMetrics", APIVersion: groupVersion.GroupVersion}
	return m, nil
}
