package api

import (
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// The methods below are MarshalJSON and UnmarshalJSON for
// github.com/go-json-experiment/json (package api/jsoncodec, the codec the
// API server stores and answers with): the same JSON, written to and read
// from the stream instead of through a []byte and a nested encoding/json
// call per timestamp. encoding/json ignores them and calls the methods in
// time.go; api/jsoncodec_test.go holds the two to the same bytes.

// MarshalJSONTo writes t as MarshalJSON does.
func (t Time) MarshalJSONTo(enc *jsontext.Encoder) error {
	return writeTime(enc, t.Time, time.RFC3339)
}

// UnmarshalJSONFrom reads t as UnmarshalJSON does.
func (t *Time) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return readTime(dec, &t.Time, time.RFC3339, t.UnmarshalJSON)
}

// MarshalJSONTo writes t as MarshalJSON does.
func (t MicroTime) MarshalJSONTo(enc *jsontext.Encoder) error {
	return writeTime(enc, t.Time, RFC3339Micro)
}

// UnmarshalJSONFrom reads t as UnmarshalJSON does.
func (t *MicroTime) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return readTime(dec, &t.Time, time.RFC3339Nano, t.UnmarshalJSON)
}

// writeTime writes null for the zero time, else t in UTC in layout, quoted
// (a formatted time needs no escaping).
func writeTime(enc *jsontext.Encoder, t time.Time, layout string) error {
	if t.IsZero() {
		return enc.WriteToken(jsontext.Null)
	}
	var buf [64]byte
	b := append(buf[:0], '"')
	b = t.UTC().AppendFormat(b, layout)
	return enc.WriteValue(jsontext.Value(append(b, '"')))
}

// readTime reads null (the zero time) or a string parsed with layout, kept
// in UTC. Anything else is left to the []byte method, which words the
// error as encoding/json would.
func readTime(dec *jsontext.Decoder, t *time.Time, layout string, legacy func([]byte) error) error {
	switch dec.PeekKind() {
	case 'n', '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if tok.Kind() == 'n' {
			*t = time.Time{}
			return nil
		}
		pt, err := time.Parse(layout, tok.String())
		if err != nil {
			return err
		}
		*t = pt.UTC()
		return nil
	}
	val, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return legacy(val)
}
