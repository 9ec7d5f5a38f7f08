package discovery

import (
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// Verbs every resource supports, sorted as Kubernetes lists them.
func resourceVerbs() []string {
	return []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
}

// verbsOf is resourceVerbs, or only create for a question answered and
// never stored (SubjectAccessReview and its kin).
func verbsOf(r *registry.Resource) []string {
	if r.CreateOnly != nil {
		return []string{"create"}
	}
	return resourceVerbs()
}

// subresourceVerbs are the verbs of status and scale: read and write, never
// create or delete.
func subresourceVerbs() []string { return []string{"get", "patch", "update"} }

// updateSubresourceVerbs are the verbs of an update subresource: only
// "update" for an update-only one (namespaces/finalize).
func updateSubresourceVerbs(us registry.UpdateSubresource) []string {
	if us.UpdateOnly {
		return []string{"update"}
	}
	return subresourceVerbs()
}

// APIVersions is the document at /api: the legacy core group has only v1.
// serverAddress is host:port as clients reach the server; the CIDR
// 0.0.0.0/0 means every client uses it.
func APIVersions(serverAddress string) *metav1.APIVersions {
	return &metav1.APIVersions{
		TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
		Versions: []string{"v1"},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
			{ClientCIDR: "0.0.0.0/0", ServerAddress: serverAddress},
		},
	}
}

// GroupList is the document at /apis: every named group served by
// resources, plus the extra groups (those of extension API servers, which
// the aggregator adds), each with its versions in preference order. Groups
// are ordered by GroupPriorityMinimum, then by name; an extra group that
// is also served locally has its versions merged.
func GroupList(resources []*registry.Resource, extra ...metav1.APIGroup) *metav1.APIGroupList {
	versions := groupVersions(resources)
	for _, g := range extra {
		if g.Name == "" {
			continue
		}
		for _, v := range g.Versions {
			if v.Version != "" && !slices.Contains(versions[g.Name], v.Version) {
				versions[g.Name] = append(versions[g.Name], v.Version)
			}
		}
	}
	names := make([]string, 0, len(versions))
	for name, vs := range versions {
		if name != "" && len(vs) > 0 {
			names = append(names, name)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		pi, pj := GroupPriorityMinimum(names[i]), GroupPriorityMinimum(names[j])
		if pi != pj {
			return pi > pj
		}
		return names[i] < names[j]
	})
	list := &metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   make([]metav1.APIGroup, 0, len(names)),
	}
	for _, name := range names {
		list.Groups = append(list.Groups, apiGroup(name, versions[name]))
	}
	return list
}

// Group is the document at /apis/<name>; false when no resource is served
// in that group (the core group is never a named group).
func Group(name string, resources []*registry.Resource) (*metav1.APIGroup, bool) {
	if name == "" {
		return nil, false
	}
	vs := groupVersions(resources)[name]
	if len(vs) == 0 {
		return nil, false
	}
	g := apiGroup(name, vs)
	g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	return &g, true
}

// apiGroup describes a group with versions sorted, preferred first.
func apiGroup(name string, versions []string) metav1.APIGroup {
	vs := slices.Clone(versions)
	SortVersions(vs)
	g := metav1.APIGroup{Name: name, Versions: make([]metav1.GroupVersionForDiscovery, 0, len(vs))}
	for _, v := range vs {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: name + "/" + v, Version: v})
	}
	g.PreferredVersion = g.Versions[0]
	return g
}

// SortVersions sorts versions in preference order (see
// CompareKubeAwareVersionStrings): the first is the preferred version.
func SortVersions(versions []string) {
	sort.SliceStable(versions, func(i, j int) bool {
		return CompareKubeAwareVersionStrings(versions[i], versions[j]) > 0
	})
}

// groupVersions maps each group to its distinct versions.
func groupVersions(resources []*registry.Resource) map[string][]string {
	out := map[string][]string{}
	for _, r := range resources {
		if r == nil || r.Version == "" || r.Name == "" {
			continue
		}
		if !slices.Contains(out[r.Group], r.Version) {
			out[r.Group] = append(out[r.Group], r.Version)
		}
	}
	return out
}

// ResourceList is the document at /api/v1 (groupVersion "v1") or
// /apis/<group>/<version>: one entry per resource and one per subresource
// ("pods/status", "replicasets/scale", "pods/binding"), sorted by name. It
// is nil when nothing is served at groupVersion.
func ResourceList(groupVersion string, resources []*registry.Resource) *metav1.APIResourceList {
	gv, err := schema.ParseGroupVersion(groupVersion)
	if err != nil || gv.Version == "" {
		return nil
	}
	var entries []metav1.APIResource
	seen := map[string]bool{}
	for _, r := range resources {
		if r == nil || r.Group != gv.Group || r.Version != gv.Version || r.Name == "" || seen[r.Name] {
			continue
		}
		seen[r.Name] = true
		entries = append(entries, resourceEntries(r)...)
	}
	if len(entries) == 0 {
		return nil
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	list := &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList"},
		GroupVersion: gv.String(),
		APIResources: entries,
	}
	// The legacy /api/v1 list carries no apiVersion; the named groups' do.
	if gv.Group != "" {
		list.APIVersion = "v1"
	}
	return list
}

// resourceEntries describes r and its subresources.
func resourceEntries(r *registry.Resource) []metav1.APIResource {
	singular := r.SingularName
	if singular == "" {
		singular = strings.ToLower(r.Kind)
	}
	out := []metav1.APIResource{{
		Name:         r.Name,
		SingularName: singular,
		Namespaced:   r.Namespaced,
		Kind:         r.Kind,
		Verbs:        verbsOf(r),
		ShortNames:   slices.Clone(r.ShortNames),
		Categories:   slices.Clone(r.Categories),
	}}
	if r.StatusSubresource {
		out = append(out, metav1.APIResource{
			Name: r.Name + "/status", Namespaced: r.Namespaced, Kind: r.Kind, Verbs: subresourceVerbs(),
		})
	}
	if r.Scale != nil {
		// The scale subresource speaks autoscaling/v1 Scale whatever the
		// parent's group; kubectl scale reads group and version from here.
		out = append(out, metav1.APIResource{
			Name: r.Name + "/scale", Namespaced: r.Namespaced,
			Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: subresourceVerbs(),
		})
	}
	for _, sub := range sortedKeys(r.UpdateSubresources) {
		out = append(out, metav1.APIResource{
			Name: r.Name + "/" + sub, Namespaced: r.Namespaced, Kind: r.Kind, Verbs: updateSubresourceVerbs(r.UpdateSubresources[sub]),
		})
	}
	for _, sub := range sortedKeys(r.CreateSubresources) {
		e := metav1.APIResource{Name: r.Name + "/" + sub, Namespaced: r.Namespaced, Verbs: []string{"create"}}
		if posted := r.CreateSubresources[sub].Resource; posted != nil {
			e.Kind = posted.Kind
			if posted.Version != "" && (posted.Group != r.Group || posted.Version != r.Version) {
				e.Group, e.Version = posted.Group, posted.Version
			}
		}
		out = append(out, e)
	}
	for _, sub := range sortedKeys(r.Connect) {
		c := r.Connect[sub]
		kind := r.Kind
		if c.Kind != "" {
			kind = c.Kind
		}
		out = append(out, metav1.APIResource{Name: r.Name + "/" + sub, Namespaced: r.Namespaced, Kind: kind, Verbs: slices.Clone(c.Verbs)})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
