package discovery

import (
	"net/http"
	"strings"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
)

// NewHandler serves /api, /api/v1, /apis, /apis/<group> and
// /apis/<group>/<version> from the resources source returns. source is
// called on every request because custom resources come and go; the
// documents are cheap to build. Unknown groups and versions get a 404
// Status, other methods than GET and HEAD a 405.
//
// /api and /apis answer the aggregated document (apidiscovery.k8s.io/v2
// or v2beta1, with an ETag) when the Accept header asks for it, as kubectl
// and client-go do first; every other reply is plain application/json,
// which makes a client fall back to the per-group documents.
func NewHandler(source func() []*registry.Resource) http.Handler {
	return &handler{source: source}
}

type handler struct {
	source func() []*registry.Resource
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := splitPath(r.URL.Path)
	if len(parts) == 0 || (parts[0] != "api" && parts[0] != "apis") {
		responsewriters.WriteError(w, api.NewPathNotFound())
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		responsewriters.WriteError(w, api.NewMethodNotAllowed())
		return
	}
	if len(parts) == 1 {
		// /api and /apis answer the aggregated document to a client that
		// asks for it, the plain one otherwise.
		if version := NegotiateAggregated(r.Header.Get("Accept")); version != "" {
			groups := AggregatedLegacy(h.source())
			if parts[0] == "apis" {
				groups = AggregatedGroups(h.source())
			}
			ServeAggregated(w, r, version, groups)
			return
		}
		w.Header().Set("Vary", "Accept")
	}
	var body any
	switch {
	case parts[0] == "api" && len(parts) == 1:
		body = APIVersions(r.Host)
	case parts[0] == "api" && len(parts) == 2 && parts[1] == "v1":
		if l := ResourceList("v1", h.source()); l != nil {
			body = l
		}
	case parts[0] == "apis" && len(parts) == 1:
		body = GroupList(h.source())
	case parts[0] == "apis" && len(parts) == 2:
		if g, ok := Group(parts[1], h.source()); ok {
			body = g
		}
	case parts[0] == "apis" && len(parts) == 3:
		if l := ResourceList(parts[1]+"/"+parts[2], h.source()); l != nil {
			body = l
		}
	}
	if body == nil {
		responsewriters.WriteError(w, api.NewPathNotFound())
		return
	}
	responsewriters.WriteJSON(w, http.StatusOK, body)
}

// splitPath turns "/apis/apps/v1/" into [apis apps v1]; empty segments
// (from "//") are kept so that such paths do not match.
func splitPath(p string) []string {
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return nil
	}
	parts := strings.Split(p, "/")
	for _, s := range parts {
		if s == "" {
			return nil
		}
	}
	return parts
}

// notFound is the Status a Kubernetes API server answers for a path it
// does not serve.
