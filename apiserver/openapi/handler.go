package openapi

import (
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
)

// IndexDocument is the reply of /openapi/v3: where each group-version's
// document lives.
type IndexDocument struct {
	// Paths maps "api/v1" or "apis/<group>/<version>" to its document.
	Paths map[string]IndexEntry `json:"paths"`
}

// IndexEntry points at one group-version document.
type IndexEntry struct {
	// ServerRelativeURL is /openapi/v3/<key>?hash=<hash>; the hash changes
	// whenever the document does, so clients may cache by URL forever.
	ServerRelativeURL string `json:"serverRelativeURL"`
}

// Hash is the content hash of a document as kube-openapi computes it: the
// SHA-512 of the bytes in upper-case hex.
func Hash(doc []byte) string {
	return fmt.Sprintf("%X", sha512.Sum512(doc))
}

// Index builds the /openapi/v3 index, building every document to hash it.
func Index(resources []*registry.Resource) (*IndexDocument, error) {
	idx := &IndexDocument{Paths: map[string]IndexEntry{}}
	for _, gv := range GroupVersions(resources) {
		doc, err := document(gv, resourcesAt(gv, resources))
		if err != nil {
			return nil, err
		}
		idx.Paths[IndexKey(gv)] = indexEntry(gv, Hash(doc))
	}
	return idx, nil
}

func indexEntry(gv schema.GroupVersion, hash string) IndexEntry {
	return IndexEntry{ServerRelativeURL: "/openapi/v3/" + IndexKey(gv) + "?hash=" + hash}
}

// NewHandler serves /openapi/v2, /openapi/v3 and /openapi/v3/<key> from
// the resources source returns, called on every request because custom
// resources come and go. Mount it at /openapi/; every other path gets a
// 404 Status.
//
// Documents are cached by a fingerprint of their inputs (the resources'
// names, kinds, flags and Schema pointers), so repeated kubectl calls only
// hash a few strings; a Schema must therefore never be changed in place
// once published.
func NewHandler(source func() []*registry.Resource) http.Handler {
	return &handler{source: source, cache: map[schema.GroupVersion]cachedDocument{}}
}

type handler struct {
	source func() []*registry.Resource

	mu    sync.Mutex
	cache map[schema.GroupVersion]cachedDocument
	// v2 is the latest /openapi/v2 document.
	v2 cachedV2
}

// cachedDocument is the latest document of one group-version.
type cachedDocument struct {
	fingerprint [sha256.Size]byte
	body        []byte
	hash        string
	// keep holds the schemas the fingerprint names by address, so that
	// their memory cannot be reused by other schemas while cached.
	keep []*api.JSONSchemaProps
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.TrimSuffix(r.URL.Path, "/") == "/openapi/v2" {
		h.serveV2(w, r)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/openapi/v3")
	if !ok || (rest != "" && !strings.HasPrefix(rest, "/")) {
		responsewriters.WriteError(w, api.NewPathNotFound())
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		responsewriters.WriteError(w, api.NewMethodNotAllowed())
		return
	}
	key := strings.Trim(rest, "/")
	if key == "" {
		h.serveIndex(w)
		return
	}
	gv, ok := parseIndexKey(key)
	if !ok {
		responsewriters.WriteError(w, api.NewPathNotFound())
		return
	}
	doc, err := h.document(gv, h.source())
	if errors.Is(err, ErrGroupVersionNotFound) {
		responsewriters.WriteError(w, api.NewPathNotFound())
		return
	}
	if err != nil {
		responsewriters.WriteError(w, api.NewInternalError(err))
		return
	}
	// As kube-openapi's handler3: a URL with the current hash is immutable,
	// an old hash is redirected to the current one, no hash is not cached.
	if want := r.URL.Query().Get("hash"); want != "" {
		if want != doc.hash {
			http.Redirect(w, r, indexEntry(gv, doc.hash).ServerRelativeURL, http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Cache-Control", "public, immutable, max-age=31536000")
	} else {
		w.Header().Set("Cache-Control", "no-cache, private")
	}
	etag := strconv.Quote(doc.hash)
	w.Header().Set("Etag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(doc.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(doc.body)
	}
}

func (h *handler) serveIndex(w http.ResponseWriter) {
	resources := h.source()
	gvs := GroupVersions(resources)
	idx := &IndexDocument{Paths: map[string]IndexEntry{}}
	present := map[schema.GroupVersion]bool{}
	for _, gv := range gvs {
		present[gv] = true
		doc, err := h.document(gv, resources)
		if err != nil {
			responsewriters.WriteError(w, api.NewInternalError(err))
			return
		}
		idx.Paths[IndexKey(gv)] = indexEntry(gv, doc.hash)
	}
	// Forget group-versions that are no longer served (a deleted CRD).
	h.mu.Lock()
	for gv := range h.cache {
		if !present[gv] {
			delete(h.cache, gv)
		}
	}
	h.mu.Unlock()
	w.Header().Set("Cache-Control", "no-cache, private")
	responsewriters.WriteJSON(w, http.StatusOK, idx)
}

// document returns gv's document from the cache when its inputs have not
// changed, building and caching it otherwise.
func (h *handler) document(gv schema.GroupVersion, resources []*registry.Resource) (cachedDocument, error) {
	rs := resourcesAt(gv, resources)
	if len(rs) == 0 {
		return cachedDocument{}, ErrGroupVersionNotFound
	}
	fp, keep := fingerprint(rs)
	h.mu.Lock()
	c, ok := h.cache[gv]
	h.mu.Unlock()
	if ok && c.fingerprint == fp {
		return c, nil
	}
	body, err := document(gv, rs)
	if err != nil {
		return cachedDocument{}, err
	}
	c = cachedDocument{fingerprint: fp, body: body, hash: Hash(body), keep: keep}
	h.mu.Lock()
	h.cache[gv] = c
	h.mu.Unlock()
	return c, nil
}

// fingerprint hashes everything document reads from rs; schemas count by
// address, which is why they are returned to be kept alive.
func fingerprint(rs []*registry.Resource) ([sha256.Size]byte, []*api.JSONSchemaProps) {
	hasher := sha256.New()
	var keep []*api.JSONSchemaProps
	field := func(s string) {
		// Length-prefixed, so that no two inputs write the same bytes.
		_, _ = io.WriteString(hasher, strconv.Itoa(len(s))+":"+s)
	}
	schema := func(s *api.JSONSchemaProps) {
		field(fmt.Sprintf("%p", s))
		if s != nil {
			keep = append(keep, s)
		}
	}
	for _, r := range rs {
		field(r.Group)
		field(r.Version)
		field(r.Name)
		field(r.Kind)
		field(r.ListKind)
		field(fmt.Sprint(r.Namespaced, r.StatusSubresource, r.Scale != nil, r.StrategicMergePatch))
		schema(r.Schema)
		for _, sub := range sortedKeys(r.CreateSubresources) {
			field(sub)
			if p := r.CreateSubresources[sub].Resource; p != nil {
				field(p.Group)
				field(p.Version)
				field(p.Kind)
				schema(p.Schema)
			} else {
				field("-")
			}
		}
		field(";")
	}
	var out [sha256.Size]byte
	copy(out[:], hasher.Sum(nil))
	return out, keep
}

// notFound is the Status a Kubernetes API server answers for a path it
// does not serve.

// cachedV2 is the /openapi/v2 document in both encodings, with the
// fingerprint of the resources it was built from.
type cachedV2 struct {
	fingerprint [sha256.Size]byte
	json, proto []byte
	keep        []*api.JSONSchemaProps
}

// NegotiateV2 picks the encoding of /openapi/v2 in the client's order, as
// kube-openapi's handler: protobuf for client-go (kubectl, helm), which
// asks for nothing else, JSON for "application/json" and wildcards; ok is
// false when the client accepts neither (406).
func NegotiateV2(accept string) (protobuf, ok bool) {
	if strings.TrimSpace(accept) == "" {
		return false, true
	}
	for _, clause := range strings.Split(accept, ",") {
		mediaType, _, _ := strings.Cut(clause, ";")
		switch strings.TrimSpace(mediaType) {
		case SwaggerProtoContentType, SwaggerProtoContentTypeDeprecated:
			return true, true
		case "application/json", "*/*", "application/*":
			return false, true
		}
	}
	return false, false
}

// serveV2 answers /openapi/v2 with an ETag (the SHA-512 of the bytes
// sent) and 304 for a matching If-None-Match, as kube-openapi's handler.
func (h *handler) serveV2(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		responsewriters.WriteError(w, api.NewMethodNotAllowed())
		return
	}
	doc, err := h.documentV2(h.source())
	if err != nil {
		responsewriters.WriteError(w, api.NewInternalError(err))
		return
	}
	ServeSwagger(w, r, doc.json, doc.proto)
}

// ServeSwagger writes a v2 document, given in both encodings, in the one
// the request asks for, with its ETag; the aggregator serves its merged
// document with it too.
func ServeSwagger(w http.ResponseWriter, r *http.Request, jsonBody, protoBody []byte) {
	protobuf, ok := NegotiateV2(r.Header.Get("Accept"))
	if !ok {
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	body, contentType := jsonBody, "application/json"
	if protobuf {
		body, contentType = protoBody, SwaggerProtoContentType
	}
	etag := strconv.Quote(Hash(body))
	w.Header().Set("Etag", etag)
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Cache-Control", "no-cache, private")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// documentV2 returns the cached v2 document, or builds it when the
// resources changed.
func (h *handler) documentV2(resources []*registry.Resource) (cachedV2, error) {
	var all []*registry.Resource
	for _, gv := range GroupVersions(resources) {
		all = append(all, resourcesAt(gv, resources)...)
	}
	fp, keep := fingerprint(all)
	h.mu.Lock()
	c := h.v2
	h.mu.Unlock()
	if c.json != nil && c.fingerprint == fp {
		return c, nil
	}
	doc, err := SwaggerDocument(resources)
	if err != nil {
		return cachedV2{}, err
	}
	c = cachedV2{fingerprint: fp, keep: keep}
	if c.json, c.proto, err = EncodeSwagger(doc); err != nil {
		return cachedV2{}, err
	}
	h.mu.Lock()
	h.v2 = c
	h.mu.Unlock()
	return c, nil
}

// EncodeSwagger encodes a v2 document as JSON and as protobuf.
func EncodeSwagger(doc map[string]any) (jsonBody, protoBody []byte, err error) {
	if jsonBody, err = encodeJSON(doc); err != nil {
		return nil, nil, err
	}
	if protoBody, err = EncodeSwaggerProto(doc); err != nil {
		return nil, nil, err
	}
	return jsonBody, protoBody, nil
}
