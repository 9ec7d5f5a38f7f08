package boltstore

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// A record is how one key's entry is laid out in the "kv" bucket. Files
// created since format 2 ("kubesim-store-v2") carry a checksum:
//
//	createRevision u64 | modRevision u64 | crc32c u32 | uid length uvarint | uid | value
//
// where the CRC-32C covers every other byte of the record. bbolt checks its
// meta pages but not the data in its leaves, so a flipped bit in a value
// would otherwise be served as it is: inside a list sent from the stored
// bytes, it breaks the whole response. Format 1 files (no checksum field)
// are read and written in their own layout; nothing rewrites them.
//
// Fixed-width revisions first so that a reader can see them without
// decoding the rest, even in a damaged record.
type record struct {
	createRev int64
	modRev    int64
	uid       string
	value     []byte
}

// recordFormat says which layout a file's records have.
type recordFormat int

const (
	formatPlain   recordFormat = 1 // kubesim-store-v1
	formatSummed  recordFormat = 2 // kubesim-store-v2
	sumSize                    = 4
	fixedRevsSize              = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (f recordFormat) headerSize() int {
	if f == formatSummed {
		return fixedRevsSize + sumSize
	}
	return fixedRevsSize
}

func (r record) encode(f recordFormat) []byte {
	h := f.headerSize()
	buf := make([]byte, h+binary.MaxVarintLen64+len(r.uid)+len(r.value))
	binary.BigEndian.PutUint64(buf[0:], uint64(r.createRev))
	binary.BigEndian.PutUint64(buf[8:], uint64(r.modRev))
	n := h + binary.PutUvarint(buf[h:], uint64(len(r.uid)))
	n += copy(buf[n:], r.uid)
	n += copy(buf[n:], r.value)
	buf = buf[:n]
	if f == formatSummed {
		binary.BigEndian.PutUint32(buf[fixedRevsSize:], checksum(buf))
	}
	return buf
}

// checksum is the CRC-32C of a summed record without its checksum field.
func checksum(b []byte) uint32 {
	c := crc32.Update(0, castagnoli, b[:fixedRevsSize])
	return crc32.Update(c, castagnoli, b[fixedRevsSize+sumSize:])
}

var (
	errBadRecord   = errors.New("malformed record")
	errBadChecksum = errors.New("record checksum mismatch")
)

// decodeRecord parses b. The value is copied, because b points into
// bbolt's memory map, which is only valid inside the transaction. On a
// damaged record the error says so and the record holds what could still
// be read: its revisions, when the fixed fields are there.
func decodeRecord(b []byte, f recordFormat) (record, error) {
	var r record
	if len(b) >= fixedRevsSize {
		r.createRev = int64(binary.BigEndian.Uint64(b[0:]))
		r.modRev = int64(binary.BigEndian.Uint64(b[8:]))
	}
	h := f.headerSize()
	if len(b) < h+1 {
		return r, errBadRecord
	}
	if f == formatSummed && binary.BigEndian.Uint32(b[fixedRevsSize:]) != checksum(b) {
		return r, errBadChecksum
	}
	l, n := binary.Uvarint(b[h:])
	if n <= 0 || uint64(len(b)-h-n) < l {
		return r, errBadRecord
	}
	off := h + n
	r.uid = string(b[off : off+int(l)])
	r.value = append([]byte(nil), b[off+int(l):]...)
	return r, nil
}

func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
