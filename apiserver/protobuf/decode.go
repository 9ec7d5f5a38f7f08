package protobuf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// The errors of gogo-generated Unmarshal methods, worded as Kubernetes
// returns them (k8s.io/api/*/generated.pb.go).
var (
	errIntOverflow   = errors.New("proto: integer overflow")
	errUnexpectedEOF = io.ErrUnexpectedEOF
	errMaxDepth      = errors.New("proto: exceeded maximum nesting depth")
)

const (
	// errWrongFieldKind is gogo's message for a record whose wire type is
	// not the field's, with the Go field name.
	errWrongFieldKind = "proto: wrong wireType = %d for field %s"
	// maxDepth bounds nesting, protecting the stack from hostile input as
	// protobuf-go's own limit does.
	maxDepth = 100
)

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

// decodeMessage reads the fields of a message into struct value v
// (addressable). A field number the type does not know, in kubesim or in
// Kubernetes, is an error: a client speaking another schema is caught
// rather than half understood.
func decodeMessage(data []byte, p *plan, v reflect.Value, depth int) error {
	if depth > maxDepth {
		return errMaxDepth
	}
	for len(data) > 0 {
		num, typ, n, err := consumeTag(data, p.name)
		if err != nil {
			return err
		}
		data = data[n:]
		if typ == protowire.EndGroupType {
			return fmt.Errorf("proto: %s: wiretype end group for non-group", p.name)
		}
		f := p.byNum[num]
		if f == nil {
			return fmt.Errorf("proto: %s: unknown field number %d (wire type %d)", p.name, num, typ)
		}
		if f.blank {
			// A field of the Kubernetes type that kubesim does not model:
			// its value is dropped, as the JSON decoder drops a field it
			// does not know.
			m := protowire.ConsumeFieldValue(num, typ, data)
			if m < 0 {
				return parseError(m)
			}
			data = data[m:]
			continue
		}
		m, err := decodeField(data, f, typ, v.Field(f.index), depth)
		if err != nil {
			return err
		}
		data = data[m:]
	}
	return nil
}

// decodeField reads one record of field f; it returns the bytes consumed.
func decodeField(data []byte, f *field, typ protowire.Type, fv reflect.Value, depth int) (int, error) {
	switch f.shape {
	case single:
		return decodeValue(data, f.name, f.elem, typ, fv, depth)
	case pointer:
		if fv.IsNil() {
			fv.Set(reflect.New(f.elem.typ))
		}
		return decodeValue(data, f.name, f.elem, typ, fv.Elem(), depth)
	case slice:
		if typ == protowire.BytesType && f.elem.scalar() {
			// A packed list: accepted as protobuf readers must, although
			// Kubernetes (proto2) writes one record per element.
			b, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return 0, parseError(n)
			}
			for len(b) > 0 {
				e := reflect.New(f.elem.typ).Elem()
				m, err := decodeValue(b, f.name, f.elem, f.elem.wire(), e, depth)
				if err != nil {
					return 0, err
				}
				fv.Set(reflect.Append(fv, e))
				b = b[m:]
			}
			return n, nil
		}
		e := reflect.New(f.elem.typ).Elem()
		n, err := decodeValue(data, f.name, f.elem, typ, e, depth)
		if err != nil {
			return 0, err
		}
		fv.Set(reflect.Append(fv, e))
		return n, nil
	case mapping:
		if typ != protowire.BytesType {
			return 0, fmt.Errorf(errWrongFieldKind, typ, f.name)
		}
		b, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return 0, parseError(n)
		}
		k := reflect.New(f.key.typ).Elem()
		val := reflect.New(f.val.typ).Elem()
		for len(b) > 0 {
			num, etyp, m, err := consumeTag(b, f.name)
			if err != nil {
				return 0, err
			}
			b = b[m:]
			switch num {
			case 1:
				m, err := decodeValue(b, f.name, f.key, etyp, k, depth)
				if err != nil {
					return 0, err
				}
				b = b[m:]
			case 2:
				m, err := decodeValue(b, f.name, f.val, etyp, val, depth)
				if err != nil {
					return 0, err
				}
				b = b[m:]
			default:
				return 0, fmt.Errorf("proto: %s: unknown field number %d in map entry", f.name, num)
			}
		}
		if fv.IsNil() {
			fv.Set(reflect.MakeMap(fv.Type()))
		}
		fv.SetMapIndex(k, val)
		return n, nil
	}
	panic("protobuf: unknown shape") // plans are built only from the shapes above
}

// decodeValue reads one value of wire type typ into fv.
func decodeValue(data []byte, name string, v *value, typ protowire.Type, fv reflect.Value, depth int) (int, error) {
	if typ != v.wire() {
		return 0, fmt.Errorf(errWrongFieldKind, typ, name)
	}
	switch v.kind {
	case kBool, kInt, kUint:
		x, n := protowire.ConsumeVarint(data)
		if n < 0 {
			return 0, parseError(n)
		}
		switch v.kind {
		case kBool:
			fv.SetBool(x != 0)
		case kInt:
			// Generated code truncates to the Go type (int32(x)); so do we.
			i := int64(x)
			if fv.OverflowInt(i) {
				i = reflect.ValueOf(i).Convert(fv.Type()).Int()
			}
			fv.SetInt(i)
		case kUint:
			if fv.OverflowUint(x) {
				x = reflect.ValueOf(x).Convert(fv.Type()).Uint()
			}
			fv.SetUint(x)
		}
		return n, nil
	case kDouble:
		x, n := protowire.ConsumeFixed64(data)
		if n < 0 {
			return 0, parseError(n)
		}
		fv.SetFloat(math.Float64frombits(x))
		return n, nil
	case kFloat:
		x, n := protowire.ConsumeFixed32(data)
		if n < 0 {
			return 0, parseError(n)
		}
		fv.SetFloat(float64(math.Float32frombits(x)))
		return n, nil
	}
	b, n := protowire.ConsumeBytes(data)
	if n < 0 {
		return 0, parseError(n)
	}
	switch v.kind {
	case kString:
		fv.SetString(string(b))
	case kBytes:
		// A copy: the request body's buffer is not ours to keep.
		fv.SetBytes(append(make([]byte, 0, len(b)), b...))
	case kRaw:
		raw, err := decodeRaw(b)
		if err != nil {
			return 0, err
		}
		fv.SetBytes(raw)
	case kCustom:
		if err := fv.Addr().Interface().(Unmarshaler).UnmarshalProtobuf(b); err != nil {
			return 0, err
		}
	case kMessage:
		if err := decodeMessage(b, v.plan, fv, depth+1); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// decodeRaw reads a RawExtension or FieldsV1 message: {bytes raw = 1}.
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
