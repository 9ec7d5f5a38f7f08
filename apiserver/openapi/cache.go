package openapi

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// The handler's documents. Building one costs far more than serving it
// (the built-in kinds' schemas carry every field's description: a few
// megabytes of JSON), so each is built once for its inputs and kept:
//
//   - a group-version's document per fingerprint of its resources (their
//     names, kinds, flags and Schema pointers), so that repeated requests
//     only hash a few strings and a CRD change rebuilds that CRD's
//     group-version alone;
//   - each form of it (v3 JSON, its part of v2 as JSON, as protobuf)
//     when first asked for, by the first request that asks: requests that
//     arrive meanwhile wait for that build instead of starting their own
//     (kubectl asks for the index, a group-version and, when it gives up
//     waiting, /openapi/v2, all at once on a busy machine);
//   - /openapi/v2 put together from the group-versions' parts, in the
//     encodings clients ask for (client-go asks for protobuf only).

// once is a value built by the first caller of get; later and concurrent
// callers get what that build gave, a failure included (the same inputs
// fail the same way).
type once[T any] struct {
	once  sync.Once
	value T
	err   error
}

func (o *once[T]) get(build func() (T, error)) (T, error) {
	o.once.Do(func() {
		// Should build panic, the callers after it get an error, not an
		// empty document.
		o.err = errBuildFailed
		o.value, o.err = build()
	})
	return o.value, o.err
}

var errBuildFailed = errors.New("building the OpenAPI document failed")

// groupVersionDoc is one group-version's document for one fingerprint of
// its resources, each form built on demand and once.
type groupVersionDoc struct {
	gv          schema.GroupVersion
	fingerprint [sha256.Size]byte
	// resources are what the fingerprint was taken of; holding them keeps
	// the schemas it names by address from being reused while cached.
	resources []*registry.Resource

	v3      once[v3Document]
	v2JSON  once[swaggerPart]
	v2Proto once[swaggerPart]
}

// v3Document is the OpenAPI v3 document of a group-version and its hash.
type v3Document struct {
	body []byte
	hash string
}

// swaggerPart is a group-version's part of /openapi/v2 in one encoding:
// its definitions and path items by name, each encoded alone, to be
// spliced into the whole document.
type swaggerPart struct {
	definitions, paths map[string][]byte
}

// document is the v3 document.
func (d *groupVersionDoc) document() (v3Document, error) {
	return d.v3.get(func() (v3Document, error) {
		body, err := document(d.gv, d.resources)
		if err != nil {
			return v3Document{}, err
		}
		return v3Document{body: body, hash: Hash(body)}, nil
	})
}

// swagger is the group-version's part of /openapi/v2 in JSON or protobuf.
func (d *groupVersionDoc) swagger(protobuf bool) (swaggerPart, error) {
	if protobuf {
		return d.v2Proto.get(func() (swaggerPart, error) {
			defs, paths, err := swaggerGroupVersion(d.gv, d.resources)
			if err != nil {
				return swaggerPart{}, err
			}
			var part swaggerPart
			if part.definitions, err = encodeProtoDefinitions(defs); err != nil {
				return swaggerPart{}, err
			}
			if part.paths, err = encodeProtoPaths(paths); err != nil {
				return swaggerPart{}, err
			}
			return part, nil
		})
	}
	return d.v2JSON.get(func() (swaggerPart, error) {
		defs, paths, err := swaggerGroupVersion(d.gv, d.resources)
		if err != nil {
			return swaggerPart{}, err
		}
		var part swaggerPart
		if part.definitions, err = encodeJSONEach(defs); err != nil {
			return swaggerPart{}, err
		}
		if part.paths, err = encodeJSONEach(paths); err != nil {
			return swaggerPart{}, err
		}
		return part, nil
	})
}

// groupVersion returns gv's cached document when its inputs have not
// changed, and a new one to build otherwise; nil when nothing is served
// at gv.
func (h *Handler) groupVersion(gv schema.GroupVersion, resources []*registry.Resource) *groupVersionDoc {
	rs := resourcesAt(gv, resources)
	if len(rs) == 0 {
		return nil
	}
	fp := fingerprint(rs)
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.groupVersions[gv]
	if d == nil || d.fingerprint != fp {
		d = &groupVersionDoc{gv: gv, fingerprint: fp, resources: rs}
		h.groupVersions[gv] = d
	}
	return d
}

// forgetOthers drops the group-versions not in present (a deleted CRD's).
func (h *Handler) forgetOthers(present map[schema.GroupVersion]bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for gv := range h.groupVersions {
		if !present[gv] {
			delete(h.groupVersions, gv)
		}
	}
}

// fingerprint hashes everything the documents read from rs; schemas count
// by address.
func fingerprint(rs []*registry.Resource) [sha256.Size]byte {
	hasher := sha256.New()
	field := func(s string) {
		// Length-prefixed, so that no two inputs write the same bytes.
		_, _ = io.WriteString(hasher, strconv.Itoa(len(s))+":"+s)
	}
	for _, r := range rs {
		field(r.Group)
		field(r.Version)
		field(r.Name)
		field(r.Kind)
		field(r.ListKind)
		field(fmt.Sprint(r.Namespaced, r.StatusSubresource, r.Scale != nil, r.StrategicMergePatch))
		field(fmt.Sprintf("%p", r.Schema))
		for _, sub := range sortedKeys(r.UpdateSubresources) {
			field(sub)
			field(strconv.FormatBool(r.UpdateSubresources[sub].UpdateOnly))
		}
		field("|")
		for _, sub := range sortedKeys(r.CreateSubresources) {
			field(sub)
			if p := r.CreateSubresources[sub].Resource; p != nil {
				field(p.Group)
				field(p.Version)
				field(p.Kind)
				field(fmt.Sprintf("%p", p.Schema))
			} else {
				field("-")
			}
		}
		field(";")
	}
	var out [sha256.Size]byte
	copy(out[:], hasher.Sum(nil))
	return out
}

// swaggerDoc is /openapi/v2 for one set of group-version documents, each
// encoding built on demand and once.
type swaggerDoc struct {
	fingerprint [sha256.Size]byte
	parts       []*groupVersionDoc
	json, proto once[[]byte]
}

// swagger returns the v2 document of the resources served now.
func (h *Handler) swagger() *swaggerDoc {
	resources := h.source()
	hasher := sha256.New()
	var parts []*groupVersionDoc
	for _, gv := range GroupVersions(resources) {
		d := h.groupVersion(gv, resources)
		parts = append(parts, d)
		_, _ = io.WriteString(hasher, IndexKey(gv)+";")
		_, _ = hasher.Write(d.fingerprint[:])
	}
	var fp [sha256.Size]byte
	copy(fp[:], hasher.Sum(nil))
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.v2 == nil || h.v2.fingerprint != fp {
		h.v2 = &swaggerDoc{fingerprint: fp, parts: parts}
	}
	return h.v2
}

// encoded is the document in protobuf or JSON, spliced together from the
// group-versions' parts.
func (s *swaggerDoc) encoded(protobuf bool) ([]byte, error) {
	build := func() ([]byte, error) {
		definitions, paths := map[string][]byte{}, map[string][]byte{}
		for _, d := range s.parts {
			part, err := d.swagger(protobuf)
			if err != nil {
				return nil, err
			}
			// A later group-version's wins a name they share: the shared
			// definitions (Status, DeleteOptions), alike in all.
			maps.Copy(definitions, part.definitions)
			maps.Copy(paths, part.paths)
		}
		if protobuf {
			return swaggerProto(swaggerVersion, swaggerInfo(), paths, definitions)
		}
		return swaggerJSON(paths, definitions)
	}
	if protobuf {
		return s.proto.get(build)
	}
	return s.json.get(build)
}
