package aggregator

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/kubesim/kubesim/apiserver/responsewriters"
)

// serveOpenAPIIndex is /openapi/v3 with the group-versions of extension
// servers added: kubectl validates a manifest against the document of its
// group-version, which the extension server serves itself (proxied).
func (a *Aggregator) serveOpenAPIIndex(w http.ResponseWriter, r *http.Request, local http.Handler) {
	rec := httptest.NewRecorder()
	local.ServeHTTP(rec, r)
	var idx struct {
		Paths map[string]map[string]string `json:"paths"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &idx) != nil || idx.Paths == nil {
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		return
	}
	for _, s := range a.APIServices() {
		if s.Spec.Service == nil {
			continue
		}
		key := "apis/" + s.Spec.Group + "/" + s.Spec.Version
		// The hash names the APIService's version and its generation: a
		// client fetches the document again when the route changes.
		idx.Paths[key] = map[string]string{"serverRelativeURL": "/openapi/v3/" + key + "?hash=" +
			strings.ToUpper(s.UID+"-"+s.ResourceVersion)}
	}
	w.Header().Set("Cache-Control", "no-cache, private")
	responsewriters.WriteJSON(w, http.StatusOK, idx)
}

// openAPIRoute routes /openapi/v3 and /openapi/v3/apis/G/V; it reports
// whether it answered.
func (a *Aggregator) openAPIRoute(w http.ResponseWriter, r *http.Request, local http.Handler) bool {
	rest, ok := strings.CutPrefix(r.URL.Path, "/openapi/v3")
	if !ok || !a.hasRemote("") {
		return false
	}
	if rest == "" || rest == "/" {
		a.serveOpenAPIIndex(w, r, local)
		return true
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	if len(parts) == 3 && parts[0] == "apis" {
		if s := a.remote(parts[1], parts[2]); s != nil {
			a.proxy(w, r, s)
			return true
		}
	}
	return false
}
