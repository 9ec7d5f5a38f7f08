package boltstore

import (
	"encoding/binary"
	"errors"
)

// A record is how one key's entry is laid out in the "kv" bucket:
//
//	createRevision uint64 | modRevision uint64 | uid length uvarint | uid | value
//
// Fixed-width revisions first so that a reader can see them without
// decoding the rest.
type record struct {
	createRev int64
	modRev    int64
	uid       string
	value     []byte
}

func (r record) encode() []byte {
	buf := make([]byte, 16+binary.MaxVarintLen64+len(r.uid)+len(r.value))
	binary.BigEndian.PutUint64(buf[0:], uint64(r.createRev))
	binary.BigEndian.PutUint64(buf[8:], uint64(r.modRev))
	n := 16 + binary.PutUvarint(buf[16:], uint64(len(r.uid)))
	n += copy(buf[n:], r.uid)
	n += copy(buf[n:], r.value)
	return buf[:n]
}

var errBadRecord = errors.New("malformed record")

// decodeRecord parses b. The value is copied, because b points into
// bbolt's memory map, which is only valid inside the transaction.
func decodeRecord(b []byte) (record, error) {
	if len(b) < 17 {
		return record{}, errBadRecord
	}
	r := record{
		createRev: int64(binary.BigEndian.Uint64(b[0:])),
		modRev:    int64(binary.BigEndian.Uint64(b[8:])),
	}
	l, n := binary.Uvarint(b[16:])
	if n <= 0 || uint64(len(b)-16-n) < l {
		return record{}, errBadRecord
	}
	off := 16 + n
	r.uid = string(b[off : off+int(l)])
	r.value = append([]byte(nil), b[off+int(l):]...)
	return r, nil
}
