package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/kubesim/kubesim/api/unstructured"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// Validate checks obj (an unstructured value: map[string]any, []any,
// string, int64, float64, bool or nil) against s and returns every problem,
// worded as kube-openapi words them and converted to field errors as the
// apiextensions-apiserver converts them.
//
// Other Go numbers (int, json.Number, ...) are accepted and rewritten in
// place to int64/float64. fldPath prefixes the field of every error; the "... in body" messages name
// the path relative to obj, as in Kubernetes. Pass nil for a whole object.
//
// Like kube-openapi, a node whose value has the wrong type still gets the
// keyword checks that apply to the value's actual type, a string reports at
// most one of maxLength/minLength/pattern, and min/maxProperties failures
// hide the other checks of that object.
func Validate(s *api.JSONSchemaProps, obj any, fldPath *field.Path) field.ErrorList {
	return validate(nil, s, obj, fldPath)
}

func validate(c *Compiled, s *api.JSONSchemaProps, obj any, fldPath *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	v := &validator{c: c, root: fldPath, regexps: map[string]*regexp.Regexp{}, regexpErrs: map[string]error{}}
	v.node(s, normalize(obj), "", fldPath)
	return v.errs
}

// validator accumulates errors for one Validate call; regexps are compiled
// once per call rather than per value.
type validator struct {
	c          *Compiled
	root       *field.Path
	errs       field.ErrorList
	regexps    map[string]*regexp.Regexp
	regexpErrs map[string]error
}

// errPath turns a kube-openapi name ("spec.groups[0]", ".key") into the
// field path of the error, as kubeOpenAPIResultToFieldErrors does.
func (v *validator) errPath(name string) *field.Path {
	if name == "" || name == "." {
		return v.root
	}
	return v.root.Child(strings.TrimPrefix(name, "."))
}

func (v *validator) add(e *field.Error) { v.errs = append(v.errs, e) }

// node validates data against one schema node. name is the kube-openapi
// path, real is the field path used for embedded-resource checks.
func (v *validator) node(s *api.JSONSchemaProps, data any, name string, real *field.Path) {
	if s == nil {
		return
	}
	if data == nil {
		v.typeCheck(s, nil, name)
		v.enum(s, nil, name)
		return
	}
	v.typeCheck(s, data, name)
	v.junctors(s, data, name, real)
	switch d := data.(type) {
	case string:
		v.stringChecks(s, d, name)
		v.format(s, d, name)
	case int64, float64:
		v.number(s, d, name)
	case []any:
		v.slice(s, d, name, real)
	}
	v.enum(s, data, name)
	if m, ok := data.(map[string]any); ok {
		v.object(s, m, name, real)
		if s.XEmbeddedResource {
			v.errs = append(v.errs, validateEmbeddedResource(real, m)...)
		}
	}
}

// jsonType is the OpenAPI type name of an unstructured value.
func jsonType(data any) string {
	switch d := data.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		_ = d
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "object"
}

// allowedTypes is the schema's type list; x-kubernetes-int-or-string means
// integer or string, as the apiserver converts it.
func allowedTypes(s *api.JSONSchemaProps) []string {
	if s.XIntOrString {
		return []string{"integer", "string"}
	}
	if s.Type != "" {
		return []string{s.Type}
	}
	return nil
}

func (v *validator) typeCheck(s *api.JSONSchemaProps, data any, name string) {
	types := allowedTypes(s)
	if len(types) == 0 {
		return
	}
	actual := jsonType(data)
	if data == nil {
		if !s.Nullable && !slices.Contains(types, "null") {
			v.typeErr(name, strings.Join(types, ","), "null")
		}
		return
	}
	if slices.Contains(types, actual) {
		return
	}
	// An integral float is an integer, and an integer is a number.
	if f, ok := data.(float64); ok && slices.Contains(types, "integer") && isJSONInteger(f) {
		return
	}
	if actual == "integer" && slices.Contains(types, "number") {
		return
	}
	v.typeErr(name, strings.Join(types, ","), actual)
}

// typeErr reports `<name> in body must be of type <want>: "<got>"` with the
// got type name as the bad value (reason FieldValueTypeInvalid).
func (v *validator) typeErr(name, want, got string) {
	v.add(field.TypeInvalid(v.errPath(name), got, fmt.Sprintf("%s in body must be of type %s: %q", name, want, got)))
}

func isJSONInteger(f float64) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	if f == math.Trunc(f) {
		return true
	}
	// Tolerate the rounding of decimal inputs, as go-openapi does.
	diff := math.Abs(f - math.Round(f))
	return diff < 1e-9*math.Max(1, math.Abs(f))
}

func (v *validator) stringChecks(s *api.JSONSchemaProps, d, name string) {
	// The error path is made only for an error: most fields have none.
	n := int64(utf8.RuneCountInString(d))
	if s.MaxLength != nil && n > *s.MaxLength {
		v.add(field.TooLong(v.errPath(name), d, int(*s.MaxLength)))
		return
	}
	if s.MinLength != nil && n < *s.MinLength {
		v.add(field.Invalid(v.errPath(name), d, fmt.Sprintf("%s in body should be at least %d chars long", name, *s.MinLength)))
		return
	}
	if s.Pattern != "" {
		re, err := v.regexp(s.Pattern)
		if err != nil {
			v.add(field.Invalid(v.errPath(name), d, fmt.Sprintf("%s in body should match '%s, but pattern is invalid: %s'", name, s.Pattern, err)))
			return
		}
		if !re.MatchString(d) {
			v.add(field.Invalid(v.errPath(name), d, fmt.Sprintf("%s in body should match '%s'", name, s.Pattern)))
		}
	}
}

func (v *validator) regexp(p string) (*regexp.Regexp, error) {
	if re, ok := v.regexps[p]; ok {
		return re, nil
	}
	if err, ok := v.regexpErrs[p]; ok {
		return nil, err
	}
	re, err := regexp.Compile(p)
	if err != nil {
		v.regexpErrs[p] = err
		return nil, err
	}
	v.regexps[p] = re
	return re, nil
}

func (v *validator) format(s *api.JSONSchemaProps, d, name string) {
	if s.Format == "" {
		return
	}
	check, known := formatCheckers[s.Format]
	if !known || check(d) {
		return
	}
	v.add(field.TypeInvalid(v.errPath(name), d, fmt.Sprintf("%s in body must be of type %s: %q", name, s.Format, d)))
}

// formatLimit prints a bound the way kube-openapi does: as an integer when
// the value is an integer and the bound is integral, else with %v.
func formatLimit(data any, limit float64) string {
	if _, ok := data.(int64); ok && limit == math.Trunc(limit) && math.Abs(limit) < 1<<63 {
		return fmt.Sprintf("%d", int64(limit))
	}
	return fmt.Sprintf("%v", limit)
}

func (v *validator) number(s *api.JSONSchemaProps, data any, name string) {
	// The error path is made only for an error: most fields have none.
	var f float64
	switch d := data.(type) {
	case int64:
		f = float64(d)
	case float64:
		f = d
	}
	if s.MultipleOf != nil {
		factor := *s.MultipleOf
		if factor <= 0 {
			v.add(field.Invalid(v.errPath(name), factor, fmt.Sprintf("factor MultipleOf declared for %s must be positive: %v", name, factor)))
		} else if !isJSONInteger(f / factor) {
			v.add(field.Invalid(v.errPath(name), data, fmt.Sprintf("%s in body should be a multiple of %s", name, formatLimit(data, factor))))
		}
	}
	if s.Maximum != nil {
		max := *s.Maximum
		if (s.ExclusiveMaximum && f >= max) || f > max {
			word := "less than or equal to"
			if s.ExclusiveMaximum {
				word = "less than"
			}
			v.add(field.Invalid(v.errPath(name), data, fmt.Sprintf("%s in body should be %s %s", name, word, formatLimit(data, max))))
		}
	}
	if s.Minimum != nil {
		min := *s.Minimum
		if (s.ExclusiveMinimum && f <= min) || f < min {
			word := "greater than or equal to"
			if s.ExclusiveMinimum {
				word = "greater than"
			}
			v.add(field.Invalid(v.errPath(name), data, fmt.Sprintf("%s in body should be %s %s", name, word, formatLimit(data, min))))
		}
	}
}

func (v *validator) slice(s *api.JSONSchemaProps, d []any, name string, real *field.Path) {
	// The error path is made only for an error: most fields have none.
	size := int64(len(d))
	if s.MinItems != nil && size < *s.MinItems {
		v.add(field.Invalid(v.errPath(name), size, fmt.Sprintf("%s in body should have at least %d items", name, *s.MinItems)))
	}
	if s.MaxItems != nil && size > *s.MaxItems {
		v.add(field.TooMany(v.errPath(name), int(size), int(*s.MaxItems)))
	}
	if s.UniqueItems && hasDuplicates(d) {
		v.add(field.Invalid(v.errPath(name), "", fmt.Sprintf("%s in body shouldn't contain duplicates", name)))
	}
	if s.Items == nil {
		return
	}
	if s.Items.Schema != nil {
		for i, item := range d {
			v.node(s.Items.Schema, item, fmt.Sprintf("%s[%d]", name, i), real.Index(i))
		}
		return
	}
	// Tuple form: one schema per position, then additionalItems.
	for i := 0; i < len(d) && i < len(s.Items.JSONSchemas); i++ {
		v.node(&s.Items.JSONSchemas[i], d[i], fmt.Sprintf("%s[%d]", name, i), real.Index(i))
	}
	if s.AdditionalItems != nil && len(d) > len(s.Items.JSONSchemas) {
		if !s.AdditionalItems.Allows {
			v.add(field.Invalid(v.root, "", "array doesn't allow for additional items"))
		}
		if s.AdditionalItems.Schema != nil {
			for i := len(s.Items.JSONSchemas); i < len(d); i++ {
				v.node(s.AdditionalItems.Schema, d[i], fmt.Sprintf("%s[%d]", name, i), real.Index(i))
			}
		}
	}
}

func hasDuplicates(d []any) bool {
	for i := range d {
		for j := i + 1; j < len(d); j++ {
			if unstructured.Equal(d[i], d[j]) {
				return true
			}
		}
	}
	return false
}

func (v *validator) enum(s *api.JSONSchemaProps, data any, name string) {
	if len(s.Enum) == 0 {
		return
	}
	for _, e := range s.Enum {
		// Most enums are plain strings: compare without decoding them.
		if d, isString := data.(string); isString {
			if lit, ok := plainString(trimJSONSpace(e.Raw)); ok {
				if string(lit) == d {
					return
				}
				continue
			}
		}
		if ev, ok := simpleLiteral(e.Raw); ok {
			if unstructured.Equal(ev, data) {
				return
			}
			continue
		}
		if ev, err := decodeJSON(e.Raw); err == nil && unstructured.Equal(ev, data) {
			return
		}
	}
	// No match: the error lists every allowed value, decoded as before.
	values := make([]string, 0, len(s.Enum))
	for _, e := range s.Enum {
		ev, err := decodeJSON(e.Raw)
		if err != nil {
			continue
		}
		if unstructured.Equal(ev, data) {
			return
		}
		if str, ok := ev.(string); ok {
			values = append(values, str)
		} else {
			values = append(values, string(bytes.TrimSpace(e.Raw)))
		}
	}
	v.add(field.NotSupported(v.errPath(name), data, values))
}

func (v *validator) object(s *api.JSONSchemaProps, m map[string]any, name string, real *field.Path) {
	// The error path is made only for an error: most fields have none.
	numKeys := int64(len(m))
	if s.MinProperties != nil && numKeys < *s.MinProperties {
		v.add(field.Invalid(v.errPath(name), numKeys, fmt.Sprintf("%s in body should have at least %d properties", name, *s.MinProperties)))
		return
	}
	if s.MaxProperties != nil && numKeys > *s.MaxProperties {
		v.add(field.TooMany(v.errPath(name), int(numKeys), int(*s.MaxProperties)))
		return
	}
	// Only additionalProperties, patternProperties and dependencies walk
	// the object's own keys (sorted, for the order of the errors); most
	// schemas have none of them, and then the keys are not sorted at all.
	var keys, patterns []string
	if s.AdditionalProperties != nil || len(s.PatternProperties) > 0 || len(s.Dependencies) > 0 {
		keys = sortedKeys(m)
	}
	if len(s.PatternProperties) > 0 {
		patterns = sortedSchemaKeys(s.PatternProperties)
	}
	matchesPattern := func(k string) []string {
		var out []string
		for _, pat := range patterns {
			if re, err := v.regexp(pat); err == nil && re.MatchString(k) {
				out = append(out, pat)
			}
		}
		return out
	}
	if s.AdditionalProperties != nil && !s.AdditionalProperties.Allows {
		for _, k := range keys {
			if _, ok := s.Properties[k]; !ok && len(matchesPattern(k)) == 0 {
				v.add(field.Invalid(v.errPath(name), k, fmt.Sprintf("%s.%s in body is a forbidden property", name, k)))
			}
		}
	} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		for _, k := range keys {
			if _, ok := s.Properties[k]; !ok && len(matchesPattern(k)) == 0 {
				v.node(s.AdditionalProperties.Schema, m[k], name+"."+k, real.Child(k))
			}
		}
	}
	for _, k := range v.c.propertyNames(s) {
		val, ok := m[k]
		if !ok {
			continue
		}
		prop, _ := v.c.property(s, k)
		child := k
		if name != "" {
			child = name + "." + k
		}
		v.node(prop, val, child, real.Child(k))
	}
	for _, k := range s.Required {
		if _, ok := m[k]; !ok {
			v.add(field.Required(v.errPath(name+"."+k), ""))
		}
	}
	for _, k := range keys {
		if _, ok := s.Properties[k]; ok {
			continue
		}
		for _, pat := range matchesPattern(k) {
			ps := s.PatternProperties[pat]
			v.node(&ps, m[k], name+"."+k, real.Child(k))
		}
	}
	if len(s.Dependencies) > 0 {
		for _, k := range keys {
			dep, ok := s.Dependencies[k]
			if !ok {
				continue
			}
			if dep.Schema != nil {
				v.node(dep.Schema, m, name+"."+k, real)
				continue
			}
			for _, depKey := range dep.Property {
				if _, ok := m[depKey]; !ok {
					v.add(field.Invalid(v.root, "", fmt.Sprintf("%q has a dependency on %s", name, depKey)))
				}
			}
		}
	}
}

// junctors checks allOf, anyOf, oneOf and not. Their summary errors are not
// field errors in kube-openapi, so they land on the root path with an empty
// bad value, exactly as the apiserver reports them. Where kube-openapi keeps
// the errors of the "best" failing branch (most passing checks), kubesim
// keeps those of the branch with the fewest errors.
func (v *validator) junctors(s *api.JSONSchemaProps, data any, name string, real *field.Path) {
	sub := func(sch *api.JSONSchemaProps) field.ErrorList {
		w := &validator{root: v.root, regexps: v.regexps, regexpErrs: v.regexpErrs}
		w.node(sch, data, name, real)
		return w.errs
	}
	if len(s.AnyOf) > 0 {
		var best field.ErrorList
		ok := false
		for i := range s.AnyOf {
			errs := sub(&s.AnyOf[i])
			if len(errs) == 0 {
				ok = true
				break
			}
			if best == nil || len(errs) < len(best) {
				best = errs
			}
		}
		if !ok {
			v.add(field.Invalid(v.root, "", fmt.Sprintf("%q must validate at least one schema (anyOf)", name)))
			v.errs = append(v.errs, best...)
		}
	}
	if len(s.OneOf) > 0 {
		var best field.ErrorList
		valid := 0
		for i := range s.OneOf {
			errs := sub(&s.OneOf[i])
			if len(errs) == 0 {
				valid++
				continue
			}
			if valid == 0 && (best == nil || len(errs) < len(best)) {
				best = errs
			}
		}
		if valid != 1 {
			msg := "Found none valid"
			if valid > 1 {
				msg = fmt.Sprintf("Found %d valid alternatives", valid)
			}
			v.add(field.Invalid(v.root, "", fmt.Sprintf("%q must validate one and only one schema (oneOf). %s", name, msg)))
			if valid == 0 {
				v.errs = append(v.errs, best...)
			}
		}
	}
	if len(s.AllOf) > 0 {
		valid := 0
		for i := range s.AllOf {
			errs := sub(&s.AllOf[i])
			if len(errs) == 0 {
				valid++
			}
			v.errs = append(v.errs, errs...)
		}
		if valid != len(s.AllOf) {
			extra := ""
			if valid == 0 {
				extra = ". None validated"
			}
			v.add(field.Invalid(v.root, "", fmt.Sprintf("%q must validate all the schemas (allOf)%s", name, extra)))
		}
	}
	if s.Not != nil {
		if len(sub(s.Not)) == 0 {
			v.add(field.Invalid(v.root, "", fmt.Sprintf("%q must not validate the schema (not)", name)))
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := slices.Sorted(maps.Keys(m))
	return keys
}

func sortedSchemaKeys(m map[string]api.JSONSchemaProps) []string {
	keys := slices.Sorted(maps.Keys(m))
	return keys
}

// decodeJSON decodes raw JSON into the unstructured form (int64 for
// integers, float64 for other numbers).
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return normalize(v), nil
}

// normalize converts json.Number and Go numeric kinds into int64/float64
// so that every function here sees the conventional unstructured shape.
// Maps and slices are converted in place.
func normalize(v any) any {
	switch t := v.(type) {
	case nil, bool, string, int64, float64:
		return v
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		if f, err := t.Float64(); err == nil {
			return f
		}
		return t.String()
	case int:
		return int64(t)
	case int32:
		return int64(t)
	case float32:
		return float64(t)
	case map[string]any:
		for k, e := range t {
			if n := normalize(e); !sameScalar(n, e) {
				t[k] = n
			}
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = normalize(e)
		}
		return t
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	}
	return v
}

// sameScalar avoids rewriting map entries that did not change (writing a
// map during iteration is allowed, but skipping it keeps read-only inputs
// untouched when they are already normalized).
func sameScalar(a, b any) bool {
	switch a.(type) {
	case map[string]any, []any:
		return true
	}
	return a == b
}
