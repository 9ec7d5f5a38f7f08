package jsoncodec

import (
	"encoding/json"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
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
	data, err := jsonv2.Marshal(v, jsonv1.DefaultOptionsV1(), jsontext.AllowInvalidUTF8(false))
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
	return jsonv2.Unmarshal(data, v, jsonv1.DefaultOptionsV1(), jsonv2.MatchCaseInsensitiveNames(false))
}
