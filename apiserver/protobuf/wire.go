package protobuf

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// The errors of gogo-generated Unmarshal methods, worded as Kubernetes
// returns them (k8s.io/api/*/generated.pb.go): the envelope and the watch
// event, which this package reads itself, fail with the same words as the
// objects inside them.
var (
	errIntOverflow   = errors.New("proto: integer overflow")
	errUnexpectedEOF = io.ErrUnexpectedEOF
)

// errWrongFieldKind is gogo's message for a record whose wire type is not
// the field's, with the Go field name.
const errWrongFieldKind = "proto: wrong wireType = %d for field %s"

// parseError turns a negative count of protowire into the error gogo code
// gives for the same input.
func parseError(n int) error {
	err := protowire.ParseError(n)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errUnexpectedEOF
	case strings.HasSuffix(err.Error(), "variable length integer overflow"):
		return errIntOverflow
	}
	return err // already "proto: ..."
}

// consumeTag reads the key of a record. A field number of 0 (or beyond
// the largest) is "illegal", worded as gogo's generated code words it,
// which prints the whole key as the "wire type".
func consumeTag(data []byte, typeName string) (protowire.Number, protowire.Type, int, error) {
	key, n := protowire.ConsumeVarint(data)
	if n < 0 {
		return 0, 0, 0, parseError(n)
	}
	num, typ := protowire.DecodeTag(key)
	if key>>3 == 0 || key>>3 > uint64(protowire.MaxValidNumber) {
		return 0, 0, 0, fmt.Errorf("proto: %s: illegal tag %d (wire type %d)", typeName, int32(key>>3), key)
	}
	return num, typ, n, nil
}

// decodeRaw reads a RawExtension message: {bytes raw = 1}.
func decodeRaw(b []byte) ([]byte, error) {
	raw := []byte{}
	for len(b) > 0 {
		num, typ, n, err := consumeTag(b, "RawExtension")
		if err != nil {
			return nil, err
		}
		b = b[n:]
		if num != 1 {
			return nil, fmt.Errorf("proto: RawExtension: unknown field number %d (wire type %d)", num, typ)
		}
		if typ != protowire.BytesType {
			return nil, fmt.Errorf(errWrongFieldKind, typ, "Raw")
		}
		v, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return nil, parseError(m)
		}
		raw = append(raw[:0], v...)
		b = b[m:]
	}
	return raw, nil
}

// appendNested appends a length-delimited nested message whose size is
// known.
func appendNested(b []byte, num protowire.Number, m Message) ([]byte, error) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(m.Size()))
	return appendMessage(b, m)
}
