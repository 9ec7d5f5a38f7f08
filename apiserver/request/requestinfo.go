package request

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// Info describes one request.
type Info struct {
	// IsResourceRequest is false for discovery, /version, /healthz...
	IsResourceRequest bool
	Path              string
	// Verb is get, list, watch, create, update, patch, delete or
	// deletecollection for resource requests; the lower-case HTTP method
	// otherwise.
	Verb        string
	APIPrefix   string // "api" or "apis"
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	// Parts are the path segments after the version (for error messages).
	Parts []string

	// url and method are those of the request Parse read (nil for
	// ParseParts): see ParsedFrom.
	url    *url.URL
	method string
}

// namespaceSubresources are subresources of a namespace itself, not
// resources inside it: /api/v1/namespaces/x/status is the namespace's
// status, not a resource named "status".
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// Parse reads an Info from a request.
func Parse(r *http.Request) *Info {
	watch := ""
	if r.URL.RawQuery != "" {
		watch = r.URL.Query().Get("watch")
	}
	info := ParseParts(r.Method, r.URL.Path, watch)
	info.url, info.method = r.URL, r.Method
	return info
}

// ParsedFrom says whether Parse read info from r (or from a copy of r
// with another context: http.Request.WithContext keeps the URL). A
// request's filters and handlers each need its Info (the loopback's
// identity, authorization, audit, the handler), and parsing it again in
// each was a few per cent of a Lease renewal's CPU; but only r's own Info
// may be reused: an in-process call made while serving another request (a
// kubelet reading a ConfigMap to serve an exec, an admission step) carries
// the outer request's Info in its context, and a request rewritten on its
// way has another URL.
func (info *Info) ParsedFrom(r *http.Request) bool {
	return info != nil && info.url != nil && info.url == r.URL && info.method == r.Method
}

// ParseParts is Parse for the method, path and value of the watch query
// parameter.
func ParseParts(method, path, watchParam string) *Info {
	info := &Info{Path: path, Verb: strings.ToLower(method)}
	parts := splitPath(path)
	if len(parts) == 0 || (parts[0] != "api" && parts[0] != "apis") {
		return info
	}
	for i, p := range parts {
		if p == "" {
			// "//" inside the path names nothing; the server answers 404.
			return info
		}
		if (p == "." || p == "..") && i != len(parts)-1 {
			// A dot segment is not resolved: /api/v1/namespaces/../namespaces/x
			// names nothing (404), rather than the cleaned path. As the last
			// segment it is a name, which the handlers refuse with 400.
			return info
		}
	}
	info.APIPrefix = parts[0]
	parts = parts[1:]
	if info.APIPrefix == "apis" {
		if len(parts) < 2 {
			return info // /apis, /apis/GROUP: discovery
		}
		info.APIGroup, parts = parts[0], parts[1:]
	}
	if len(parts) < 1 {
		return info // /api
	}
	info.APIVersion, parts = parts[0], parts[1:]
	if len(parts) == 0 {
		return info // /api/v1, /apis/GROUP/VERSION: discovery
	}
	info.IsResourceRequest = true
	watching := false
	if parts[0] == "watch" {
		// The old /api/v1/watch/pods form.
		watching, parts = true, parts[1:]
		if len(parts) == 0 {
			info.IsResourceRequest = false
			return info
		}
	}
	if parts[0] == "namespaces" && len(parts) > 1 {
		info.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			parts = parts[2:]
		}
	}
	info.Parts = parts
	info.Resource = parts[0]
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	if len(parts) > 2 {
		info.Subresource = parts[2]
	}
	if watchParam == "1" || watchParam == "true" {
		watching = true
	}
	switch method {
	case http.MethodGet, http.MethodHead:
		switch {
		case watching:
			info.Verb = "watch"
		case info.Name == "":
			info.Verb = "list"
		default:
			info.Verb = "get"
		}
	case http.MethodPost:
		info.Verb = "create"
	case http.MethodPut:
		info.Verb = "update"
	case http.MethodPatch:
		info.Verb = "patch"
	case http.MethodDelete:
		if info.Name == "" {
			info.Verb = "deletecollection"
		} else {
			info.Verb = "delete"
		}
	}
	return info
}

func splitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

type infoKey struct{}

// WithInfo stores info in the request context.
func WithInfo(ctx context.Context, info *Info) context.Context {
	return context.WithValue(ctx, infoKey{}, info)
}

// InfoFrom returns the Info stored by WithInfo.
func InfoFrom(ctx context.Context) (*Info, bool) {
	info, ok := ctx.Value(infoKey{}).(*Info)
	return info, ok
}

// InfoOf is the Info of r: the one stored by WithInfo, or r parsed now when
// none was (a filter that runs before the chain stores it, or alone in a
// test). Audit, authorization and the REST handler all read it so.
func InfoOf(r *http.Request) *Info {
	if info, ok := InfoFrom(r.Context()); ok {
		return info
	}
	return Parse(r)
}
