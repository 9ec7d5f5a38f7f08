package openapi

import (
	"context"
	"crypto/sha512"
	"fmt"
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
// Documents are built when first asked for and cached (cache.go): a
// Schema must therefore never be changed in place once published.
func NewHandler(source func() []*registry.Resource) *Handler {
	return &Handler{source: source, groupVersions: map[schema.GroupVersion]*groupVersionDoc{}}
}

// Handler is the OpenAPI handler of an API server.
type Handler struct {
	source func() []*registry.Resource

	mu            sync.Mutex
	groupVersions map[schema.GroupVersion]*groupVersionDoc
	// v2 is the latest /openapi/v2 document.
	v2 *swaggerDoc
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	entry := h.groupVersion(gv, h.source())
	if entry == nil {
		responsewriters.WriteError(w, api.NewPathNotFound())
		return
	}
	doc, err := entry.document()
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

func (h *Handler) serveIndex(w http.ResponseWriter) {
	idx, err := h.index()
	if err != nil {
		responsewriters.WriteError(w, api.NewInternalError(err))
		return
	}
	w.Header().Set("Cache-Control", "no-cache, private")
	responsewriters.WriteJSON(w, http.StatusOK, idx)
}

// Build builds the v3 document of every group-version served now, as the
// first /openapi/v3 would (kubectl's first request before apply, create
// or explain), so that that request finds them built, or waits for the
// build under way instead of starting its own. kube-apiserver likewise
// builds its documents at start, not on a client's first request. ctx
// stops it between group-versions.
func (h *Handler) Build(ctx context.Context) error {
	resources := h.source()
	for _, gv := range GroupVersions(resources) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := h.groupVersion(gv, resources).document(); err != nil {
			return err
		}
	}
	return nil
}

// index builds every group-version's document to hash it, and forgets
// the group-versions no longer served.
func (h *Handler) index() (*IndexDocument, error) {
	resources := h.source()
	idx := &IndexDocument{Paths: map[string]IndexEntry{}}
	present := map[schema.GroupVersion]bool{}
	for _, gv := range GroupVersions(resources) {
		present[gv] = true
		doc, err := h.groupVersion(gv, resources).document()
		if err != nil {
			return nil, err
		}
		idx.Paths[IndexKey(gv)] = indexEntry(gv, doc.hash)
	}
	h.forgetOthers(present)
	return idx, nil
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
func (h *Handler) serveV2(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		responsewriters.WriteError(w, api.NewMethodNotAllowed())
		return
	}
	ServeSwagger(w, r, h.swagger().encoded)
}

// ServeSwagger writes a v2 document in the encoding the request asks for,
// with its ETag; encoded gives the document in protobuf or JSON, asked
// only for the one sent. The aggregator serves its merged document with
// it too.
func ServeSwagger(w http.ResponseWriter, r *http.Request, encoded func(protobuf bool) ([]byte, error)) {
	protobuf, ok := NegotiateV2(r.Header.Get("Accept"))
	if !ok {
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	body, err := encoded(protobuf)
	if err != nil {
		responsewriters.WriteError(w, api.NewInternalError(err))
		return
	}
	contentType := "application/json"
	if protobuf {
		contentType = SwaggerProtoContentType
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
