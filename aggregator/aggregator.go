package aggregator

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/discovery"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/clock"
)

// DialFunc opens a connection, as net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Config builds an Aggregator.
type Config struct {
	// Store finds the storage of a resource: APIServices, Services,
	// Endpoints (*apiserver.Server's Store).
	Store func(group, version, resource string) (*registry.Store, bool)
	// Resources lists what the API server serves itself.
	Resources func() []*registry.Resource
	// Dial reaches an endpoint; kubesim's pod network (package podnet)
	// turns a simulated pod IP into the loopback address of a pod run for
	// real. nil dials directly.
	Dial DialFunc
	// ProxyClientCert is the front proxy's client certificate
	// (--proxy-client-cert-file), presented in the TLS handshake of every
	// proxied request and availability check: the extension server checks
	// it against its --requestheader-client-ca-file before it trusts
	// X-Remote-User. nil sends none (extension servers will refuse).
	ProxyClientCert *tls.Certificate
	Clock           clock.Clock
	Logger          *slog.Logger
}

// Aggregator routes requests between the API server and extension API
// servers.
type Aggregator struct {
	cfg Config

	mu sync.RWMutex
	// services is the routing table: every APIService by name.
	services map[string]*apiregistrationv1.APIService
	revs     map[string]int64
	// transports are reused per APIService while its spec is unchanged.
	transports map[string]cachedTransport

	// discoveryCache holds the discovery of each extension server
	// (discovery.go).
	discoveryMu    sync.Mutex
	discoveryCache map[serviceKey]cachedDiscovery
	// specCache holds the /openapi/v2 of each extension server and
	// mergedV2 the last merged document (openapi.go).
	openAPIMu sync.Mutex
	specCache map[serviceKey]cachedSpec
	mergedV2  mergedSpec

	// syncMu serialises SyncLocal.
	syncMu sync.Mutex
	// next spreads requests over the ready endpoints.
	next atomic.Uint64
}

type cachedTransport struct {
	tls tlsSettings
	rt  *http.Transport
}

// tlsSettings is what of an APIService's spec its transport is built from:
// a transport is kept while they stay the same. (An APIService has no
// metadata.generation to tell a new spec by, and its resourceVersion moves
// with every availability check.)
type tlsSettings struct {
	insecure    bool
	caBundle    string
	serviceName string
}

func tlsSettingsOf(s *apiregistrationv1.APIService) tlsSettings {
	t := tlsSettings{insecure: s.Spec.InsecureSkipTLSVerify, caBundle: string(s.Spec.CABundle)}
	if ref := s.Spec.Service; ref != nil {
		t.serviceName = ref.Name + "." + ref.Namespace + ".svc"
	}
	return t
}

// New checks cfg and returns the Aggregator.
func New(cfg Config) (*Aggregator, error) {
	if cfg.Store == nil || cfg.Resources == nil || cfg.Clock == nil {
		return nil, errors.New("aggregator: Store, Resources and Clock are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Dial == nil {
		cfg.Dial = (&net.Dialer{Timeout: 5 * time.Second}).DialContext
	}
	return &Aggregator{cfg: cfg, services: map[string]*apiregistrationv1.APIService{}, revs: map[string]int64{},
		transports: map[string]cachedTransport{}, discoveryCache: map[serviceKey]cachedDiscovery{},
		specCache: map[serviceKey]cachedSpec{}}, nil
}

func (a *Aggregator) afterWrite(value []byte, rev int64, deleted bool) {
	var s apiregistrationv1.APIService
	if err := json.Unmarshal(value, &s); err != nil {
		a.cfg.Logger.Error("decoding a written APIService", "err", err)
		return
	}
	a.remember(&s, rev, deleted)
}

// remember updates the routing table; a write reported out of order never
// rolls it back.
func (a *Aggregator) remember(s *apiregistrationv1.APIService, rev int64, deleted bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if last, ok := a.revs[s.Name]; ok && rev != 0 && rev < last {
		return
	}
	if old := a.services[s.Name]; old != nil {
		a.forgetDiscovery(old)
	}
	a.forgetDiscovery(s)
	a.revs[s.Name] = rev
	if deleted {
		delete(a.services, s.Name)
		delete(a.transports, s.Name)
		return
	}
	a.services[s.Name] = s
}

func (a *Aggregator) apiServiceStore() (*registry.Store, bool) {
	return a.cfg.Store(Group, "v1", ResourceName)
}

// Load reads every stored APIService into the routing table (at start).
func (a *Aggregator) Load(ctx context.Context) error {
	st, ok := a.apiServiceStore()
	if !ok {
		return nil
	}
	res, err := st.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return err
	}
	for _, obj := range res.Items {
		if s, ok := obj.(*apiregistrationv1.APIService); ok {
			rev, _ := strconv.ParseInt(s.ResourceVersion, 10, 64)
			a.remember(s, rev, false)
		}
	}
	return nil
}

// APIServices returns the routing table, sorted by name (read-only).
func (a *Aggregator) APIServices() []*apiregistrationv1.APIService {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make([]*apiregistrationv1.APIService, 0, len(a.services))
	for _, s := range a.services {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// remote returns the non-local APIService of group/version, or nil.
func (a *Aggregator) remote(group, version string) *apiregistrationv1.APIService {
	a.mu.RLock()
	defer a.mu.RUnlock()
	s := a.services[APIServiceName(group, version)]
	if s == nil || s.Spec.Service == nil {
		return nil
	}
	return s
}

// hasRemote reports whether any APIService routes away from the server;
// until one does, discovery is left to the API server unchanged.
func (a *Aggregator) hasRemote(group string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	for _, s := range a.services {
		if s.Spec.Service != nil && (group == "" || s.Spec.Group == group) {
			return true
		}
	}
	return false
}

// LocalAPIServices are the APIServices of what resources serve: one per
// group-version, without a service. Versions of a group get priorities in
// Kubernetes' version order (the preferred highest), groups the built-in
// groupPriorityMinimum table (1000 for custom resource groups).
func LocalAPIServices(resources []*registry.Resource) []*apiregistrationv1.APIService {
	versions := map[string][]string{}
	for _, r := range resources {
		if r == nil || r.Version == "" {
			continue
		}
		if !slices.Contains(versions[r.Group], r.Version) {
			versions[r.Group] = append(versions[r.Group], r.Version)
		}
	}
	var out []*apiregistrationv1.APIService
	for group, vs := range versions {
		discovery.SortVersions(vs)
		prio := discovery.GroupPriorityMinimum(group)
		if group == "" {
			prio = 18000 // the core group, which /apis never lists
		}
		for i, v := range vs {
			out = append(out, &apiregistrationv1.APIService{
				TypeMeta:   metav1.TypeMeta{APIVersion: GVK.GroupVersion().String(), Kind: GVK.Kind},
				ObjectMeta: metav1.ObjectMeta{Name: APIServiceName(group, v)},
				Spec: apiregistrationv1.APIServiceSpec{Group: group, Version: v, GroupPriorityMinimum: prio,
					VersionPriority: int32(max(1, 15-i))},
			})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// localAvailable is the condition of every local APIService.
func localAvailable(now metav1.Time) apiregistrationv1.APIServiceCondition {
	return apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue, LastTransitionTime: now,
		Reason: "Local", Message: "Local APIServices are always available"}
}

// SyncLocal makes the stored local APIServices match what the API server
// serves: it creates the missing ones (marked with AutoManagedLabel =
// manage) and deletes the auto-managed ones whose group-version is gone.
// APIServices created by users are left alone. The API server calls it at
// start ("onstart") and whenever its resources change ("true").
func (a *Aggregator) SyncLocal(ctx context.Context, manage string) error {
	a.syncMu.Lock()
	defer a.syncMu.Unlock()
	st, ok := a.apiServiceStore()
	if !ok {
		return nil
	}
	want := map[string]*apiregistrationv1.APIService{}
	var names []string
	for _, s := range LocalAPIServices(a.cfg.Resources()) {
		want[s.Name] = s
		names = append(names, s.Name)
	}
	a.mu.RLock()
	var stale []string
	have := map[string]bool{}
	for name, s := range a.services {
		have[name] = true
		if _, ok := want[name]; !ok && s.Labels[AutoManagedLabel] != "" && s.DeletionTimestamp == nil {
			stale = append(stale, name)
		}
	}
	a.mu.RUnlock()
	sort.Strings(stale)
	var errs []error
	for _, name := range stale {
		if _, err := st.Delete(ctx, "", name, nil, false); err != nil && !api.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting APIService %s: %w", name, err))
		}
	}
	now := metav1.NewTime(a.cfg.Clock.Now().UTC().Truncate(time.Second))
	for _, name := range names {
		if have[name] {
			continue
		}
		s := want[name]
		s.Labels = map[string]string{AutoManagedLabel: manage}
		s.Status.Conditions = []apiregistrationv1.APIServiceCondition{localAvailable(now)}
		if _, err := st.Create(ctx, "", s, registry.CreateOptions{}); err != nil && !api.IsAlreadyExists(err) {
			errs = append(errs, fmt.Errorf("creating APIService %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
