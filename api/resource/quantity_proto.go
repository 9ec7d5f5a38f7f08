package resource

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// The protobuf form of a Quantity is a message {string string = 1} holding
// its canonical string, as resource's quantity_proto.go writes it.

// AppendProtobuf appends q's message body; the string is always written.
func (q Quantity) AppendProtobuf(b []byte) []byte {
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	return protowire.AppendString(b, q.String())
}

// UnmarshalProtobuf reads a message body; the string must parse.
func (q *Quantity) UnmarshalProtobuf(data []byte) error {
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return protowire.ParseError(n)
		}
		data = data[n:]
		if num != 1 {
			return fmt.Errorf("proto: Quantity: unknown field number %d (wire type %d)", num, typ)
		}
		if typ != protowire.BytesType {
			return fmt.Errorf("proto: wrong wireType = %d for field String_", typ)
		}
		s, m := protowire.ConsumeString(data)
		if m < 0 {
			return protowire.ParseError(m)
		}
		data = data[m:]
		p, err := ParseQuantity(s)
		if err != nil {
			return err
		}
		*q = p
	}
	return nil
}
