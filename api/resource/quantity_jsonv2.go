package resource

import (
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// MarshalJSONTo is MarshalJSON for github.com/go-json-experiment/json (the
// codec kubesim stores and answers with, api/jsoncodec): the same quoted
// canonical string, written to the stream without a nested encoding/json
// call.
func (q Quantity) MarshalJSONTo(enc *jsontext.Encoder) error {
	return enc.WriteToken(jsontext.String(q.String()))
}

// UnmarshalJSONFrom is UnmarshalJSON for the same codec: a quoted
// quantity is read as a token; anything else (a bare number, null, or
// something wrong) goes through UnmarshalJSON, which decides as always.
func (q *Quantity) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		parsed, err := ParseQuantity(strings.TrimSpace(tok.String()))
		if err != nil {
			return err
		}
		*q = parsed
		return nil
	}
	val, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return q.UnmarshalJSON(val)
}
