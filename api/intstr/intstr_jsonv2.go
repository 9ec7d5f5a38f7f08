package intstr

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// MarshalJSONTo is MarshalJSON for github.com/go-json-experiment/json (the
// codec kubesim stores and answers with, api/jsoncodec): a JSON string or
// number written to the stream without a nested encoding/json call.
func (v IntOrString) MarshalJSONTo(enc *jsontext.Encoder) error {
	if v.Type == String {
		return enc.WriteToken(jsontext.String(v.StrVal))
	}
	return enc.WriteToken(jsontext.Int(int64(v.IntVal)))
}

// UnmarshalJSONFrom is UnmarshalJSON for the same codec: a string or an
// int32 is read as a token; anything else goes through UnmarshalJSON,
// which decides (and words errors) as always.
func (v *IntOrString) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		v.Type, v.IntVal, v.StrVal = String, 0, tok.String()
		return nil
	case '0':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		// encoding/json takes an integer in int32's range, nothing else
		// (no fraction, no exponent), as ParseInt does.
		i, err := strconv.ParseInt(tok.String(), 10, 32)
		if err != nil {
			return err
		}
		v.Type, v.IntVal, v.StrVal = Int, int32(i), ""
		return nil
	}
	val, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return v.UnmarshalJSON(val)
}
