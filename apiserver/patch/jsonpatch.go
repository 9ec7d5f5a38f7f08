package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kubesim/kubesim/api/unstructured"
	"net/http"
	"strconv"
	"strings"
)

// MaxJSONPatchOperations is the most operations the API server accepts in
// one JSON patch (maxJSONPatchOperations in patch.go), a guard against
// patches built to burn CPU.
const MaxJSONPatchOperations = 10000

// MaxCopyBytes bounds what the "copy" operations of one JSON patch may add
// to a document, counted as the JSON size of every copied value
// (evanphx/json-patch's AccumulatedCopySizeLimit, which kube-apiserver sets
// to its 3 MiB request limit): without it, 21 copies of a value into itself
// double the document 21 times.
const MaxCopyBytes = 3 * 1024 * 1024

// The sentinel texts evanphx/json-patch wraps its errors around; they end
// every message, after a colon, because it wraps with github.com/pkg/errors.
const (
	errMissing      = "missing value"
	errTestFailed   = "test failed"
	errInvalidIndex = "invalid index referenced"
)

// wrap mimics errors.Wrapf from github.com/pkg/errors: "message: cause".
func wrap(cause string, format string, args ...any) error {
	return errors.New(fmt.Sprintf(format, args...) + ": " + cause)
}

func wrapErr(err error, format string, args ...any) error {
	return wrap(err.Error(), format, args...)
}

// JSONPatch applies an RFC 6902 JSON patch (Content-Type
// application/json-patch+json) to a JSON document, as the API server does
// with gopkg.in/evanphx/json-patch.v4, and words failures like it:
//
//   - a patch that is not a JSON array of objects: 400, with the decoder's message;
//   - more than MaxJSONPatchOperations operations: 413;
//   - an operation that does not apply: 422, e.g.
//     `add operation does not apply: doc is missing path: "/spec/foo": missing value`.
//
// The operations are applied in order to a copy; if one fails, nothing is
// returned, so the stored object is untouched. Quirks of evanphx v4 that
// Kubernetes users see are kept: "replace" of a missing object member adds
// it, negative array indices count from the end, and the path is split on
// "/" without checking that it starts with one.
func JSONPatch(original, patch []byte) ([]byte, error) {
	ops, err := decodeJSONPatch(patch)
	if err != nil {
		return nil, badRequest("%s", err.Error())
	}
	if len(ops) > MaxJSONPatchOperations {
		return nil, &Error{Code: http.StatusRequestEntityTooLarge,
			Message: fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", MaxJSONPatchOperations, len(ops))}
	}
	if len(original) == 0 {
		return original, nil
	}
	doc, err := decodeJSON(original)
	if err != nil {
		return nil, unprocessable(err.Error())
	}
	switch doc.(type) {
	case map[string]any, []any:
	default:
		return nil, unprocessable("json: cannot unmarshal " + jsonKind(doc) + " into Go value of type jsonpatch.partialDoc")
	}
	p := &jsonPatcher{root: doc}
	for _, op := range ops {
		if err := p.apply(op); err != nil {
			return nil, unprocessable(err.Error())
		}
	}
	return json.Marshal(p.root)
}

// operation is one decoded step; a nil RawMessage pointer stands for both an
// absent member and a JSON null, as in evanphx's Operation.
type operation map[string]*json.RawMessage

func decodeJSONPatch(patch []byte) ([]operation, error) {
	var ops []operation
	if err := json.Unmarshal(patch, &ops); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			// Name the types as evanphx's DecodePatch error does.
			target := "jsonpatch.Patch"
			if typeErr.Type.Kind().String() == "map" {
				target = "jsonpatch.Operation"
			}
			return nil, fmt.Errorf("json: cannot unmarshal %s into Go value of type %s", typeErr.Value, target)
		}
		return nil, err
	}
	return ops, nil
}

func (o operation) kind() string {
	raw := o["op"]
	if raw == nil {
		return "unknown"
	}
	var s string
	if json.Unmarshal(*raw, &s) != nil {
		return "unknown"
	}
	return s
}

func (o operation) str(name, missing string) (string, error) {
	raw := o[name]
	if raw == nil {
		return "unknown", errors.New(missing + ": " + errMissing)
	}
	var s string
	if err := json.Unmarshal(*raw, &s); err != nil {
		return "unknown", err
	}
	return s, nil
}

func (o operation) path() (string, error) { return o.str("path", "operation missing path field") }
func (o operation) from() (string, error) { return o.str("from", "operation, missing from field") }

// value returns the operation's value and whether it was given as non-null.
func (o operation) value() (any, bool) {
	raw := o["value"]
	if raw == nil {
		return nil, false
	}
	v, err := decodeJSON(*raw)
	if err != nil {
		return nil, false
	}
	return v, v != nil
}

type jsonPatcher struct {
	root any
	// copied is the JSON size of everything copied so far.
	copied int
}

// container is an object or array inside the document that an operation
// reads or changes; keys are already unescaped (~1 → /, ~0 → ~).
type container interface {
	get(key string) (any, error)
	set(key string, v any) error
	add(key string, v any) error
	remove(key string) error
}

type objContainer map[string]any

func (c objContainer) get(key string) (any, error) { return c[key], nil }
func (c objContainer) set(key string, v any) error { c[key] = v; return nil }
func (c objContainer) add(key string, v any) error { c[key] = v; return nil }
func (c objContainer) remove(key string) error {
	if _, ok := c[key]; !ok {
		return wrap(errMissing, "Unable to remove nonexistent key: %s", key)
	}
	delete(c, key)
	return nil
}

// arrContainer is a list and the way to store it back where it came from,
// because adding or removing an element makes a new slice header.
type arrContainer struct {
	arr   []any
	store func([]any)
}

func invalidIndex(idx int) error {
	return wrap(errInvalidIndex, "Unable to access invalid index: %d", idx)
}

// index resolves key to a position in a list of length n, negative
// positions counting from the end.
func index(key string, n int) (int, error) {
	idx, err := strconv.Atoi(key)
	if err != nil {
		return 0, err
	}
	if idx < 0 {
		if idx < -n {
			return 0, invalidIndex(idx)
		}
		idx += n
	}
	if idx >= n {
		return 0, invalidIndex(idx)
	}
	return idx, nil
}

func (c *arrContainer) get(key string) (any, error) {
	idx, err := index(key, len(c.arr))
	if err != nil {
		return nil, err
	}
	return c.arr[idx], nil
}

func (c *arrContainer) set(key string, v any) error {
	idx, err := index(key, len(c.arr))
	if err != nil {
		return err
	}
	c.arr[idx] = v
	return nil
}

func (c *arrContainer) add(key string, v any) error {
	if key == "-" {
		c.arr = append(c.arr, v)
		c.store(c.arr)
		return nil
	}
	idx, err := strconv.Atoi(key)
	if err != nil {
		return wrapErr(err, "value was not a proper array index: '%s'", key)
	}
	size := len(c.arr) + 1
	if idx >= size || idx < -size {
		return invalidIndex(idx)
	}
	if idx < 0 {
		idx += size
	}
	out := make([]any, 0, size)
	out = append(out, c.arr[:idx]...)
	out = append(out, v)
	out = append(out, c.arr[idx:]...)
	c.arr = out
	c.store(out)
	return nil
}

func (c *arrContainer) remove(key string) error {
	idx, err := index(key, len(c.arr))
	if err != nil {
		return err
	}
	out := make([]any, 0, len(c.arr)-1)
	out = append(out, c.arr[:idx]...)
	out = append(out, c.arr[idx+1:]...)
	c.arr = out
	c.store(out)
	return nil
}

// containerFor wraps v if it is an object or a list; store puts a changed
// list back into its parent.
func containerFor(v any, store func([]any)) container {
	switch t := v.(type) {
	case map[string]any:
		return objContainer(t)
	case []any:
		return &arrContainer{arr: t, store: store}
	}
	return nil
}

var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// find walks the JSON pointer down to the container of its last token,
// returning nil when any step is missing, null or not a container.
func (p *jsonPatcher) find(path string) (container, string) {
	split := strings.Split(path, "/")
	if len(split) < 2 {
		return nil, ""
	}
	cur := containerFor(p.root, func(n []any) { p.root = n })
	for _, part := range split[1 : len(split)-1] {
		key := pointerUnescaper.Replace(part)
		next, err := cur.get(key)
		if next == nil || err != nil {
			return nil, ""
		}
		parent := cur
		cur = containerFor(next, func(n []any) { _ = parent.set(key, n) })
		if cur == nil {
			return nil, ""
		}
	}
	return cur, pointerUnescaper.Replace(split[len(split)-1])
}

func (p *jsonPatcher) apply(op operation) error {
	switch k := op.kind(); k {
	case "add":
		return p.add(op)
	case "remove":
		return p.remove(op)
	case "replace":
		return p.replace(op)
	case "move":
		return p.move(op)
	case "test":
		return p.test(op)
	case "copy":
		return p.copy(op)
	default:
		return fmt.Errorf("Unexpected kind: %s", k)
	}
}

func (p *jsonPatcher) add(op operation) error {
	path, err := op.path()
	if err != nil {
		return wrap(errMissing, "add operation failed to decode path")
	}
	con, key := p.find(path)
	if con == nil {
		return wrap(errMissing, "add operation does not apply: doc is missing path: \"%s\"", path)
	}
	v, _ := op.value()
	if err := con.add(key, v); err != nil {
		return wrapErr(err, "error in add for path: '%s'", path)
	}
	return nil
}

func (p *jsonPatcher) remove(op operation) error {
	path, err := op.path()
	if err != nil {
		return wrap(errMissing, "remove operation failed to decode path")
	}
	con, key := p.find(path)
	if con == nil {
		return wrap(errMissing, "remove operation does not apply: doc is missing path: \"%s\"", path)
	}
	if err := con.remove(key); err != nil {
		return wrapErr(err, "error in remove for path: '%s'", path)
	}
	return nil
}

func (p *jsonPatcher) replace(op operation) error {
	path, err := op.path()
	if err != nil {
		return wrapErr(err, "replace operation failed to decode path")
	}
	v, _ := op.value()
	if path == "" {
		// Replacing the whole document; evanphx silently ignores a value that
		// is neither an object nor an array.
		switch v.(type) {
		case map[string]any, []any:
			p.root = v
		}
		return nil
	}
	con, key := p.find(path)
	if con == nil {
		return wrap(errMissing, "replace operation does not apply: doc is missing path: %s", path)
	}
	if _, err := con.get(key); err != nil {
		return wrap(errMissing, "replace operation does not apply: doc is missing key: %s", path)
	}
	if err := con.set(key, v); err != nil {
		return wrapErr(err, "error in remove for path: '%s'", path)
	}
	return nil
}

func (p *jsonPatcher) move(op operation) error {
	from, err := op.from()
	if err != nil {
		return wrapErr(err, "move operation failed to decode from")
	}
	con, key := p.find(from)
	if con == nil {
		return wrap(errMissing, "move operation does not apply: doc is missing from path: %s", from)
	}
	v, err := con.get(key)
	if err != nil {
		return wrapErr(err, "error in move for path: '%s'", key)
	}
	if err := con.remove(key); err != nil {
		return wrapErr(err, "error in move for path: '%s'", key)
	}
	path, err := op.path()
	if err != nil {
		return wrapErr(err, "move operation failed to decode path")
	}
	con, key = p.find(path)
	if con == nil {
		return wrap(errMissing, "move operation does not apply: doc is missing destination path: %s", path)
	}
	if err := con.add(key, v); err != nil {
		return wrapErr(err, "error in move for path: '%s'", path)
	}
	return nil
}

func (p *jsonPatcher) test(op operation) error {
	path, err := op.path()
	if err != nil {
		return wrapErr(err, "test operation failed to decode path")
	}
	want, given := op.value()
	if path == "" {
		if unstructured.Equal(p.root, want) {
			return nil
		}
		return wrap(errTestFailed, "testing value %s failed", path)
	}
	con, key := p.find(path)
	if con == nil {
		return wrap(errMissing, "test operation does not apply: is missing path: %s", path)
	}
	got, err := con.get(key)
	if err != nil {
		return wrapErr(err, "error in test for path: '%s'", path)
	}
	switch {
	case got == nil && !given:
		return nil // null (or absent) tested against null
	case got == nil || !given:
		return wrap(errTestFailed, "testing value %s failed", path)
	case unstructured.Equal(got, want):
		return nil
	}
	return wrap(errTestFailed, "testing value %s failed", path)
}

func (p *jsonPatcher) copy(op operation) error {
	from, err := op.from()
	if err != nil {
		return wrapErr(err, "copy operation failed to decode from")
	}
	con, key := p.find(from)
	if con == nil {
		return wrap(errMissing, "copy operation does not apply: doc is missing from path: %s", from)
	}
	v, err := con.get(key)
	if err != nil {
		return wrapErr(err, "error in copy for from: '%s'", from)
	}
	path, err := op.path()
	if err != nil {
		return wrap(errMissing, "copy operation failed to decode path")
	}
	con, key = p.find(path)
	if con == nil {
		return wrap(errMissing, "copy operation does not apply: doc is missing destination path: %s", path)
	}
	size, ok := jsonSizeUpTo(v, MaxCopyBytes-p.copied)
	if !ok {
		return fmt.Errorf("Unable to complete the copy, the accumulated size increase of copy is %d, exceeding the limit %d", p.copied+size, MaxCopyBytes)
	}
	p.copied += size
	if err := con.add(key, deepCopyJSON(v)); err != nil {
		return wrapErr(err, "error while adding value during copy")
	}
	return nil
}

// jsonKind names a decoded value's JSON type as encoding/json's errors do.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	case nil:
		return "null"
	default:
		return "number"
	}
}

// jsonSizeUpTo is the length of v encoded as JSON, counted without encoding
// it and given up once past limit (ok is then false and size is at least
// limit+1): a copy of a huge value must not cost its size to refuse.
func jsonSizeUpTo(v any, limit int) (size int, ok bool) {
	var count func(v any) bool
	count = func(v any) bool {
		switch t := v.(type) {
		case map[string]any:
			size += 2 + max(len(t)-1, 0) // {} and commas
			for k, e := range t {
				size += len(k) + 3 // "k":
				if size > limit || !count(e) {
					return false
				}
			}
		case []any:
			size += 2 + max(len(t)-1, 0)
			for _, e := range t {
				if size > limit || !count(e) {
					return false
				}
			}
		default: // scalars, whose escaping encoding/json knows best
			b, _ := json.Marshal(t)
			size += len(b)
		}
		return size <= limit
	}
	ok = count(v)
	return size, ok
}
