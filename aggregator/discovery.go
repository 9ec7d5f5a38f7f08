package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver/discovery"
)

// discoveryRefresh is how long a remote server's discovery is reused
// before it is fetched again; kube-aggregator's discovery manager resyncs
// every APIService each minute too. A write to an APIService (its status
// included, which the availability controller updates) refreshes at once.
const discoveryRefresh = time.Minute

// discoveryTimeout bounds one fetch, as kube-aggregator's 5 s.
const discoveryTimeout = 5 * time.Second

// serviceKey names the backend of an APIService: several APIServices of
// one extension server share one fetch of its /apis.
type serviceKey struct {
	namespace, name string
	port            int32
}

func serviceKeyOf(s *apiregistrationv1.APIService) serviceKey {
	ref := s.Spec.Service
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	return serviceKey{ref.Namespace, ref.Name, port}
}

// cachedDiscovery is the last discovery fetched from one backend.
type cachedDiscovery struct {
	// versions maps "group/version" to what the backend said.
	versions map[string]discovery.APIVersionDiscovery
	// etag is sent back as If-None-Match; a 304 keeps versions.
	etag string
	// fetchedAt is when the fetch started; err is its failure, if any
	// (versions then hold what an earlier fetch found).
	fetchedAt time.Time
	err       error
}

// forgetDiscovery drops the cached discovery and OpenAPI v2 of s's
// backend: the APIService changed, so they are fetched again on the next
// request (kube-aggregator marks it dirty).
func (a *Aggregator) forgetDiscovery(s *apiregistrationv1.APIService) {
	if s.Spec.Service == nil {
		return
	}
	a.openAPIMu.Lock()
	if c, ok := a.specCache[serviceKeyOf(s)]; ok {
		c.fetchedAt = time.Time{}
		a.specCache[serviceKeyOf(s)] = c
	}
	a.openAPIMu.Unlock()
	a.discoveryMu.Lock()
	defer a.discoveryMu.Unlock()
	if c, ok := a.discoveryCache[serviceKeyOf(s)]; ok {
		// Keep the versions, so that a failing refetch still has
		// something (stale) to show.
		c.fetchedAt = time.Time{}
		a.discoveryCache[serviceKeyOf(s)] = c
	}
}

// remoteVersion is the discovery of one remote APIService's group-version:
// Current when its backend answered, Stale (with what was known before,
// or no resources) when it did not.
func (a *Aggregator) remoteVersion(ctx context.Context, s *apiregistrationv1.APIService) discovery.APIVersionDiscovery {
	c := a.backendDiscovery(ctx, s)
	v, ok := c.versions[s.Spec.Group+"/"+s.Spec.Version]
	if !ok {
		v = discovery.APIVersionDiscovery{Version: s.Spec.Version}
	}
	v.Freshness = discovery.DiscoveryFreshnessCurrent
	if c.err != nil {
		v.Freshness = discovery.DiscoveryFreshnessStale
	}
	return v
}

// backendDiscovery returns the cached discovery of s's backend, fetching
// it when it is missing, old, or was dropped by a change to an APIService.
func (a *Aggregator) backendDiscovery(ctx context.Context, s *apiregistrationv1.APIService) cachedDiscovery {
	key := serviceKeyOf(s)
	now := a.cfg.Clock.Now()
	a.discoveryMu.Lock()
	c, ok := a.discoveryCache[key]
	a.discoveryMu.Unlock()
	if ok && !c.fetchedAt.IsZero() && now.Sub(c.fetchedAt) < discoveryRefresh {
		return c
	}
	fresh := a.fetchDiscovery(ctx, s, c)
	fresh.fetchedAt = now
	a.discoveryMu.Lock()
	a.discoveryCache[key] = fresh
	a.discoveryMu.Unlock()
	return fresh
}

// fetchDiscovery asks the backend for its aggregated /apis (with the
// cached ETag), and falls back to its /apis/GROUP/VERSION list when it does
// not serve the aggregated form, as kube-aggregator's discovery manager.
func (a *Aggregator) fetchDiscovery(ctx context.Context, s *apiregistrationv1.APIService, cached cachedDiscovery) cachedDiscovery {
	failed := func(err error) cachedDiscovery {
		cached.err = err
		return cached
	}
	target, u := a.resolve(ctx, s)
	if u != nil {
		return failed(fmt.Errorf("%s", u.message))
	}
	resp, body, err := a.getBackend(ctx, s, target, "/apis",
		discovery.AggregatedContentType(discovery.AggregatedVersion)+","+discovery.AggregatedContentType(discovery.AggregatedVersionBeta1),
		cached.etag)
	if err != nil {
		return failed(err)
	}
	if resp.StatusCode == http.StatusNotModified && cached.versions != nil {
		cached.err = nil
		return cached
	}
	if resp.StatusCode == http.StatusOK && discovery.NegotiateAggregated(resp.Header.Get("Content-Type")) != "" {
		var list discovery.APIGroupDiscoveryList
		if err := json.Unmarshal(body, &list); err != nil {
			return failed(fmt.Errorf("decoding the aggregated discovery of %s: %w", s.Name, err))
		}
		out := cachedDiscovery{versions: map[string]discovery.APIVersionDiscovery{}, etag: resp.Header.Get("ETag")}
		for _, g := range list.Items {
			for _, v := range g.Versions {
				out.versions[g.Metadata.Name+"/"+v.Version] = v
			}
		}
		return out
	}
	// An older server: the legacy list of this one group-version, not
	// cached by ETag because it covers only part of the backend.
	path := "/apis/" + s.Spec.Group + "/" + s.Spec.Version
	resp, body, err = a.getBackend(ctx, s, target, path, "application/json", "")
	if err != nil {
		return failed(err)
	}
	if resp.StatusCode != http.StatusOK {
		return failed(fmt.Errorf("failed to download legacy discovery for %s: %d", path, resp.StatusCode))
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(body, &list); err != nil {
		return failed(fmt.Errorf("decoding %s: %w", path, err))
	}
	return cachedDiscovery{versions: map[string]discovery.APIVersionDiscovery{
		s.Spec.Group + "/" + s.Spec.Version: {Version: s.Spec.Version, Resources: discovery.FromResourceList(&list)},
	}}
}

// getBackend GETs path from the backend as the aggregator itself.
func (a *Aggregator) getBackend(ctx context.Context, s *apiregistrationv1.APIService, target, path, accept, etag string) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+target+path, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", accept)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	// As the aggregator itself: its transport presents the front-proxy
	// client certificate.
	SetRemoteUser(req.Header, &loopbackUser)
	resp, err := a.transport(s).RoundTrip(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, nil, err
	}
	return resp, body, nil
}

// aggregatedGroups is the merged /apis document: the groups of every
// APIService, in the order of the plain /apis (groupPriorityMinimum, then
// versionPriority), each version described by the API server itself when
// local, or by its extension server.
func (a *Aggregator) aggregatedGroups(ctx context.Context) []discovery.APIGroupDiscovery {
	resources := a.cfg.Resources()
	local := map[string]discovery.APIVersionDiscovery{}
	for _, g := range discovery.AggregatedGroups(resources) {
		for _, v := range g.Versions {
			local[g.Metadata.Name+"/"+v.Version] = v
		}
	}
	var out []discovery.APIGroupDiscovery
	for _, g := range a.mergedGroups() {
		d := discovery.APIGroupDiscovery{Metadata: discovery.GroupMeta{Name: g.Name}}
		for _, gv := range g.Versions {
			if s := a.remote(g.Name, gv.Version); s != nil {
				d.Versions = append(d.Versions, a.remoteVersion(ctx, s))
			} else if v, ok := local[gv.GroupVersion]; ok {
				d.Versions = append(d.Versions, v)
			}
		}
		if len(d.Versions) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// serveAggregated answers /apis in the aggregated form.
func (a *Aggregator) serveAggregated(w http.ResponseWriter, r *http.Request, version string) {
	discovery.ServeAggregated(w, r, version, a.aggregatedGroups(r.Context()))
}

// isAggregatedRequest reports whether r asks for the aggregated /apis and
// which version of it.
func isAggregatedRequest(r *http.Request) (string, bool) {
	if strings.Trim(r.URL.Path, "/") != "apis" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return "", false
	}
	v := discovery.NegotiateAggregated(r.Header.Get("Accept"))
	return v, v != ""
}
