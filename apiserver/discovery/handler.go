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
// The replies are plain application/json whatever the Accept header asks:
// kubectl asks for aggregated discovery first and falls back to these
// per-group documents when the Content-Type is not the aggregated one.
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
