package boltstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
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

// errStopReplay ends a replay at the first entry that is not part of the
// log's current cycle.
var errStopReplay = errors.New("end of log")

// replayWAL reads the log from the start and calls apply with every change
// past revision base, in revision order, as long as the revisions continue
// exactly from base+1. It returns the last revision applied (base when
// none). A torn or stale entry ends the replay: it was never acknowledged.
func replayWAL(r io.ReaderAt, base int64, apply func(change) error) (int64, error) {
	next := base + 1
	var hdr [walHeaderSize]byte
	for off := int64(0); ; {
		if _, err := r.ReadAt(hdr[:], off); err != nil {
			return next - 1, nil // end of file
		}
		n := int64(binary.BigEndian.Uint32(hdr[0:]))
		if n == 0 {
			return next - 1, nil
		}
		payload := make([]byte, n)
		if _, err := r.ReadAt(payload, off+walHeaderSize); err != nil {
			return next - 1, nil // torn: cut short
		}
		if crc32c(payload) != binary.BigEndian.Uint32(hdr[4:]) {
			return next - 1, nil // torn or stale bytes
		}
		changes, err := decodeWALEntry(payload)
		if err != nil {
			return next - 1, nil
		}
		for _, c := range changes {
			switch {
			case c.rec.modRev < next && next == base+1:
				// Already in the bbolt file (the start of a cycle
				// replayed after its checkpoint).
				continue
			case c.rec.modRev != next:
				return next - 1, nil // stale: an earlier cycle's entry
			}
			if err := apply(c); err != nil {
				return next - 1, err
			}
			next++
		}
		off += walHeaderSize + n
	}
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
