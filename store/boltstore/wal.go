package boltstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kubesim/kubesim/store"
)

// WALSuffix names the write-ahead log next to the bbolt file:
// kubesim.db's log is kubesim.db.wal.
const WALSuffix = ".wal"

// A change is one acknowledged write as the log and the not yet
// checkpointed state keep it: the key's new record, or its deletion at
// revision rec.modRev (a deletion keeps nothing else).
type change struct {
	key     string
	rec     record
	deleted bool
}

// The write-ahead log is one file, written from offset 0 after every
// checkpoint and never shrunk while the store is open. One commit of the
// commit loop is one entry:
//
//	payload length u32 | crc32c of the payload u32 | payload
//
// and the payload is the batch's changes, each
//
//	kind u8 (1 put, 2 delete) | modRevision u64 | createRevision u64 |
//	key length uvarint | key | uid length uvarint | uid | value length uvarint | value
//
// Every change carries its revision, so replay is idempotent: a change at
// or below the bbolt file's revision is already there. Past the last entry
// of the current cycle the file holds zeros (never written yet) or entries
// of earlier cycles, all at or below the revision of the checkpoint that
// ended their cycle; replay stops at the first entry that is torn (length
// or checksum wrong) or does not continue the revisions exactly, so neither
// a torn tail nor a stale entry is ever applied.
const (
	walHeaderSize = 8
	walPut        = 1
	walDelete     = 2
	// walChunk is how much zeroed space the log grows by at least: writes
	// then land on blocks the file already has, so fdatasync has no file
	// size or block allocation to record, only the data.
	walChunk = 1 << 20
)

type wal struct {
	f      *os.File
	path   string
	noSync bool
	off    int64 // where the next entry goes
	size   int64 // bytes of the file allocated (written once, zeros at first)
	buf    []byte
}

// openWAL opens or creates the log. It does not read it: see replayWAL.
func openWAL(path string, noSync bool) (*wal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open write-ahead log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("write-ahead log %s: %w", path, err)
	}
	return &wal{f: f, path: path, noSync: noSync, size: st.Size()}, nil
}

// appendBatch writes changes as one entry after the previous one and
// syncs it: when it returns nil, the batch is durable.
func (w *wal) appendBatch(changes []change) error {
	b := w.buf[:0]
	b = append(b, make([]byte, walHeaderSize)...)
	for _, c := range changes {
		kind := byte(walPut)
		if c.deleted {
			kind = walDelete
		}
		b = append(b, kind)
		b = binary.BigEndian.AppendUint64(b, uint64(c.rec.modRev))
		b = binary.BigEndian.AppendUint64(b, uint64(c.rec.createRev))
		b = binary.AppendUvarint(b, uint64(len(c.key)))
		b = append(b, c.key...)
		b = binary.AppendUvarint(b, uint64(len(c.rec.uid)))
		b = append(b, c.rec.uid...)
		b = binary.AppendUvarint(b, uint64(len(c.rec.value)))
		b = append(b, c.rec.value...)
	}
	payload := b[walHeaderSize:]
	binary.BigEndian.PutUint32(b[0:], uint32(len(payload)))
	binary.BigEndian.PutUint32(b[4:], crc32c(payload))
	w.buf = b
	if err := w.grow(w.off + int64(len(b))); err != nil {
		return err
	}
	if _, err := w.f.WriteAt(b, w.off); err != nil {
		return fmt.Errorf("write-ahead log %s: %w", w.path, err)
	}
	if !w.noSync {
		if err := fdatasync(w.f); err != nil {
			return fmt.Errorf("write-ahead log %s: sync: %w", w.path, err)
		}
	}
	w.off += int64(len(b))
	return nil
}

// grow zero-fills the file up to at least end (a chunk, or double the
// file). The zeros are synced with the entry that needed them.
func (w *wal) grow(end int64) error {
	if end <= w.size {
		return nil
	}
	if w.noSync {
		// Nothing is synced: preallocating would only cost writes.
		w.size = end
		return nil
	}
	newSize := max(2*w.size, end, walChunk)
	newSize = (newSize + walChunk - 1) / walChunk * walChunk
	zeros := make([]byte, min(walChunk, newSize-w.size))
	for at := w.size; at < newSize; {
		n := min(int64(len(zeros)), newSize-at)
		if _, err := w.f.WriteAt(zeros[:n], at); err != nil {
			return fmt.Errorf("write-ahead log %s: %w", w.path, err)
		}
		at += n
		w.size = at
	}
	return nil
}

// reset starts a new cycle at offset 0: called once a checkpoint has made
// everything in the log part of the bbolt file.
func (w *wal) reset() { w.off = 0 }

// close closes the file; empty says that everything is checkpointed, so
// the file is cut to nothing (a cleanly closed data directory carries no
// log to replay).
func (w *wal) close(empty bool) error {
	var err error
	if empty {
		err = w.f.Truncate(0)
	}
	return errors.Join(err, w.f.Close())
}

// walReplay is what replayWAL found.
type walReplay struct {
	// last is the last revision applied (the base when none).
	last int64
	// end is the offset after the last entry applied: where the log's
	// current cycle ends.
	end int64
	// damage, when set, is an entry that fails its checks although
	// entries the store acknowledged after it follow: not a torn tail
	// but damage, and its revisions are lost. Nothing past it was
	// applied.
	damage *walDamage
}

// indexFrom is the index of the first c in b at or after from, or -1.
func indexFrom(b []byte, from int, c byte) int {
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// walDamage is a damaged entry in the middle of the log's current cycle.
type walDamage struct {
	offset int64
	// from and to are the revisions it held (and lost), inclusive.
	from, to int64
	// keys are what its payload still shows of its changes, when it
	// still parses (a flipped byte in a value leaves the framing).
	keys []string
	// resume is the offset of the next sound entry, whose first revision
	// is to+1.
	resume int64
}

func (d *walDamage) String() string {
	if d.resume == d.offset {
		return fmt.Sprintf("revisions %d to %d are missing before the entry at offset %d: they are lost", d.from, d.to, d.offset)
	}
	s := fmt.Sprintf("the entry at offset %d is damaged (its length or checksum is wrong), yet entries acknowledged after it follow: revisions %d to %d are lost", d.offset, d.from, d.to)
	if len(d.keys) > 0 {
		s += fmt.Sprintf(" (its changes, as far as they can still be read: %s)", strings.Join(d.keys, ", "))
	}
	return s
}

// maxLostRevisions bounds how far past the revisions replayed so far a
// sound entry found after a damaged one may start: more than any batch.
const maxLostRevisions = 1 << 20

// replayWAL reads the log (size bytes) from the start and calls apply with
// every change past revision base, in revision order, as long as the
// revisions continue exactly from base+1. A torn or stale entry ends the
// replay: it was never acknowledged. An entry that fails its checks but is
// followed by a sound entry continuing the revisions after a gap is
// damage, not a tear: replayWAL stops there too, and says so in damage.
func replayWAL(r io.ReaderAt, size, base int64, apply func(change) error) (walReplay, error) {
	return replayFrom(r, size, 0, base, apply)
}

// replayFrom is replayWAL from offset off, where an entry starts.
func replayFrom(r io.ReaderAt, size, off, base int64, apply func(change) error) (walReplay, error) {
	res := walReplay{last: base, end: off}
	next := base + 1
	var hdr [walHeaderSize]byte
	for {
		changes, n, ok := readEntry(r, size, off, hdr[:])
		if !ok {
			break
		}
		stop := false
		for _, c := range changes {
			switch {
			case c.rec.modRev < next && next == base+1:
				// Already in the bbolt file (the start of a cycle
				// replayed after its checkpoint).
				continue
			case c.rec.modRev != next:
				stop = true // stale: an earlier cycle's entry
			}
			if stop {
				break
			}
			if err := apply(c); err != nil {
				res.last = next - 1
				return res, err
			}
			next++
		}
		if stop {
			break
		}
		off += walHeaderSize + n
		res.end = off
	}
	res.last = next - 1
	if off+walHeaderSize > size {
		return res, nil // the end of the file
	}
	// Where the replay stopped, the cycle ends, unless a sound entry
	// further on continues the revisions after a gap.
	if at, first, ok := findEntryAfter(r, size, off, next); ok {
		d := &walDamage{offset: off, from: next, to: first - 1, resume: at}
		if n := min(int64(binary.BigEndian.Uint32(hdr[:])), at-off-walHeaderSize); n > 0 {
			payload := make([]byte, n)
			if _, err := r.ReadAt(payload, off+walHeaderSize); err == nil {
				if changes, err := decodeWALEntry(payload); err == nil {
					for _, c := range changes {
						d.keys = append(d.keys, store.PrintableKey(c.key))
					}
				}
			}
		}
		res.damage = d
	}
	return res, nil
}

// readEntry reads the entry at off (its header into hdr) and returns its
// changes and payload length, or false for a torn, damaged or absent
// entry. The length is checked against the file before anything is
// allocated: a damaged length field must not ask for gigabytes.
func readEntry(r io.ReaderAt, size, off int64, hdr []byte) ([]change, int64, bool) {
	if _, err := r.ReadAt(hdr, off); err != nil {
		return nil, 0, false
	}
	n := int64(binary.BigEndian.Uint32(hdr[0:]))
	if n == 0 || off+walHeaderSize+n > size {
		return nil, 0, false
	}
	payload := make([]byte, n)
	if _, err := r.ReadAt(payload, off+walHeaderSize); err != nil {
		return nil, 0, false // torn: cut short
	}
	if crc32c(payload) != binary.BigEndian.Uint32(hdr[4:]) {
		return nil, 0, false // torn or stale bytes
	}
	changes, err := decodeWALEntry(payload)
	if err != nil || len(changes) == 0 {
		return nil, 0, false
	}
	return changes, n, true
}

// findEntryAfter looks from off to the end of the log for a sound entry
// whose first change is past revision next, yet close to it: an entry
// acknowledged after a damaged one. Entries of earlier cycles never
// qualify (their revisions are at most the file's, below next), nor do
// zeros. It returns the entry's offset and first revision.
func findEntryAfter(r io.ReaderAt, size, off, next int64) (int64, int64, bool) {
	const chunk = 1 << 20
	const head = walHeaderSize + 9 // the header, a change's kind and revision
	buf := make([]byte, min(chunk, max(size-off, 0))+head)
	var hdr [walHeaderSize]byte
	for base := off; base+head <= size; base += chunk {
		n, _ := r.ReadAt(buf, base)
		b := buf[:n]
		limit := min(chunk, len(b)-head+1) // the offsets scanned in this chunk
		if limit <= 0 {
			break
		}
		// A candidate's first change starts with its kind, 1 or 2; the
		// log is mostly zeros and text. Jump from one such byte to the
		// next (IndexByte is fast), remembering where each kind is next.
		kinds := b[walHeaderSize : walHeaderSize+limit]
		next1, next2 := -1, -1
		for i := 0; i < limit; i++ {
			if next1 < i {
				if next1 = indexFrom(kinds, i, walPut); next1 < 0 {
					next1 = limit
				}
			}
			if next2 < i {
				if next2 = indexFrom(kinds, i, walDelete); next2 < 0 {
					next2 = limit
				}
			}
			if i = min(next1, next2); i >= limit {
				break
			}
			l := int64(binary.BigEndian.Uint32(b[i:]))
			rev := int64(binary.BigEndian.Uint64(b[i+walHeaderSize+1:]))
			if l < 17 || rev <= next || rev > next+maxLostRevisions {
				continue
			}
			at := base + int64(i)
			if changes, _, ok := readEntry(r, size, at, hdr[:]); ok && changes[0].rec.modRev == rev {
				return at, rev, true
			}
		}
	}
	return 0, 0, false
}

func decodeWALEntry(p []byte) ([]change, error) {
	var out []change
	bad := errors.New("malformed write-ahead log entry")
	str := func() (string, bool) {
		l, k := binary.Uvarint(p)
		if k <= 0 || uint64(len(p)-k) < l {
			return "", false
		}
		s := string(p[k : k+int(l)])
		p = p[k+int(l):]
		return s, true
	}
	for len(p) > 0 {
		if len(p) < 17 {
			return nil, bad
		}
		kind := p[0]
		c := change{deleted: kind == walDelete}
		c.rec.modRev = int64(binary.BigEndian.Uint64(p[1:]))
		c.rec.createRev = int64(binary.BigEndian.Uint64(p[9:]))
		p = p[17:]
		var ok1, ok2, ok3 bool
		var value string
		c.key, ok1 = str()
		c.rec.uid, ok2 = str()
		value, ok3 = str()
		if !ok1 || !ok2 || !ok3 || (kind != walPut && kind != walDelete) {
			return nil, bad
		}
		if !c.deleted {
			c.rec.value = []byte(value)
		}
		out = append(out, c)
	}
	return out, nil
}

// discard makes sure that an entry whose write or sync failed is never
// replayed: its writers were told it failed. The next entry goes to the
// same offset; until then, its length field is zeroed (best effort: the
// disk may be failing).
func (w *wal) discard() {
	if w.off+walHeaderSize > w.size {
		return
	}
	if _, err := w.f.WriteAt(make([]byte, walHeaderSize), w.off); err == nil && !w.noSync {
		_ = fdatasync(w.f)
	}
}
