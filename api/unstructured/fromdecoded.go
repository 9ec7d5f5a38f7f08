package unstructured

import (
	"math"
	"strconv"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// FromDecoded makes the Unstructured that decoding m's JSON encoding would
// make (api/jsoncodec's Marshal, then its Unmarshal), without the
// encoding: the API server's decoder has the body as a map already (Decode,
// then pruned by the schema), and encoding it only to read it again was
// a tenth of a custom resource create's CPU.
//
// The round trip changes a value in one way only, which FromDecoded makes
// too: a float64 that is a whole number in int64's range is written
// without a fraction ("1.0" was read as 1.0; it is written "1" and read
// as the integer 1). Everything else comes back as it was: int64, bool,
// nil, maps and slices of them, and strings that are valid UTF-8.
// metadata is decoded into ObjectMeta from its own encoding, with the
// options Unmarshal uses.
//
// It reports false where it cannot promise the round trip's answer, and
// the caller takes the round trip then (which also words its errors): a
// string or name that is not valid UTF-8 (the encoder would replace its
// bytes), an infinite number (1e999 is read as one; the encoder refuses
// it), a value of a type Decode does not make, apiVersion or kind that
// is not a string, metadata that is not an object or does not decode.
// m's maps and slices become u's: the caller must not use m afterwards.
func FromDecoded(m map[string]any) (*Unstructured, bool) {
	// Everything is checked before m is changed: where the answer is
	// false, the caller encodes m as it was.
	if !roundTrips(m) {
		return nil, false
	}
	u := &Unstructured{}
	for _, name := range [...]string{"apiVersion", "kind"} {
		v, ok := m[name]
		if !ok {
			continue
		}
		s, isString := v.(string)
		if !isString {
			return nil, false
		}
		if name == "apiVersion" {
			u.APIVersion = s
		} else {
			u.Kind = s
		}
	}
	if md, ok := m["metadata"]; ok && md != nil {
		mm, isMap := md.(map[string]any)
		if !isMap {
			return nil, false
		}
		raw, err := jsonv2.Marshal(mm, jsonv1.DefaultOptionsV1(), jsontext.AllowInvalidUTF8(false))
		if err != nil {
			return nil, false
		}
		if err := jsonv2.Unmarshal(raw, &u.ObjectMeta, jsonv1.DefaultOptionsV1(), jsonv2.MatchCaseInsensitiveNames(false)); err != nil {
			return nil, false
		}
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	delete(m, "metadata")
	normalizeNumbers(m)
	u.Content = m
	return u, true
}

// roundTrips reports whether v holds only what Decode makes, with every
// string and name valid UTF-8.
func roundTrips(v any) bool {
	switch t := v.(type) {
	case nil, bool, int64:
		return true
	case float64:
		// A number too large for a float64 is read as an infinity, which
		// the encoder refuses.
		return !math.IsInf(t, 0) && !math.IsNaN(t)
	case string:
		return utf8.ValidString(t)
	case map[string]any:
		for k, e := range t {
			if !utf8.ValidString(k) || !roundTrips(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range t {
			if !roundTrips(e) {
				return false
			}
		}
		return true
	}
	return false
}

// normalizeNumbers turns, in place, every float64 that the encoder writes
// as an integer that Decode reads as int64 into that int64. The encoder
// writes a whole number under 1e21 in magnitude with no fraction and no
// exponent, as strconv's shortest 'f' form (above 2^53 that is not always
// the float's exact value: 2^62 is written 4611686018427388000), and a
// negative zero as "-0"; Decode reads it as an int64 when it fits.
func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1e21 {
			if i, err := strconv.ParseInt(strconv.FormatFloat(t, 'f', -1, 64), 10, 64); err == nil {
				return i
			}
		}
	case map[string]any:
		for k, e := range t {
			switch e.(type) {
			case float64, map[string]any, []any:
				t[k] = normalizeNumbers(e)
			}
		}
	case []any:
		for i, e := range t {
			t[i] = normalizeNumbers(e)
		}
	}
	return v
}
