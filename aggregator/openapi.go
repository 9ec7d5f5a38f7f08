package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/openapi"
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
			strings.ToUpper(string(s.UID)+"-"+s.ResourceVersion)}
	}
	w.Header().Set("Cache-Control", "no-cache, private")
	responsewriters.WriteJSON(w, http.StatusOK, idx)
}

// openAPIRoute routes /openapi/v2, /openapi/v3 and /openapi/v3/apis/G/V; it reports
// whether it answered.
func (a *Aggregator) openAPIRoute(w http.ResponseWriter, r *http.Request, local http.Handler) bool {
	if !a.hasRemote("") {
		return false
	}
	if strings.TrimSuffix(r.URL.Path, "/") == "/openapi/v2" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		a.serveOpenAPIV2(w, r, local)
		return true
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/openapi/v3")
	if !ok {
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

// cachedSpec is the last /openapi/v2 fetched from one backend.
type cachedSpec struct {
	// doc is the decoded JSON document; nil until a fetch succeeds.
	doc       map[string]any
	etag      string
	fetchedAt time.Time
}

// mergedSpec is the last merged /openapi/v2, keyed by what it was built
// from, so that an unchanged merge is not encoded again.
type mergedSpec struct {
	key         string
	json, proto []byte
}

// serveOpenAPIV2 is /openapi/v2 with the paths and definitions of every
// extension server merged in, as kube-aggregator's OpenAPI aggregation
// controller merges their specs: a client that falls back to v2 finds the
// kinds of extension servers too. The server's own definitions win a name
// clash; a backend that cannot be reached keeps what it gave last.
func (a *Aggregator) serveOpenAPIV2(w http.ResponseWriter, r *http.Request, local http.Handler) {
	lr := r.Clone(r.Context())
	lr.Header = r.Header.Clone()
	lr.Header.Set("Accept", "application/json")
	lr.Header.Del("If-None-Match")
	rec := httptest.NewRecorder()
	local.ServeHTTP(rec, lr)
	if rec.Code != http.StatusOK {
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		return
	}
	key := rec.Header().Get("Etag")
	type remoteSpec struct {
		doc    map[string]any
		prefix []string
	}
	var remotes []remoteSpec
	byBackend := map[serviceKey]int{}
	for _, s := range a.APIServices() {
		if s.Spec.Service == nil {
			continue
		}
		prefix := "/apis/" + s.Spec.Group + "/" + s.Spec.Version
		if i, ok := byBackend[serviceKeyOf(s)]; ok {
			remotes[i].prefix = append(remotes[i].prefix, prefix)
			key += "|" + prefix
			continue
		}
		c := a.backendSpec(r.Context(), s)
		if c.doc == nil {
			continue
		}
		byBackend[serviceKeyOf(s)] = len(remotes)
		remotes = append(remotes, remoteSpec{doc: c.doc, prefix: []string{prefix}})
		key += "|" + prefix + "=" + c.etag
	}
	a.openAPIMu.Lock()
	cached := a.mergedV2
	a.openAPIMu.Unlock()
	if cached.key != key || cached.json == nil {
		doc, err := decodeJSONDocument(rec.Body.Bytes())
		if err != nil {
			responsewriters.WriteError(w, api.NewInternalError(err))
			return
		}
		paths, _ := doc["paths"].(map[string]any)
		defs, _ := doc["definitions"].(map[string]any)
		for _, rs := range remotes {
			rpaths, _ := rs.doc["paths"].(map[string]any)
			for p, item := range rpaths {
				for _, prefix := range rs.prefix {
					if p == prefix || strings.HasPrefix(p, prefix+"/") {
						paths[p] = item
					}
				}
			}
			rdefs, _ := rs.doc["definitions"].(map[string]any)
			for name, d := range rdefs {
				if _, clash := defs[name]; !clash {
					defs[name] = d
				}
			}
		}
		jsonBody, protoBody, err := openapi.EncodeSwagger(doc)
		if err != nil {
			responsewriters.WriteError(w, api.NewInternalError(err))
			return
		}
		cached = mergedSpec{key: key, json: jsonBody, proto: protoBody}
		a.openAPIMu.Lock()
		a.mergedV2 = cached
		a.openAPIMu.Unlock()
	}
	openapi.ServeSwagger(w, r, func(protobuf bool) ([]byte, error) {
		if protobuf {
			return cached.proto, nil
		}
		return cached.json, nil
	})
}

func decodeJSONDocument(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	// Numbers stay exact (int64 bounds, defaults).
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	for _, k := range []string{"paths", "definitions"} {
		if _, ok := doc[k].(map[string]any); !ok {
			doc[k] = map[string]any{}
		}
	}
	return doc, nil
}

// backendSpec returns the cached /openapi/v2 of s's backend, fetching it
// (with the last ETag) when it is missing, old, or dropped by a change to
// an APIService; a failed fetch keeps the last document.
func (a *Aggregator) backendSpec(ctx context.Context, s *apiregistrationv1.APIService) cachedSpec {
	key := serviceKeyOf(s)
	now := a.cfg.Clock.Now()
	a.openAPIMu.Lock()
	c := a.specCache[key]
	a.openAPIMu.Unlock()
	if !c.fetchedAt.IsZero() && now.Sub(c.fetchedAt) < discoveryRefresh {
		return c
	}
	c.fetchedAt = now
	if target, u := a.resolve(ctx, s); u == nil {
		resp, body, err := a.getBackend(ctx, s, target, "/openapi/v2", "application/json", c.etag)
		switch {
		case err != nil:
			a.cfg.Logger.Info("fetching the OpenAPI v2 of an extension API server failed", "apiservice", s.Name, "err", err)
		case resp.StatusCode == http.StatusNotModified && c.doc != nil:
		case resp.StatusCode == http.StatusOK:
			if doc, err := decodeJSONDocument(body); err == nil {
				c.doc, c.etag = doc, resp.Header.Get("Etag")
			}
		}
	}
	a.openAPIMu.Lock()
	a.specCache[key] = c
	a.openAPIMu.Unlock()
	return c
}
