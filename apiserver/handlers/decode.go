package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// DefaultMaxBodyBytes is the largest request body accepted (3 MiB, as
// kube-apiserver's default).
const DefaultMaxBodyBytes = 3 * 1024 * 1024

// readBody reads the request body up to limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	data, err := readAll(http.MaxBytesReader(w, r.Body, limit), r.ContentLength, limit)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, api.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit))
	}
	if err != nil {
		return nil, api.NewBadRequest("unable to read the request body: " + err.Error())
	}
	return data, nil
}

// readAll is io.ReadAll into a buffer of the size the request announced
// (Content-Length, when it is within limit): io.ReadAll starts at 512
// bytes and grows, copying a pod's body four times. One byte more is
// asked for to see the end; a body longer than announced is read on as
// io.ReadAll would, a shorter one is what it holds.
func readAll(r io.Reader, size, limit int64) ([]byte, error) {
	if size <= 0 || size > limit {
		return io.ReadAll(r)
	}
	data := make([]byte, size+1)
	n, err := io.ReadFull(r, data)
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return data[:n], nil
	case err != nil:
		return nil, err
	}
	rest, err := io.ReadAll(r)
	return append(data, rest...), err
}

// fieldValidation is the query parameter that says what to do with fields
// the schema does not know.
func fieldValidation(r *http.Request) (string, error) {
	v := r.URL.Query().Get("fieldValidation")
	switch strings.ToLower(v) {
	case "":
		return "Warn", nil
	case "strict":
		return "Strict", nil
	case "warn":
		return "Warn", nil
	case "ignore":
		return "Ignore", nil
	}
	return "", api.NewBadRequest(fmt.Sprintf("fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\", got %q", v))
}

// decoder turns a request body into an object of one resource, checking
// its kind and apiVersion and handling unknown and duplicate fields as
// fieldValidation says. Every body (create, update, and the bodies of
// subresources) goes through it, whatever its media type.
//
// Field names match case-sensitively, as in Kubernetes (sigs.k8s.io/json):
// {"spec":{"Replicas":3}} has an unknown field "spec.Replicas" and sets
// nothing.
type decoder struct {
	res        *registry.Resource
	validation string
	// fast remembers which Go types the fast path can decode (nil: ask
	// every time).
	fast *decodeCache
	// warnings collects what Warn reports, one Warning header each.
	warnings []string
}

// decode decodes a JSON body into a new object.
func (d *decoder) decode(data []byte) (api.Object, error) {
	return d.decodeJSON(data, nil)
}

// decodeYAML decodes a YAML body: YAML's duplicate keys are reported
// with their lines, as sigs.k8s.io/yaml's strict conversion does, and
// the last one wins.
func (d *decoder) decodeYAML(data []byte) (api.Object, error) {
	j, dups, err := yamlToJSON(data)
	if err != nil {
		return nil, err
	}
	return d.decodeJSON(j, dups)
}

func (d *decoder) decodeJSON(data []byte, yamlDups []string) (api.Object, error) {
	if len(yamlDups) == 0 {
		if obj, ok := d.fastDecode(data); ok {
			return obj, nil
		}
	}
	m, exact, err := unstructured.DecodeMapExact(data)
	if err != nil {
		return nil, api.NewBadRequest(fmt.Sprintf("couldn't get version/kind; json parse error: %v", err))
	}
	var scan *fieldScan
	if d.validation != "Ignore" {
		// A custom resource's problems are its unknown fields and its
		// duplicate names (fieldProblems); a body the strict tokenizer
		// read has no duplicate name, so it needs no scan.
		if _, custom := d.res.New().(*unstructured.Unstructured); !custom || !exact {
			scan = scanFields(data, custom)
		}
	}
	return d.decodeChecked(m, scan, yamlDups)
}

// fastDecode decodes a body straight into the kind's Go type when it can
// prove that the careful path would give the same object: a typed kind, a
// body with no unknown or duplicate field (names matched case-sensitively
// by github.com/go-json-experiment/json), and the right apiVersion and
// kind. Anything else (an error of any sort, custom resources) takes the
// careful path through a map, which also words the errors. One JSON pass
// instead of three is most of the cost of a write.
func (d *decoder) fastDecode(data []byte) (api.Object, bool) {
	obj := d.res.New()
	if _, unstructured := obj.(*unstructured.Unstructured); unstructured {
		return nil, false
	}
	if !d.fast.ok(reflect.TypeOf(obj)) {
		return nil, false
	}
	if err := jsonv2.Unmarshal(data, obj, jsonv2.RejectUnknownMembers(true), jsoncodec.TimeUnmarshalers()); err != nil {
		return nil, false
	}
	tm := api.TypeMetaOf(obj)
	gvk := d.res.GroupVersionKind()
	if (tm.APIVersion != "" && tm.APIVersion != gvk.GroupVersion().String()) || (tm.Kind != "" && tm.Kind != gvk.Kind) {
		return nil, false
	}
	tm.SetGroupVersionKind(gvk)
	return obj, true
}

// decodeCache holds what decoding computes once: ObjectMeta's schema, and
// per Go type whether the fast path may decode it: a
// type is refused when some part of it decodes a JSON object through its
// own UnmarshalJSON (the schema unions of a CRD), because encoding/json
// inside such a method matches names case-insensitively and the fast path
// could not see an unknown field there. The zero value is ready to use.
type decodeCache struct {
	// fast maps reflect.Type to bool; read on every write request, so a
	// sync.Map rather than a mutex.
	fast sync.Map
	// meta is ObjectMeta's schema, built and compiled once.
	metaOnce sync.Once
	meta     *schema.Compiled
}

// objectMetaSchema is the schema metadata is pruned by, for built-in
// kinds and custom resources alike.
func (f *decodeCache) objectMetaSchema() *schema.Compiled {
	if f == nil {
		return schema.Compile(schema.FromGoType(reflect.TypeFor[metav1.ObjectMeta]()))
	}
	f.metaOnce.Do(func() { f.meta = schema.Compile(schema.FromGoType(reflect.TypeFor[metav1.ObjectMeta]())) })
	return f.meta
}

func (f *decodeCache) ok(t reflect.Type) bool {
	if f == nil {
		return fastDecodable(t, map[reflect.Type]bool{})
	}
	if v, ok := f.fast.Load(t); ok {
		return v.(bool)
	}
	v := fastDecodable(t, map[reflect.Type]bool{})
	f.fast.Store(t, v)
	return v
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// scalarUnmarshalers decode JSON scalars (or keep raw JSON) and are safe
// for the fast path.
func scalarUnmarshaler(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[resource.Quantity](), reflect.TypeFor[intstr.IntOrString](),
		reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime](), reflect.TypeFor[metav1.Duration](),
		reflect.TypeFor[api.JSON](), reflect.TypeFor[json.RawMessage](),
		reflect.TypeFor[metav1.FieldsV1](), reflect.TypeFor[runtime.RawExtension](), reflect.TypeFor[apiextensionsv1.JSON]():
		return true
	}
	return false
}

func fastDecodable(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if seen[t] {
		return true
	}
	seen[t] = true
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return scalarUnmarshaler(t)
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && !fastDecodable(f.Type, seen) {
				return false
			}
		}
	case reflect.Slice, reflect.Array, reflect.Map:
		return fastDecodable(t.Elem(), seen)
	case reflect.Interface:
		return false
	}
	return true
}

func (d *decoder) cannotHandle(err error) error {
	return api.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
		d.res.Kind, d.res.Version, d.res.Kind, err))
}

// decodeMap decodes an object already in map form (a patch's result).
func (d *decoder) decodeMap(m map[string]any) (api.Object, error) {
	return d.decodeChecked(m, nil, nil)
}

// decodeChecked checks the type meta of m, prunes the fields the schema
// does not know and turns what was pruned or duplicated (scan, yamlDups)
// into an error (Strict) or warnings (Warn).
func (d *decoder) decodeChecked(m map[string]any, scan *fieldScan, yamlDups []string) (api.Object, error) {
	res := d.res
	gv := res.GroupVersion().String()
	av, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if _, ok := m["apiVersion"]; ok && !isString(m["apiVersion"]) {
		return nil, d.cannotHandle(errors.New("apiVersion must be a string"))
	}
	if _, ok := m["kind"]; ok && !isString(m["kind"]) {
		return nil, d.cannotHandle(errors.New("kind must be a string"))
	}
	if av != "" && av != gv {
		return nil, api.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", av, gv))
	}
	if kind != "" && kind != res.Kind && !res.ValidatesTypeMeta {
		return nil, api.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): kind %q does not match", res.Kind, kind))
	}
	if md, ok := m["metadata"]; ok && md != nil {
		if _, ok := md.(map[string]any); !ok {
			return nil, d.cannotHandle(fmt.Errorf("json: cannot unmarshal %s into Go struct field %s.metadata of type v1.ObjectMeta", unstructured.TypeName(md), res.Kind))
		}
	}
	m["apiVersion"] = gv
	// A custom resource keeps the body's kind: its strategy words a
	// wrong one as a field error.
	keepKind := res.ValidatesTypeMeta && kind != ""
	if !keepKind {
		m["kind"] = res.Kind
	}
	var unknown []string
	switch opts := (schema.PruneOptions{IsResourceRoot: true, KeepNulls: true}); {
	case res.Schema == nil:
		// No schema (a CRD without one): nothing is unknown.
	case res.CompiledSchema != nil && res.CompiledSchema.Schema() == res.Schema:
		unknown = res.CompiledSchema.Prune(m, opts)
	default:
		unknown = schema.Prune(res.Schema, m, opts)
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		// Pruning leaves metadata to ObjectMeta's own rules, which drop
		// (and report) the fields ObjectMeta does not have.
		for _, u := range d.fast.objectMetaSchema().Prune(md, schema.PruneOptions{KeepNulls: true}) {
			unknown = append(unknown, "metadata."+u)
		}
	}
	obj := res.New()
	_, custom := obj.(*unstructured.Unstructured)
	if d.validation != "Ignore" {
		if err := d.report(fieldProblems(unknown, scan, custom), yamlDups); err != nil {
			return nil, err
		}
	}
	if custom {
		// The object the round trip below would make, made from the map
		// itself (a tenth of a custom resource create's CPU was this
		// encode and decode); where FromDecoded cannot promise that, the
		// round trip runs and words any error.
		if u, ok := unstructured.FromDecoded(m); ok {
			if !keepKind {
				u.SetGroupVersionKind(res.GroupVersionKind())
			}
			return u, nil
		}
	}
	raw, err := jsoncodec.Marshal(m)
	if err != nil {
		return nil, d.cannotHandle(err)
	}
	// The map holds only the names the schema knows, spelled as it spells
	// them, so case-sensitive matching (jsoncodec) and encoding/json's
	// case-insensitive one read it alike. Where jsoncodec refuses it,
	// encoding/json decodes a fresh object and words the error, as before.
	if err := jsoncodec.Unmarshal(raw, obj); err != nil {
		obj = res.New()
		if err := json.Unmarshal(raw, obj); err != nil {
			return nil, d.cannotHandle(err)
		}
	}
	if !keepKind {
		obj.GetObjectKind().SetGroupVersionKind(res.GroupVersionKind())
	}
	return obj, nil
}

// report refuses the body (Strict) or records warnings (Warn) for the
// problems found. YAML's duplicate keys come first, as one error in the
// wording of sigs.k8s.io/yaml but one warning per key.
func (d *decoder) report(problems, yamlDups []string) error {
	if len(problems) == 0 && len(yamlDups) == 0 {
		return nil
	}
	if d.validation == "Warn" {
		d.warnings = append(d.warnings, yamlDups...)
		d.warnings = append(d.warnings, problems...)
		return nil
	}
	var all []string
	if len(yamlDups) > 0 {
		all = append(all, "yaml: unmarshal errors:\n  "+strings.Join(yamlDups, "\n  "))
	}
	all = append(all, problems...)
	return d.cannotHandle(errors.New("strict decoding error: " + strings.Join(all, ", ")))
}

// fieldProblems words the unknown fields (pruned) and the duplicate fields
// (scan) as Kubernetes does. For a built-in kind sigs.k8s.io/json reports
// both in document order, and a field both unknown and duplicated only as
// unknown; for a custom resource the strict map decode reports every
// duplicate first and pruning then reports the unknown fields.
func fieldProblems(unknown []string, scan *fieldScan, custom bool) []string {
	var out []string
	seen := map[string]bool{}
	add := func(msg string) {
		if !seen[msg] {
			seen[msg] = true
			out = append(out, msg)
		}
	}
	if custom || scan == nil {
		if scan != nil {
			for _, dup := range scan.dups {
				add(fmt.Sprintf("duplicate field %q", dup.path))
			}
		}
		for _, u := range unknown {
			add(fmt.Sprintf("unknown field %q", u))
		}
		return out
	}
	type problem struct {
		pos int
		msg string
	}
	var ps []problem
	isUnknown := make(map[string]bool, len(unknown))
	for _, u := range unknown {
		isUnknown[u] = true
		ps = append(ps, problem{scan.order[u], fmt.Sprintf("unknown field %q", u)})
	}
	for _, dup := range scan.dups {
		if !underUnknown(dup.path, isUnknown) {
			ps = append(ps, problem{dup.pos, fmt.Sprintf("duplicate field %q", dup.path)})
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].pos < ps[j].pos })
	for _, p := range ps {
		add(p.msg)
	}
	return out
}

// underUnknown reports whether path or one of its parents is unknown: the
// typed decoder skips an unknown field's value without looking inside.
func underUnknown(path string, unknown map[string]bool) bool {
	if len(unknown) == 0 {
		return false
	}
	for {
		if unknown[path] {
			return true
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			return false
		}
		path = path[:i]
	}
}

// fieldScan is the document order of a JSON body's object members and
// the names repeated within one object, with paths in Kubernetes' form
// ("spec.template.spec.containers[0].image"). A custom resource's
// problems are worded without the order (fieldProblems), so its scan
// keeps none (order is nil).
type fieldScan struct {
	n     int
	order map[string]int
	dups  []fieldAt
}

type fieldAt struct {
	pos  int
	path string
}

// scanFields walks data (already known to be valid JSON) once; dupsOnly
// leaves the order out.
func scanFields(data []byte, dupsOnly bool) *fieldScan {
	s := &fieldScan{}
	if !dupsOnly {
		s.order = map[string]int{}
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	_ = s.value(dec, "")
	return s
}

func (s *fieldScan) value(dec *jsontext.Decoder, path string) error {
	switch dec.PeekKind() {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		seen := map[string]bool{}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			name := tok.String()
			p := joinPath(path, name)
			if seen[name] {
				s.dups = append(s.dups, fieldAt{s.n, p})
			} else if _, ok := s.order[p]; !ok && s.order != nil {
				s.order[p] = s.n
			}
			seen[name] = true
			s.n++
			if err := s.value(dec, p); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for i := 0; dec.PeekKind() != ']'; i++ {
			if err := s.value(dec, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	}
	return dec.SkipValue()
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func isString(v any) bool { _, ok := v.(string); return ok }

// Kubernetes bounds the warnings of one response
// (k8s.io/apiserver/pkg/endpoints/filters/warning.go): 4 Ki runes of
// warning text in all; past that, each warning is cut to 256 runes, and
// once those fill the rest none is added. A header has no room for more,
// and a warning can quote what a client or a damaged file made long.
const (
	maxWarningRunes     = 4 * 1024
	maxWarningItemRunes = 256
)

// addWarnings sets Warning headers as Kubernetes does (code 299), which
// kubectl prints as "Warning: ...": each once, within Kubernetes' bounds
// for the whole response (counting the warnings already set).
func addWarnings(w http.ResponseWriter, warnings []string) {
	h := w.Header()
	for _, msg := range warnings {
		total := 0
		for _, v := range h.Values("Warning") {
			total += utf8.RuneCountInString(v)
		}
		v := fmt.Sprintf("299 - %q", msg)
		if slices.Contains(h.Values("Warning"), v) {
			continue
		}
		if total+utf8.RuneCountInString(v) > maxWarningRunes {
			if r := []rune(msg); len(r) > maxWarningItemRunes {
				msg = string(r[:maxWarningItemRunes]) + "…"
			}
			if v = fmt.Sprintf("299 - %q", msg); total+utf8.RuneCountInString(v) > maxWarningRunes {
				continue
			}
		}
		h.Add("Warning", v)
	}
}

// strictUnmarshal decodes JSON into v (DeleteOptions), refusing unknown
// and duplicate fields, names matched case-sensitively. Most errors are
// worded by encoding/json, as Kubernetes' decoder words them; a case
// variant or a duplicate, which encoding/json would accept, by the
// case-sensitive decoder.
func strictUnmarshal(data []byte, v any) error {
	err := jsonv2.Unmarshal(data, v, jsonv2.RejectUnknownMembers(true))
	if err == nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if v1err := d.Decode(reflect.New(reflect.TypeOf(v).Elem()).Interface()); v1err != nil {
		return v1err
	}
	return err
}
