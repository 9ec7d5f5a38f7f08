package garbagecollector

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
)

// restMapper turns an ownerReference's apiVersion and kind into the
// resource to GET (the real RESTMapper). It learns from the objects the
// monitors observe and, for a kind it has not seen, asks discovery
// (/api/v1 or /apis/<group>/<version>).
type restMapper struct {
	client *client.Client
	mu     sync.Mutex
	known  map[schema.GroupKind]client.ResourceInfo
}

func newRESTMapper(c *client.Client) *restMapper {
	return &restMapper{client: c, known: map[schema.GroupKind]client.ResourceInfo{}}
}

// groupOf returns the group of an apiVersion ("apps/v1" → "apps", "v1" → "").
func groupOf(apiVersion string) string {
	if i := strings.Index(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// learn records that objects of kind in apiVersion's group are info.
func (m *restMapper) learn(apiVersion, kind string, info client.ResourceInfo) {
	if kind == "" {
		return
	}
	gk := schema.GroupKind{Group: groupOf(apiVersion), Kind: kind}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.known[gk]; !ok {
		m.known[gk] = info
	}
}

// forget drops what was learnt about resources of group/resource (a
// resource no longer served).
func (m *restMapper) forget(group, resource string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for gk, info := range m.known {
		if info.Group == group && info.Resource == resource {
			delete(m.known, gk)
		}
	}
}

// resourceFor maps apiVersion and kind to a resource.
func (m *restMapper) resourceFor(ctx context.Context, apiVersion, kind string) (client.ResourceInfo, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return client.ResourceInfo{}, err
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: kind}
	m.mu.Lock()
	info, ok := m.known[gk]
	m.mu.Unlock()
	if ok {
		return info, nil
	}
	path := "/apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		path = "/api/" + gv.Version
	}
	var list metav1.APIResourceList
	body, err := m.client.RawGet(ctx, path)
	switch {
	case api.IsNotFound(err):
		// The group version is not served: no match below. (The error
		// must not pass for the owner's own NotFound.)
	case err != nil:
		return client.ResourceInfo{}, fmt.Errorf("unable to get REST mapping for %s, Kind=%s: %v", apiVersion, kind, err)
	default:
		if err := json.Unmarshal(body, &list); err != nil {
			return client.ResourceInfo{}, fmt.Errorf("unable to get REST mapping for %s, Kind=%s: %v", apiVersion, kind, err)
		}
	}
	for _, r := range list.APIResources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		ri := client.ResourceInfo{Group: gv.Group, Version: gv.Version, Resource: r.Name, Namespaced: r.Namespaced}
		m.learn(apiVersion, r.Kind, ri)
		if r.Kind == kind {
			info, ok = ri, true
		}
	}
	if !ok {
		return client.ResourceInfo{}, fmt.Errorf("unable to get REST mapping for %s, Kind=%s: no matches for kind %q in version %q",
			apiVersion, kind, kind, apiVersion)
	}
	return info, nil
}
