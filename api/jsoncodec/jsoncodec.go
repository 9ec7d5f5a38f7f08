package jsoncodec

import (
	"bytes"
	"encoding/json"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Marshal encodes v as encoding/json.Marshal does, byte for byte.
//
// The one thing v2 set to v1's semantics writes differently is a string
// holding invalid UTF-8: encoding/json writes each bad byte as the escape
// \ufffd, v2 as the raw character U+FFFD. So v2 is told to refuse invalid
// UTF-8, and on that error (or any other) encoding/json itself encodes v:
// its bytes, or its error. JSON bodies never bring invalid UTF-8 (decoding
// replaces it); a protobuf body or a component's own string can.
func Marshal(v any) ([]byte, error) {
	data, err := jsonv2.Marshal(v, jsonv1.DefaultOptionsV1(), jsontext.AllowInvalidUTF8(false), timeMarshalers)
	if err != nil {
		return json.Marshal(v)
	}
	return data, nil
}

// Unmarshal decodes data into v as encoding/json.Unmarshal does, except
// that member names match case-sensitively: {"Replicas":3} does not set
// replicas. It is for JSON kubesim wrote itself (stored values, watch
// events); request bodies go through the API server's strict decoder.
func Unmarshal(data []byte, v any) error {
	return jsonv2.Unmarshal(data, v, jsonv1.DefaultOptionsV1(), jsonv2.MatchCaseInsensitiveNames(false), timeUnmarshalers)
}

// timeMarshalers write metav1.Time and metav1.MicroTime as their
// MarshalJSON methods do (null when zero, else the UTC time quoted in
// RFC 3339, to the second or the microsecond) straight onto the stream:
// the methods return a new []byte per value, which the encoder then
// checks and copies, and a pod carries a dozen times.
var timeMarshalers = jsonv2.WithMarshalers(jsonv2.JoinMarshalers(
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, t metav1.Time) error {
		return writeTime(enc, t.Time, time.RFC3339)
	}),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, t metav1.MicroTime) error {
		return writeTime(enc, t.Time, metav1.RFC3339Micro)
	}),
))

func writeTime(enc *jsontext.Encoder, t time.Time, layout string) error {
	if t.IsZero() {
		return enc.WriteToken(jsontext.Null)
	}
	var buf [48]byte
	b := append(buf[:0], '"')
	b = t.UTC().AppendFormat(b, layout)
	return enc.WriteValue(append(b, '"'))
}

// timeUnmarshalers read what timeMarshalers write without the methods'
// detour: metav1.Time.UnmarshalJSON decodes the string with
// encoding/json.Unmarshal and parses a copy of it. A quoted time without
// escapes is parsed in place (time.Time.UnmarshalText, RFC 3339, which
// time.Parse tries first for that layout too); anything else — null, an
// escape, a malformed time, another layout — goes to the type's own
// method, so values and errors stay the methods'.
var timeUnmarshalers = jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(
	jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, t *metav1.Time) error {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		var parsed time.Time
		if s, ok := plainString(v); ok && parsed.UnmarshalText(s) == nil {
			t.Time = parsed.Local()
			return nil
		}
		return t.UnmarshalJSON(v)
	}),
	jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, t *metav1.MicroTime) error {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		// RFC3339Micro's own shape only ("2006-01-02T15:04:05.000000Z"):
		// time.Parse with that layout wants exactly six digits, where
		// RFC 3339 takes any number or none.
		var parsed time.Time
		if s, ok := plainString(v); ok && len(s) == len("2006-01-02T15:04:05.000000Z") && s[19] == '.' &&
			s[len(s)-1] == 'Z' && parsed.UnmarshalText(s) == nil {
			t.Time = parsed.Local()
			return nil
		}
		return t.UnmarshalJSON(v)
	}),
))

// plainString is the contents of v when it is a JSON string without
// escapes.
func plainString(v jsontext.Value) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return nil, false
	}
	return v[1 : len(v)-1], true
}

// TimeUnmarshalers are the options with which this package reads
// metav1.Time and MicroTime, for a decoder that sets options of its own
// (the API server's decoder of request bodies): the same values and
// errors as the types' methods, without their per-value copies.
func TimeUnmarshalers() jsonv2.Options { return timeUnmarshalers }
