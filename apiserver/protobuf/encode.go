package protobuf

import (
	"math"
	"reflect"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"
)

// appendMessage appends the fields of struct value v, in field-number
// order, following the rules of the gogo-generated Marshal methods of
// k8s.io/api so that the bytes are those kube-apiserver writes.
func appendMessage(b []byte, p *plan, v reflect.Value) []byte {
	for i := range p.fields {
		f := &p.fields[i]
		if f.blank {
			if f.writes {
				b = protowire.AppendTag(b, f.num, f.zeroWire)
				b = append(b, 0) // a zero varint, or an empty string
			}
			continue
		}
		fv := v.Field(f.index)
		switch f.shape {
		case single:
			b = appendValue(b, f.num, f.elem, fv, false)
		case pointer:
			if !fv.IsNil() {
				b = appendValue(b, f.num, f.elem, fv.Elem(), true)
			}
		case slice:
			for j := 0; j < fv.Len(); j++ {
				b = appendValue(b, f.num, f.elem, fv.Index(j), true)
			}
		case mapping:
			b = appendMap(b, f, fv)
		}
	}
	return b
}

// appendValue appends one value with its tag. Byte slices (and raw JSON)
// are written only when non-nil, as generated code does; everything else
// held by value is written even when zero. present says the value is an
// element or a pointer target, which is always written.
func appendValue(b []byte, num protowire.Number, v *value, fv reflect.Value, present bool) []byte {
	switch v.kind {
	case kBool:
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(fv.Bool()))
	case kInt:
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(fv.Int()))
	case kUint:
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, fv.Uint())
	case kDouble:
		b = protowire.AppendTag(b, num, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(fv.Float()))
	case kFloat:
		b = protowire.AppendTag(b, num, protowire.Fixed32Type)
		return protowire.AppendFixed32(b, math.Float32bits(float32(fv.Float())))
	case kString:
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendString(b, fv.String())
	case kBytes:
		if fv.IsNil() && !present {
			return b
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, fv.Bytes())
	case kRaw:
		if fv.IsNil() && !present {
			return b
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		start := beginNested(&b)
		if !fv.IsNil() {
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendBytes(b, fv.Bytes())
		}
		return endNested(b, start)
	case kCustom:
		b = protowire.AppendTag(b, num, protowire.BytesType)
		start := beginNested(&b)
		b = fv.Interface().(Marshaler).AppendProtobuf(b)
		return endNested(b, start)
	case kMessage:
		b = protowire.AppendTag(b, num, protowire.BytesType)
		start := beginNested(&b)
		b = appendMessage(b, v.plan, fv)
		return endNested(b, start)
	}
	panic("protobuf: unknown kind") // plans are built only from the kinds above
}

// appendMap writes one entry message {key = 1, value = 2} per key, keys
// sorted, as generated code does (github.com/gogo/protobuf/sortkeys).
func appendMap(b []byte, f *field, fv reflect.Value) []byte {
	if fv.Len() == 0 {
		return b
	}
	keys := fv.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		b = protowire.AppendTag(b, f.num, protowire.BytesType)
		start := beginNested(&b)
		b = appendValue(b, 1, f.key, k, true)
		// A nil []byte value is left out of the entry, as generated code
		// does; any other value is written even when zero.
		b = appendValue(b, 2, f.val, fv.MapIndex(k), false)
		b = endNested(b, start)
	}
	return b
}

// beginNested reserves one byte for the length of a nested message and
// returns where the message starts. endNested writes the length, moving
// the message when the length needs more than one byte: cheaper than
// computing sizes in a first pass for the small objects of an API server.
func beginNested(b *[]byte) int {
	*b = append(*b, 0)
	return len(*b)
}

func endNested(b []byte, start int) []byte {
	n := len(b) - start
	size := protowire.SizeVarint(uint64(n))
	if size > 1 {
		b = append(b, make([]byte, size-1)...)
		copy(b[start+size-1:], b[start:start+n])
	}
	protowire.AppendVarint(b[:start-1], uint64(n))
	return b
}
