package unstructured

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MarshalJSONTo is MarshalJSON for github.com/go-json-experiment/json (the
// codec kubesim stores and answers with, api/jsoncodec): the same members
// in the same order (apiVersion, kind, metadata, then the rest by name),
// written to the stream with the encoder's own options instead of a nested
// encoding/json call per member whose output is then parsed again.
func (u *Unstructured) MarshalJSONTo(enc *jsontext.Encoder) error {
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	member := func(name string, v any) error {
		if err := enc.WriteToken(jsontext.String(name)); err != nil {
			return err
		}
		if err := jsonv2.MarshalEncode(enc, v); err != nil {
			return fmt.Errorf("field %s: %w", name, err)
		}
		return nil
	}
	if u.APIVersion != "" {
		if err := member("apiVersion", u.APIVersion); err != nil {
			return err
		}
	}
	if u.Kind != "" {
		if err := member("kind", u.Kind); err != nil {
			return err
		}
	}
	if err := member("metadata", &u.ObjectMeta); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(u.Content)) {
		if k == "apiVersion" || k == "kind" || k == "metadata" {
			continue
		}
		if err := member(k, u.Content[k]); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

// UnmarshalJSONFrom is UnmarshalJSON for the same codec, which reads only
// what kubesim stored: the object is read token by token with Kubernetes'
// number rules (integers as int64, other numbers as float64) and its
// metadata decoded straight into ObjectMeta, instead of decoding a map,
// encoding its metadata and decoding that again. Anything but an object
// goes through UnmarshalJSON, which words the error.
func (u *Unstructured) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '{' {
		val, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return u.UnmarshalJSON(val)
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	*u = Unstructured{}
	content := map[string]any{}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		switch name := tok.String(); name {
		case "apiVersion", "kind":
			v, err := readValue(dec)
			if err != nil {
				return err
			}
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("%s must be a string, not %T", name, v)
			}
			if name == "apiVersion" {
				u.APIVersion = s
			} else {
				u.Kind = s
			}
		case "metadata":
			switch dec.PeekKind() {
			case 'n':
				if _, err := dec.ReadToken(); err != nil {
					return err
				}
			case '{':
				u.ObjectMeta = metav1.ObjectMeta{}
				if err := jsonv2.UnmarshalDecode(dec, &u.ObjectMeta); err != nil {
					return fmt.Errorf("metadata: %w", err)
				}
			default:
				v, err := readValue(dec)
				if err != nil {
					return err
				}
				return fmt.Errorf("metadata must be an object, not %T", v)
			}
		default:
			v, err := readValue(dec)
			if err != nil {
				return err
			}
			content[name] = v
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	u.Content = content
	return nil
}

// valueReader reads one JSON value with readValue.
type valueReader struct{ v any }

func (r *valueReader) UnmarshalJSONFrom(dec *jsontext.Decoder) (err error) {
	r.v, err = readValue(dec)
	return err
}

// readValue reads one JSON value as Decode does: objects as
// map[string]any, arrays as []any, integers as int64, other numbers as
// float64.
func readValue(dec *jsontext.Decoder) (any, error) {
	switch dec.PeekKind() {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // a token is valid until the next read
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		_, err := dec.ReadToken()
		return m, err
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		s := []any{}
		for dec.PeekKind() != ']' {
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		_, err := dec.ReadToken()
		return s, err
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 't', 'f':
		return tok.Bool(), nil
	case '"':
		return tok.String(), nil
	}
	// A number: as json.Number's Int64, else its Float64 (FixNumbers).
	s := tok.String()
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f, nil
}
