package unstructured

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/api"
)

// Unstructured is an object of any kind: typed metadata, the rest as JSON
// values (map[string]any, []any, string, int64, float64, bool, nil).
type Unstructured struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	// Content is every top-level field except apiVersion, kind and metadata.
	Content map[string]any
}

var _ api.Object = (*Unstructured)(nil)

// DeepCopyObject implements api.Object.
func (u *Unstructured) DeepCopyObject() runtime.Object { return u.DeepCopy() }

// DeepCopy copies u, sharing nothing with it.
func (u *Unstructured) DeepCopy() *Unstructured {
	if u == nil {
		return nil
	}
	out := &Unstructured{TypeMeta: u.TypeMeta, Content: DeepCopyMap(u.Content)}
	u.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return out
}

// MarshalJSON writes apiVersion, kind and metadata first, then the other
// fields in key order.
func (u *Unstructured) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	field := func(name string, v any) error {
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteByte(':')
		raw, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("field %s: %w", name, err)
		}
		b.Write(raw)
		return nil
	}
	if u.APIVersion != "" {
		if err := field("apiVersion", u.APIVersion); err != nil {
			return nil, err
		}
	}
	if u.Kind != "" {
		if err := field("kind", u.Kind); err != nil {
			return nil, err
		}
	}
	if err := field("metadata", &u.ObjectMeta); err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(u.Content)) {
		if k == "apiVersion" || k == "kind" || k == "metadata" {
			continue
		}
		if err := field(k, u.Content[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads any JSON object.
func (u *Unstructured) UnmarshalJSON(data []byte) error {
	m, err := DecodeMap(data)
	if err != nil {
		return err
	}
	return u.FromMap(m)
}

// FromMap fills u from a decoded object. m is kept (not copied) as Content,
// minus apiVersion, kind and metadata.
func (u *Unstructured) FromMap(m map[string]any) error {
	*u = Unstructured{}
	if v, ok := m["apiVersion"]; ok {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("apiVersion must be a string, not %T", v)
		}
		u.APIVersion = s
	}
	if v, ok := m["kind"]; ok {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("kind must be a string, not %T", v)
		}
		u.Kind = s
	}
	if md, ok := m["metadata"]; ok && md != nil {
		if _, ok := md.(map[string]any); !ok {
			return fmt.Errorf("metadata must be an object, not %T", md)
		}
		raw, err := json.Marshal(md)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &u.ObjectMeta); err != nil {
			return fmt.Errorf("metadata: %w", err)
		}
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	delete(m, "metadata")
	u.Content = m
	return nil
}

// ToMap returns the whole object as one map (a fresh one).
func (u *Unstructured) ToMap() (map[string]any, error) {
	raw, err := json.Marshal(u)
	if err != nil {
		return nil, err
	}
	return DecodeMap(raw)
}

// DecodeMap decodes a JSON object with Kubernetes' number rules.
func DecodeMap(data []byte) (map[string]any, error) {
	m, _, err := DecodeMapExact(data)
	return m, err
}

// DecodeMapExact is DecodeMap that also reports whether data was read by
// the strict tokenizer (see Decode). Then no object in data has a member
// name twice and every string is valid UTF-8: the tokenizer refuses both,
// and encoding/json, which accepts them, decoded it instead. The API
// server's decoder uses it to skip looking for duplicate names where
// there can be none.
func DecodeMapExact(data []byte) (m map[string]any, exact bool, err error) {
	v, exact, err := decode(data)
	if err != nil {
		return nil, false, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false, fmt.Errorf("expected a JSON object, got %s", TypeName(v))
	}
	return m, exact, nil
}

// Decode decodes one JSON value with Kubernetes' number rules: integers as
// int64, other numbers as float64. Trailing data is an error.
//
// The value is read by github.com/go-json-experiment/json's tokenizer
// (readValue), which is several times faster; where it refuses the input
// (a syntax error, but also a duplicate name or invalid UTF-8, which
// encoding/json accepts), encoding/json decodes it, so what is accepted
// and how a refusal is worded stay encoding/json's.
func Decode(data []byte) (any, error) {
	v, _, err := decode(data)
	return v, err
}

// decode is Decode, and whether the strict tokenizer read data.
func decode(data []byte) (any, bool, error) {
	var r valueReader
	if jsonv2.Unmarshal(data, &r) == nil {
		return r.v, true, nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false, err
	}
	if d.More() {
		return nil, false, fmt.Errorf("unexpected data after the JSON value")
	}
	return FixNumbers(v), false, nil
}

// FixNumbers replaces json.Number values in v by int64 or float64.
func FixNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = FixNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = FixNumbers(e)
		}
	}
	return v
}

// TypeName names the JSON type of a decoded value as Kubernetes' schema
// errors do ("string", "integer", "number", "boolean", "array", "object",
// "null").
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case int64, int, int32:
		return "integer"
	case float64, float32:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// DeepCopyMap copies a JSON object value.
func DeepCopyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = DeepCopyValue(v)
	}
	return out
}

// DeepCopyValue copies a JSON value.
func DeepCopyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return DeepCopyMap(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = DeepCopyValue(e)
		}
		return out
	}
	return v
}

// NestedField returns the value at path inside m, and whether it exists.
func NestedField(m map[string]any, path ...string) (any, bool) {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// SetNestedField sets the value at path, creating objects on the way (and
// replacing non-objects in the way).
func SetNestedField(m map[string]any, value any, path ...string) {
	cur := m
	for _, p := range path[:len(path)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = value
}

// Equal reports whether two JSON values are equal as JSON: objects by
// keys, arrays by position, and numbers by value whether they decoded as
// int64 or float64 (1 equals 1.0).
func Equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && maps.EqualFunc(x, y, Equal)
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, Equal)
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		}
		return false
	case float64:
		switch y := b.(type) {
		case int64:
			return x == float64(y)
		case float64:
			return x == y
		}
		return false
	}
	return reflect.DeepEqual(a, b)
}
