package api

import (
	"bytes"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// RawExtension is runtime.RawExtension where Kubernetes holds it by value
// (a ControllerRevision's data): an embedded document kept as it came. In
// JSON it is the document itself; in protobuf a message {bytes raw = 1},
// written even when empty, as generated code writes a non-pointer message
// field. (Where Kubernetes holds one by pointer, or the document is always
// there, kubesim's types use json.RawMessage, which the codec writes only
// when set.)
type RawExtension struct {
	// Raw is the JSON document.
	Raw json.RawMessage `json:"-"`
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
	re.Raw = append(json.RawMessage(nil), in...)
	return nil
}

// AppendProtobuf appends the message body: field 1, the document's bytes.
func (re RawExtension) AppendProtobuf(b []byte) []byte {
	if re.Raw == nil {
		return b
	}
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	return protowire.AppendBytes(b, re.Raw)
}

// UnmarshalProtobuf reads the message body, skipping unknown fields as
// generated code does.
func (re *RawExtension) UnmarshalProtobuf(data []byte) error {
	re.Raw = nil
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return fmt.Errorf("proto: RawExtension: %w", protowire.ParseError(n))
		}
		data = data[n:]
		if num == 1 && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(data)
			if m < 0 {
				return fmt.Errorf("proto: RawExtension: %w", protowire.ParseError(m))
			}
			re.Raw = append(json.RawMessage{}, v...)
			data = data[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, data)
		if m < 0 {
			return fmt.Errorf("proto: RawExtension: %w", protowire.ParseError(m))
		}
		data = data[m:]
	}
	return nil
}
