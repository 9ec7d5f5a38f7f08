package api

import (
	"bytes"
	"encoding/json"
)

// RawExtension holds an embedded JSON document as it came
// (k8s.io/apimachinery/pkg/runtime's RawExtension): in JSON it is the
// document itself, in protobuf a message whose field 1 holds its bytes.
type RawExtension struct {
	// Raw is the JSON document.
	Raw json.RawMessage `json:"-" protobuf:"bytes,1,opt,name=raw"`
}

// MarshalJSON writes the document (null when there is none).
func (re RawExtension) MarshalJSON() ([]byte, error) {
	if re.Raw == nil {
		return []byte("null"), nil
	}
	return re.Raw, nil
}

// UnmarshalJSON keeps a copy of the document; null leaves it empty.
func (re *RawExtension) UnmarshalJSON(in []byte) error {
	if bytes.Equal(in, []byte("null")) {
		re.Raw = nil
		return nil
	}
	re.Raw = append(re.Raw[:0], in...)
	return nil
}
