package aggregator

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/discovery"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
)

// Request-header names of the front proxy (--requestheader-username-headers
// and --requestheader-group-headers in Kubernetes).
const (
	RemoteUserHeader  = "X-Remote-User"
	RemoteGroupHeader = "X-Remote-Group"
	// remoteExtraPrefix is --requestheader-extra-headers-prefix.
	remoteExtraPrefix = "X-Remote-Extra-"
)

// loopbackUser is the user of requests that came in without
// authentication: the control plane's own in-process clients, which
// Kubernetes gives the privileged loopback identity.
var loopbackUser = authn.UserInfo{Name: "system:apiserver", Groups: []string{"system:masters", authn.AllAuthenticated}}

// WithAggregation puts the aggregator in front of local, the API server's
// own routes; it goes after authentication, so that the user is known.
func (a *Aggregator) WithAggregation(local http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.openAPIRoute(w, r, local) {
			return
		}
		if version, ok := isAggregatedRequest(r); ok && a.hasRemote("") {
			a.serveAggregated(w, r, version)
			return
		}
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		if parts[0] == "apis" {
			switch {
			case len(parts) == 1 && a.hasRemote(""):
				a.serveGroupList(w, r)
				return
			case len(parts) == 2 && a.hasRemote(parts[1]):
				a.serveGroup(w, r, parts[1])
				return
			case len(parts) >= 3:
				if s := a.remote(parts[1], parts[2]); s != nil {
					a.proxy(w, r, s)
					return
				}
			}
		}
		local.ServeHTTP(w, r)
	})
}

// GroupVersion is one version of a group in merged discovery, with its
// APIService's versionPriority.
type GroupVersion struct {
	Version  string
	Priority int32
}

// mergedGroups is /apis: the groups the server serves and those of every
// APIService, ordered as kube-aggregator orders them.
func (a *Aggregator) mergedGroups() []metav1.APIGroup {
	groupPrio := map[string]int32{}
	versions := map[string][]GroupVersion{}
	add := func(group, version string, gp, vp int32) {
		if group == "" || version == "" {
			return
		}
		for i, v := range versions[group] {
			if v.Version == version {
				versions[group][i].Priority = max(v.Priority, vp)
				groupPrio[group] = max(groupPrio[group], gp)
				return
			}
		}
		versions[group] = append(versions[group], GroupVersion{version, vp})
		groupPrio[group] = max(groupPrio[group], gp)
	}
	for _, s := range a.APIServices() {
		add(s.Spec.Group, s.Spec.Version, s.Spec.GroupPriorityMinimum, s.Spec.VersionPriority)
	}
	// What the server serves but has no APIService yet (a CRD of a moment
	// ago) is listed with the defaults.
	for _, g := range discovery.GroupList(a.cfg.Resources()).Groups {
		for _, v := range g.Versions {
			add(g.Name, v.Version, discovery.GroupPriorityMinimum(g.Name), 0)
		}
	}
	return SortGroups(groupPrio, versions)
}

// SortGroups orders groups by priority (higher first, then by name) and
// each group's versions by priority (higher first, then Kubernetes
// version order); the first version is the preferred one.
func SortGroups(groupPrio map[string]int32, versions map[string][]GroupVersion) []metav1.APIGroup {
	names := make([]string, 0, len(versions))
	for n := range versions {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if pi, pj := groupPrio[names[i]], groupPrio[names[j]]; pi != pj {
			return pi > pj
		}
		return names[i] < names[j]
	})
	out := make([]metav1.APIGroup, 0, len(names))
	for _, n := range names {
		vs := versions[n]
		sort.SliceStable(vs, func(i, j int) bool {
			if vs[i].Priority != vs[j].Priority {
				return vs[i].Priority > vs[j].Priority
			}
			return discovery.CompareKubeAwareVersionStrings(vs[i].Version, vs[j].Version) > 0
		})
		g := metav1.APIGroup{Name: n}
		for _, v := range vs {
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: n + "/" + v.Version, Version: v.Version})
		}
		g.PreferredVersion = g.Versions[0]
		out = append(out, g)
	}
	return out
}

func (a *Aggregator) serveGroupList(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		responsewriters.WriteError(w, api.NewMethodNotAllowed())
		return
	}
	responsewriters.WriteJSON(w, http.StatusOK, &metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: a.mergedGroups()})
}

func (a *Aggregator) serveGroup(w http.ResponseWriter, r *http.Request, name string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		responsewriters.WriteError(w, api.NewMethodNotAllowed())
		return
	}
	for _, g := range a.mergedGroups() {
		if g.Name == name {
			g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
			responsewriters.WriteJSON(w, http.StatusOK, &g)
			return
		}
	}
	responsewriters.WriteError(w, api.NewPathNotFound())
}

// unavailableError is the 503 Status of a request whose backend cannot be
// reached; kubectl prints its message after "Error from server
// (ServiceUnavailable):".
func unavailableError(detail string) error {
	return api.NewServiceUnavailable("the server is currently unable to handle the request: " + detail)
}

// proxy sends the request to an endpoint of s's service.
func (a *Aggregator) proxy(w http.ResponseWriter, r *http.Request, s *apiregistrationv1.APIService) {
	target, err := a.resolve(r.Context(), s)
	if err != nil {
		responsewriters.WriteError(w, unavailableError(err.message))
		return
	}
	user, ok := authn.UserFrom(r.Context())
	if !ok {
		user = &loopbackUser
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.Host = "https", target, target
			SetRemoteUser(pr.Out.Header, user)
			// The client's credential is for this server only; the
			// aggregator's own identity is its TLS client certificate.
			pr.Out.Header.Del("Authorization")
		},
		Transport: a.transport(s),
		// A watch is a stream: every event goes out as it arrives.
		FlushInterval:  -1,
		ModifyResponse: rejectRedirect,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			a.cfg.Logger.Info("proxying to an extension API server failed", "apiservice", s.Name, "target", target, "err", err)
			responsewriters.WriteError(w, unavailableError(fmt.Sprintf("error trying to reach service %s for %s: %v",
				ServiceColumn(s), s.Name, err)))
		},
	}
	rp.ServeHTTP(w, r)
}

// redirectRejected is what the client gets instead of a backend's
// redirect: kube-apiserver's words (the upgrade-aware proxy with
// RejectForwardingRedirects, the aggregator's default since 1.25).
const redirectRejected = "the backend attempted to redirect this request, which is not permitted"

// rejectRedirect turns a backend's redirect (a 3xx with a Location) into a
// 502 Bad Gateway with a plain-text body, none of the backend's headers
// kept. Passed on, a redirect would send the client — with its own
// credentials, which a client such as kubectl re-sends when it follows
// one — wherever an extension API server chose (CVE-2022-3172). A 3xx
// without a Location (304 Not Modified) is not a redirect and passes.
func rejectRedirect(resp *http.Response) error {
	if resp.StatusCode < 300 || resp.StatusCode > 399 || resp.Header.Get("Location") == "" {
		return nil
	}
	_ = resp.Body.Close()
	resp.StatusCode = http.StatusBadGateway
	resp.Status = "502 Bad Gateway"
	resp.Header = http.Header{"Content-Type": {"text/plain; charset=utf-8"}}
	resp.Trailer, resp.TransferEncoding = nil, nil
	resp.Body = io.NopCloser(strings.NewReader(redirectRejected))
	resp.ContentLength = int64(len(redirectRejected))
	return nil
}

// SetRemoteUser replaces every X-Remote-* header by the user's: a header
// the client sent itself never reaches the backend, which would believe it.
func SetRemoteUser(h http.Header, user *authn.UserInfo) {
	for k := range h {
		// Compared without regard to case: a key net/http did not
		// canonicalize ("x-remote-extra- a") must not slip through.
		if strings.EqualFold(k, RemoteUserHeader) || strings.EqualFold(k, RemoteGroupHeader) ||
			len(k) >= len(remoteExtraPrefix) && strings.EqualFold(k[:len(remoteExtraPrefix)], remoteExtraPrefix) {
			delete(h, k)
		}
	}
	h.Set(RemoteUserHeader, user.Name)
	for _, g := range user.Groups {
		h.Add(RemoteGroupHeader, g)
	}
}

// transport is the HTTPS transport to s's backend, with its TLS settings.
func (a *Aggregator) transport(s *apiregistrationv1.APIService) http.RoundTripper {
	a.mu.Lock()
	defer a.mu.Unlock()
	settings := tlsSettingsOf(s)
	if c, ok := a.transports[s.Name]; ok && c.tls == settings {
		return c.rt
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: s.Spec.InsecureSkipTLSVerify} //nolint:gosec // the APIService asks for it
	if a.cfg.ProxyClientCert != nil {
		tc.Certificates = []tls.Certificate{*a.cfg.ProxyClientCert}
	}
	if len(s.Spec.CABundle) > 0 {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(s.Spec.CABundle)
		tc.RootCAs = pool
		tc.ServerName = settings.serviceName
	}
	rt := &http.Transport{DialContext: a.cfg.Dial, TLSClientConfig: tc, ForceAttemptHTTP2: false,
		MaxIdleConnsPerHost: 8, IdleConnTimeout: 30e9}
	if old, ok := a.transports[s.Name]; ok {
		old.rt.CloseIdleConnections()
	}
	a.transports[s.Name] = cachedTransport{tls: settings, rt: rt}
	return rt
}
