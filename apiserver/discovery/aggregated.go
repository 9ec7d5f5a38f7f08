package discovery

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
)

// The aggregated discovery document (apidiscovery.k8s.io/v2): every group,
// version and resource in one reply, so that a client needs two requests
// (/api and /apis) instead of one per group-version. The types mirror
// k8s.io/api/apidiscovery/v2; they live here, beside the only code that
// writes them, rather than in package api, because nothing stores them.

// Group and versions of the aggregated discovery types.
const (
	AggregatedGroup         = "apidiscovery.k8s.io"
	AggregatedVersion       = "v2"
	AggregatedVersionBeta1  = "v2beta1"
	AggregatedListKind      = "APIGroupDiscoveryList"
	aggregatedMediaTypeBase = "application/json"
)

// AggregatedContentType is the media type of the document in version
// (v2 or v2beta1), with its parameters in the order clients send them.
func AggregatedContentType(version string) string {
	return aggregatedMediaTypeBase + ";g=" + AggregatedGroup + ";v=" + version + ";as=" + AggregatedListKind
}

// ResourceScope says whether a resource lives in namespaces.
type ResourceScope string

// The two scopes.
const (
	ScopeCluster   ResourceScope = "Cluster"
	ScopeNamespace ResourceScope = "Namespaced"
)

// DiscoveryFreshness says whether a version's resources are up to date:
// Stale when the aggregator could not reach the extension server that
// serves it and shows what it knew before (or nothing). Clients skip
// stale versions and report them as failed group-versions.
type DiscoveryFreshness string

// The two freshness values.
const (
	DiscoveryFreshnessCurrent DiscoveryFreshness = "Current"
	DiscoveryFreshnessStale   DiscoveryFreshness = "Stale"
)

// GroupVersionKind is metav1.GroupVersionKind, with its JSON names.
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// APIGroupDiscoveryList is the whole document, at /api (the core group
// alone) or /apis (the named groups).
type APIGroupDiscoveryList struct {
	Kind       string              `json:"kind,omitempty"`
	APIVersion string              `json:"apiVersion,omitempty"`
	Metadata   struct{}            `json:"metadata"`
	Items      []APIGroupDiscovery `json:"items"`
}

// GroupMeta is the metadata of a group: its name ("" for the core group).
type GroupMeta struct {
	Name string `json:"name,omitempty"`
	// CreationTimestamp is always null, as Kubernetes writes an empty
	// ObjectMeta.
	CreationTimestamp *string `json:"creationTimestamp"`
}

// APIGroupDiscovery is one group with its versions, preferred first.
type APIGroupDiscovery struct {
	Metadata GroupMeta             `json:"metadata"`
	Versions []APIVersionDiscovery `json:"versions,omitempty"`
}

// APIVersionDiscovery is one version of a group with its resources,
// sorted by name.
type APIVersionDiscovery struct {
	Version   string                 `json:"version"`
	Resources []APIResourceDiscovery `json:"resources,omitempty"`
	Freshness DiscoveryFreshness     `json:"freshness,omitempty"`
}

// APIResourceDiscovery is one resource; its subresources are nested
// rather than listed as "pods/status" entries.
type APIResourceDiscovery struct {
	Resource string `json:"resource"`
	// ResponseKind is the kind of the objects; a client drops a resource
	// without one.
	ResponseKind     *GroupVersionKind         `json:"responseKind,omitempty"`
	Scope            ResourceScope             `json:"scope"`
	SingularResource string                    `json:"singularResource"`
	Verbs            []string                  `json:"verbs"`
	ShortNames       []string                  `json:"shortNames,omitempty"`
	Categories       []string                  `json:"categories,omitempty"`
	Subresources     []APISubresourceDiscovery `json:"subresources,omitempty"`
}

// APISubresourceDiscovery is a subresource: status, scale, binding.
type APISubresourceDiscovery struct {
	Subresource   string             `json:"subresource"`
	ResponseKind  *GroupVersionKind  `json:"responseKind,omitempty"`
	AcceptedTypes []GroupVersionKind `json:"acceptedTypes,omitempty"`
	Verbs         []string           `json:"verbs"`
}

// AggregatedLegacy is the document at /api: the core group (no name) and
// its one version.
func AggregatedLegacy(resources []*registry.Resource) []APIGroupDiscovery {
	versions := groupVersions(resources)[""]
	if len(versions) == 0 {
		return []APIGroupDiscovery{}
	}
	return []APIGroupDiscovery{aggregatedGroup("", versions, resources)}
}

// AggregatedGroups is the document at /apis: every named group served by
// resources, ordered as GroupList orders them, versions preferred first.
func AggregatedGroups(resources []*registry.Resource) []APIGroupDiscovery {
	list := GroupList(resources)
	out := make([]APIGroupDiscovery, 0, len(list.Groups))
	byGroup := groupVersions(resources)
	for _, g := range list.Groups {
		out = append(out, aggregatedGroup(g.Name, byGroup[g.Name], resources))
	}
	return out
}

// aggregatedGroup describes one locally served group; local versions are
// always Current.
func aggregatedGroup(name string, versions []string, resources []*registry.Resource) APIGroupDiscovery {
	vs := slices.Clone(versions)
	SortVersions(vs)
	g := APIGroupDiscovery{Metadata: GroupMeta{Name: name}}
	for _, v := range vs {
		g.Versions = append(g.Versions, APIVersionDiscovery{
			Version:   v,
			Resources: AggregatedResources(name, v, resources),
			Freshness: DiscoveryFreshnessCurrent,
		})
	}
	return g
}

// AggregatedResources describes the resources served at group/version,
// sorted by name, each with its subresources.
func AggregatedResources(group, version string, resources []*registry.Resource) []APIResourceDiscovery {
	var out []APIResourceDiscovery
	seen := map[string]bool{}
	for _, r := range resources {
		if r == nil || r.Group != group || r.Version != version || r.Name == "" || seen[r.Name] {
			continue
		}
		seen[r.Name] = true
		out = append(out, aggregatedResource(r))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Resource < out[j].Resource })
	return out
}

func aggregatedResource(r *registry.Resource) APIResourceDiscovery {
	singular := r.SingularName
	if singular == "" {
		singular = strings.ToLower(r.Kind)
	}
	scope := ScopeCluster
	if r.Namespaced {
		scope = ScopeNamespace
	}
	kind := &GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
	d := APIResourceDiscovery{
		Resource: r.Name, ResponseKind: kind, Scope: scope, SingularResource: singular,
		Verbs: verbsOf(r), ShortNames: slices.Clone(r.ShortNames), Categories: slices.Clone(r.Categories),
	}
	if r.Scale != nil {
		d.Subresources = append(d.Subresources, APISubresourceDiscovery{
			Subresource:  "scale",
			ResponseKind: &GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"},
			Verbs:        subresourceVerbs(),
		})
	}
	if r.StatusSubresource {
		d.Subresources = append(d.Subresources, APISubresourceDiscovery{
			Subresource: "status", ResponseKind: kind, Verbs: subresourceVerbs(),
		})
	}
	for _, sub := range sortedKeys(r.UpdateSubresources) {
		d.Subresources = append(d.Subresources, APISubresourceDiscovery{
			Subresource: sub, ResponseKind: kind, Verbs: updateSubresourceVerbs(r.UpdateSubresources[sub]),
		})
	}
	for _, sub := range sortedKeys(r.CreateSubresources) {
		// A subresource without a kind is dropped by clients, so a
		// POST-only one answers with the parent's kind unless it names
		// its own (pods/binding: Binding, pods/eviction: policy/v1 Eviction).
		posted := *kind
		if p := r.CreateSubresources[sub].Resource; p != nil && p.Kind != "" {
			posted.Kind = p.Kind
			if p.Version != "" {
				posted.Group, posted.Version = p.Group, p.Version
			}
		}
		d.Subresources = append(d.Subresources, APISubresourceDiscovery{
			Subresource: sub, ResponseKind: &posted, Verbs: []string{"create"},
		})
	}
	for _, sub := range sortedKeys(r.Connect) {
		c := r.Connect[sub]
		k := *kind
		if c.Kind != "" {
			k.Kind = c.Kind
		}
		d.Subresources = append(d.Subresources, APISubresourceDiscovery{
			Subresource: sub, ResponseKind: &k, Verbs: slices.Clone(c.Verbs),
		})
	}
	sort.SliceStable(d.Subresources, func(i, j int) bool { return d.Subresources[i].Subresource < d.Subresources[j].Subresource })
	return d
}

// NewAggregatedList wraps groups in the list of the given version (v2 or
// v2beta1: the JSON is the same but for apiVersion).
func NewAggregatedList(version string, groups []APIGroupDiscovery) *APIGroupDiscoveryList {
	if groups == nil {
		groups = []APIGroupDiscovery{}
	}
	return &APIGroupDiscoveryList{Kind: AggregatedListKind, APIVersion: AggregatedGroup + "/" + version, Items: groups}
}

// NegotiateAggregated picks the aggregated version the Accept header asks
// for, in the client's order: kubectl v1.32 sends v2, then v2beta1, then
// plain application/json. It returns "" when the client did not ask for
// the aggregated document (or asked for protobuf, which is not served).
func NegotiateAggregated(accept string) string {
	for _, clause := range strings.Split(accept, ",") {
		params := strings.Split(clause, ";")
		if strings.TrimSpace(params[0]) != aggregatedMediaTypeBase {
			continue
		}
		var g, v, as string
		q := ""
		for _, p := range params[1:] {
			key, value, _ := strings.Cut(strings.TrimSpace(p), "=")
			switch strings.ToLower(key) {
			case "g":
				g = value
			case "v":
				v = value
			case "as":
				as = value
			case "q":
				q = value
			}
		}
		if g != AggregatedGroup || as != AggregatedListKind || q == "0" {
			continue
		}
		if v == AggregatedVersion || v == AggregatedVersionBeta1 {
			return v
		}
	}
	return ""
}

// ETag is the entity tag of an aggregated document as Kubernetes computes
// it: the SHA-512 of its JSON in upper-case hex (quoted on the wire).
func ETag(body []byte) string {
	return fmt.Sprintf("%X", sha512.Sum512(body))
}

// ServeAggregated writes groups as the aggregated document in version,
// with the ETag of its bytes; a request whose If-None-Match names that tag
// gets 304 Not Modified and no body, which is how a client's HTTP cache
// learns cheaply that nothing changed (a CRD or APIService that came or
// went changes the tag).
func ServeAggregated(w http.ResponseWriter, r *http.Request, version string, groups []APIGroupDiscovery) {
	body, err := json.Marshal(NewAggregatedList(version, groups))
	if err != nil {
		responsewriters.WriteError(w, api.NewInternalError(err))
		return
	}
	quoted := strconv.Quote(ETag(body))
	h := w.Header()
	h.Set("ETag", quoted)
	// The same URL answers plain and aggregated documents.
	h.Set("Vary", "Accept")
	h.Set("Cache-Control", "public")
	if r.Header.Get("If-None-Match") == quoted {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", AggregatedContentType(version))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// FromResourceList converts a plain APIResourceList into aggregated
// resources: "pods/status" entries become subresources of pods. The
// aggregator uses it for extension servers that serve only plain
// discovery, as kube-aggregator's ConvertGroupVersionIntoToDiscovery.
func FromResourceList(list *metav1.APIResourceList) []APIResourceDiscovery {
	gv, _ := schema.ParseGroupVersion(list.GroupVersion)
	kindOf := func(r metav1.APIResource) *GroupVersionKind {
		k := &GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: r.Kind}
		if r.Group != "" || r.Version != "" {
			k.Group, k.Version = r.Group, r.Version
		}
		return k
	}
	var out []APIResourceDiscovery
	index := map[string]int{}
	for _, r := range list.APIResources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		scope := ScopeCluster
		if r.Namespaced {
			scope = ScopeNamespace
		}
		index[r.Name] = len(out)
		out = append(out, APIResourceDiscovery{
			Resource: r.Name, ResponseKind: kindOf(r), Scope: scope, SingularResource: r.SingularName,
			Verbs: slices.Clone(r.Verbs), ShortNames: slices.Clone(r.ShortNames), Categories: slices.Clone(r.Categories),
		})
	}
	for _, r := range list.APIResources {
		parent, sub, ok := strings.Cut(r.Name, "/")
		if !ok {
			continue
		}
		i, found := index[parent]
		if !found {
			// A subresource whose parent is not listed still needs one.
			scope := ScopeCluster
			if r.Namespaced {
				scope = ScopeNamespace
			}
			i = len(out)
			index[parent] = i
			out = append(out, APIResourceDiscovery{Resource: parent, Scope: scope})
		}
		out[i].Subresources = append(out[i].Subresources, APISubresourceDiscovery{
			Subresource: sub, ResponseKind: kindOf(r), Verbs: slices.Clone(r.Verbs),
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Resource < out[j].Resource })
	return out
}
