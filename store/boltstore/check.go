package boltstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/kubesim/kubesim/store"
)

// CheckReport is what Check found in a data file.
type CheckReport struct {
	Path     string
	Revision int64
	Keys     int
	// LogWrites are the write-ahead log's acknowledged writes past
	// Revision (a crash came before their checkpoint); the next open
	// commits them to the file, up to LogRevision. The file's keys and
	// problems above are the file's alone.
	LogWrites   int
	LogRevision int64
	// Problems lists every fault found, each naming where it is.
	Problems []string
}

// OK reports a file with no problem.
func (r *CheckReport) OK() bool { return len(r.Problems) == 0 }

// Check examines the data file at path without changing it: both meta
// pages; the whole tree, read without bbolt (page types and ids, every key
// and value inside its page, key order: see pagewalk.go), naming the keys
// each fault makes unreadable; the store's meta bucket; every record and
// value (a value must be a JSON object); then, when the tree is sound,
// bbolt's own consistency check (tx.Check: page references and the
// freelist). It holds a shared lock on the file (a read-only open), so it
// fails fast, naming the file, while a server holds it. A problem found is
// in the report; err is for a file that could not be examined at all.
func Check(path string) (rep *CheckReport, err error) {
	rep = &CheckReport{Path: path}
	if pages, ok, err := readMetaPages(path); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%s: no data file (empty or missing)", path)
	} else {
		for _, p := range pages {
			if !p.valid {
				rep.Problems = append(rep.Problems, fmt.Sprintf("meta page %d: %s (transaction %d)", p.index, p.why, p.txid))
			}
		}
	}
	if err := checkMetaPages(path); err != nil {
		// Opening would lose a commit or is impossible: say so, look no
		// further (bbolt would read the wrong tree).
		rep.Problems = append(rep.Problems, err.Error())
		return rep, nil
	}
	err = withFaultsAsErrors(path, func() error {
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
		if err != nil {
			return lockError(path, err)
		}
		defer db.Close()
		return checkFile(db, rep)
	})
	var d *DamageError
	if errors.As(err, &d) {
		rep.Problems = append(rep.Problems, d.Problems...)
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return rep, checkLog(rep)
}

// checkFile is Check's look at the file, read-locked through db.
func checkFile(db *bolt.DB, rep *CheckReport) error {
	// The store's meta bucket first: it says how to read the records.
	var format, revision []byte
	res, err := walkFile(rep.Path, func(_ string, k, v []byte) {
		switch string(k) {
		case string(keyFormat):
			format = bytes.Clone(v)
		case string(keyRevision):
			revision = bytes.Clone(v)
		}
	}, map[string]bool{string(bucketMeta): true})
	if err != nil {
		return err
	}
	if !res.buckets[string(bucketMeta)] && len(res.problems) == 0 {
		rep.Problems = append(rep.Problems, "no meta bucket: not a kubesim data file")
		return nil
	}
	rf := formatSummed
	switch string(format) {
	case string(formatV2):
	case string(formatV1):
		rf = formatPlain
	default:
		rep.Problems = append(rep.Problems, fmt.Sprintf("unknown store format %q", format))
	}
	if len(revision) == 8 {
		rep.Revision = int64(decodeRev(revision))
	} else {
		rep.Problems = append(rep.Problems, "corrupt revision counter")
	}
	if !res.buckets[string(bucketKV)] {
		rep.Problems = append(rep.Problems, "missing kv bucket")
	}
	// Then the whole tree, every record on the way.
	res, err = walkFile(rep.Path, func(bucket string, k, v []byte) {
		if bucket != string(bucketKV) {
			return
		}
		rep.Keys++
		key := store.PrintableKey(string(k))
		r, err := decodeRecord(v, rf)
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("key %s: %v", key, err))
			return
		}
		if r.modRev > rep.Revision {
			rep.Problems = append(rep.Problems, fmt.Sprintf("key %s: revision %d beyond the counter %d", key, r.modRev, rep.Revision))
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(r.value, &obj); err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("key %s: value does not decode: %v", key, err))
		}
	}, nil)
	if err != nil {
		return err
	}
	rep.Problems = append(rep.Problems, res.problems...)
	if len(res.problems) > 0 {
		// bbolt's own check would fail on the same damage, in a
		// goroutine of its own where nothing can catch it.
		return nil
	}
	return db.View(func(tx *bolt.Tx) error {
		for cerr := range tx.Check() {
			rep.Problems = append(rep.Problems, "bbolt: "+cerr.Error())
		}
		return nil
	})
}

// checkLog counts the log's writes past the file's revision, read-only.
func checkLog(rep *CheckReport) error {
	f, err := os.Open(rep.Path + WALSuffix)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	res, err := replayWAL(f, st.Size(), rep.Revision, func(change) error { rep.LogWrites++; return nil })
	rep.LogRevision = res.last
	if res.damage != nil {
		rep.Problems = append(rep.Problems, "write-ahead log "+rep.Path+WALSuffix+": "+res.damage.String())
	}
	return err
}

func decodeRev(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return n
}
