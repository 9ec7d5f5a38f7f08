package request

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	cases := []struct {
		method, path, watch string
		want                Info
	}{
		{"GET", "/api/v1/namespaces/default/pods", "", Info{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods"}},
		{"GET", "/api/v1/namespaces/default/pods/web", "", Info{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods", Name: "web"}},
		{"GET", "/api/v1/pods", "true", Info{IsResourceRequest: true, Verb: "watch", APIPrefix: "api", APIVersion: "v1", Resource: "pods"}},
		{"GET", "/api/v1/watch/namespaces/x/pods", "", Info{IsResourceRequest: true, Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "x", Resource: "pods"}},
		{"POST", "/apis/apps/v1/namespaces/d/replicasets", "", Info{IsResourceRequest: true, Verb: "create", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "d", Resource: "replicasets"}},
		{"PATCH", "/apis/apps/v1/namespaces/d/replicasets/r/scale", "", Info{IsResourceRequest: true, Verb: "patch", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "d", Resource: "replicasets", Name: "r", Subresource: "scale"}},
		{"PUT", "/api/v1/namespaces/x/status", "", Info{IsResourceRequest: true, Verb: "update", APIPrefix: "api", APIVersion: "v1", Namespace: "x", Resource: "namespaces", Name: "x", Subresource: "status"}},
		{"GET", "/api/v1/namespaces/x", "", Info{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "x", Resource: "namespaces", Name: "x"}},
		{"DELETE", "/api/v1/namespaces/x/pods", "", Info{IsResourceRequest: true, Verb: "deletecollection", APIPrefix: "api", APIVersion: "v1", Namespace: "x", Resource: "pods"}},
		{"DELETE", "/api/v1/nodes/n1", "", Info{IsResourceRequest: true, Verb: "delete", APIPrefix: "api", APIVersion: "v1", Resource: "nodes", Name: "n1"}},
		{"GET", "/apis/apps/v1", "", Info{Verb: "get", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1"}},
		{"GET", "/apis", "", Info{Verb: "get", APIPrefix: "apis"}},
		{"GET", "/version", "", Info{Verb: "get"}},
		// Dot segments are not resolved: the path names nothing.
		{"GET", "/api/v1/namespaces/../namespaces/default", "", Info{Verb: "get"}},
		{"GET", "/api/v1/./namespaces", "", Info{Verb: "get"}},
		{"GET", "/apis/apps/v1/namespaces/d/replicasets/./x", "", Info{Verb: "get"}},
		// As the last segment it is a name, refused by the handlers (400).
		{"GET", "/api/v1/namespaces/default/pods/..", "", Info{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods", Name: ".."}},
	}
	for _, c := range cases {
		got := ParseParts(c.method, c.path, c.watch)
		c.want.Path = c.path
		got.Parts = nil
		assert.Equal(t, c.want, *got, "%s %s", c.method, c.path)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("GET", "/api/v1/namespaces/a/pods/b/status", "1")
	f.Add("DELETE", "/apis/g/v/namespaces//x", "")
	f.Add("GET", "//api//watch", "true")
	f.Fuzz(func(t *testing.T, method, path, watch string) {
		info := ParseParts(method, path, watch)
		if info.IsResourceRequest && info.Resource == "" {
			t.Fatalf("resource request without a resource: %+v", info)
		}
	})
}
