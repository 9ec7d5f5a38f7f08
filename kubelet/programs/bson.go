package programs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// The part of BSON (bsonspec.org) that MongoDB's handshake and simple
// commands use: documents as ordered key/value lists, with doubles,
// strings, documents, arrays, binaries, object ids, booleans, dates,
// nulls, 32- and 64-bit integers and timestamps.

// bsonDoc is a BSON document: its elements in order.
type bsonDoc []bsonElem

// bsonElem is one key and its value: float64, string, bsonDoc, []any,
// []byte (binary), bsonObjectID, bool, time.Time, nil, int32, int64 or
// bsonTimestamp.
type bsonElem struct {
	Key   string
	Value any
}

type (
	bsonObjectID  [12]byte
	bsonTimestamp uint64
)

// get is the value of key, or nil.
func (d bsonDoc) get(key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

var errBSON = errors.New("malformed BSON")

// decodeBSON reads one document from the start of b and returns it and
// its length.
func decodeBSON(b []byte) (bsonDoc, int, error) {
	if len(b) < 5 {
		return nil, 0, errBSON
	}
	size := int(int32(binary.LittleEndian.Uint32(b)))
	if size < 5 || size > len(b) || b[size-1] != 0 {
		return nil, 0, errBSON
	}
	var doc bsonDoc
	p := b[4 : size-1]
	for len(p) > 0 {
		typ := p[0]
		key, rest, ok := cutCString(p[1:])
		if !ok {
			return nil, 0, errBSON
		}
		v, n, err := decodeBSONValue(typ, rest)
		if err != nil {
			return nil, 0, err
		}
		doc = append(doc, bsonElem{key, v})
		p = rest[n:]
	}
	return doc, size, nil
}

func cutCString(b []byte) (string, []byte, bool) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", nil, false
	}
	return string(b[:i]), b[i+1:], true
}

func decodeBSONValue(typ byte, b []byte) (any, int, error) {
	need := func(n int) error {
		if len(b) < n {
			return errBSON
		}
		return nil
	}
	switch typ {
	case 0x01:
		if err := need(8); err != nil {
			return nil, 0, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), 8, nil
	case 0x02:
		if err := need(4); err != nil {
			return nil, 0, err
		}
		n := int(int32(binary.LittleEndian.Uint32(b)))
		if n < 1 || 4+n > len(b) || b[4+n-1] != 0 {
			return nil, 0, errBSON
		}
		return string(b[4 : 4+n-1]), 4 + n, nil
	case 0x03, 0x04:
		d, n, err := decodeBSON(b)
		if err != nil {
			return nil, 0, err
		}
		if typ == 0x03 {
			return d, n, nil
		}
		arr := make([]any, 0, len(d))
		for _, e := range d {
			arr = append(arr, e.Value)
		}
		return arr, n, nil
	case 0x05:
		if err := need(5); err != nil {
			return nil, 0, err
		}
		n := int(int32(binary.LittleEndian.Uint32(b)))
		if n < 0 || 5+n > len(b) {
			return nil, 0, errBSON
		}
		return append([]byte(nil), b[5:5+n]...), 5 + n, nil
	case 0x07:
		if err := need(12); err != nil {
			return nil, 0, err
		}
		var id bsonObjectID
		copy(id[:], b)
		return id, 12, nil
	case 0x08:
		if err := need(1); err != nil {
			return nil, 0, err
		}
		return b[0] != 0, 1, nil
	case 0x09:
		if err := need(8); err != nil {
			return nil, 0, err
		}
		return time.UnixMilli(int64(binary.LittleEndian.Uint64(b))).UTC(), 8, nil
	case 0x0A:
		return nil, 0, nil
	case 0x10:
		if err := need(4); err != nil {
			return nil, 0, err
		}
		return int32(binary.LittleEndian.Uint32(b)), 4, nil
	case 0x11:
		if err := need(8); err != nil {
			return nil, 0, err
		}
		return bsonTimestamp(binary.LittleEndian.Uint64(b)), 8, nil
	case 0x12:
		if err := need(8); err != nil {
			return nil, 0, err
		}
		return int64(binary.LittleEndian.Uint64(b)), 8, nil
	}
	return nil, 0, fmt.Errorf("BSON type 0x%02x is not supported", typ)
}

// encodeBSON writes d as a BSON document.
func encodeBSON(d bsonDoc) []byte {
	var body bytes.Buffer
	for _, e := range d {
		encodeBSONElem(&body, e.Key, e.Value)
	}
	out := binary.LittleEndian.AppendUint32(nil, uint32(body.Len()+5))
	out = append(out, body.Bytes()...)
	return append(out, 0)
}

func encodeBSONElem(w *bytes.Buffer, key string, v any) {
	head := func(typ byte) {
		w.WriteByte(typ)
		w.WriteString(key)
		w.WriteByte(0)
	}
	switch v := v.(type) {
	case float64:
		head(0x01)
		w.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
	case string:
		head(0x02)
		w.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(v)+1)))
		w.WriteString(v)
		w.WriteByte(0)
	case bsonDoc:
		head(0x03)
		w.Write(encodeBSON(v))
	case []any:
		head(0x04)
		arr := make(bsonDoc, len(v))
		for i, x := range v {
			arr[i] = bsonElem{fmt.Sprint(i), x}
		}
		w.Write(encodeBSON(arr))
	case []byte:
		head(0x05)
		w.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(v))))
		w.WriteByte(0)
		w.Write(v)
	case bsonObjectID:
		head(0x07)
		w.Write(v[:])
	case bool:
		head(0x08)
		if v {
			w.WriteByte(1)
		} else {
			w.WriteByte(0)
		}
	case time.Time:
		head(0x09)
		w.Write(binary.LittleEndian.AppendUint64(nil, uint64(v.UnixMilli())))
	case nil:
		head(0x0A)
	case int32:
		head(0x10)
		w.Write(binary.LittleEndian.AppendUint32(nil, uint32(v)))
	case int:
		head(0x10)
		w.Write(binary.LittleEndian.AppendUint32(nil, uint32(int32(v))))
	case bsonTimestamp:
		head(0x11)
		w.Write(binary.LittleEndian.AppendUint64(nil, uint64(v)))
	case int64:
		head(0x12)
		w.Write(binary.LittleEndian.AppendUint64(nil, uint64(v)))
	default:
		head(0x0A)
	}
}
