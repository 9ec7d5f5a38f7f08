package boltstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
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
// pages, bbolt's own consistency check of every page (tx.Check: page
// types, references, the freelist), the store's meta bucket, and every
// record and value (a value must be a JSON object). It opens the file
// read-only, so it fails fast, naming the file, while a server holds it.
// A problem found is in the report; err is for a file that could not be
// examined at all.
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
	open := func() (*bolt.DB, error) {
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
		return db, lockError(path, err)
	}
	if err := verifyPages(path, open); err != nil {
		if strings.Contains(err.Error(), "damaged page") {
			// bbolt's own check would die on the same page, in a goroutine.
			rep.Problems = append(rep.Problems, err.Error())
			return rep, nil
		}
		return nil, err
	}
	db, err := open()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	defer func() {
		// bbolt panics on some page damage; report it as what it is.
		if r := recover(); r != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("structural damage: %v", r))
			err = nil
		}
	}()
	err = db.View(func(tx *bolt.Tx) error {
		for cerr := range tx.Check() {
			rep.Problems = append(rep.Problems, "bbolt: "+cerr.Error())
		}
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			rep.Problems = append(rep.Problems, "no meta bucket: not a kubesim data file")
			return nil
		}
		format := formatSummed
		switch f := meta.Get(keyFormat); string(f) {
		case string(formatV2):
		case string(formatV1):
			format = formatPlain
		default:
			rep.Problems = append(rep.Problems, fmt.Sprintf("unknown store format %q", f))
		}
		if r := meta.Get(keyRevision); len(r) == 8 {
			rep.Revision = int64(decodeRev(r))
		} else {
			rep.Problems = append(rep.Problems, "corrupt revision counter")
		}
		kv := tx.Bucket(bucketKV)
		if kv == nil {
			rep.Problems = append(rep.Problems, "missing kv bucket")
			return nil
		}
		return kv.ForEach(func(k, v []byte) error {
			rep.Keys++
			r, err := decodeRecord(v, format)
			if err != nil {
				rep.Problems = append(rep.Problems, fmt.Sprintf("key %s: %v", k, err))
				return nil
			}
			if r.modRev > rep.Revision {
				rep.Problems = append(rep.Problems, fmt.Sprintf("key %s: revision %d beyond the counter %d", k, r.modRev, rep.Revision))
			}
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(r.value, &obj); err != nil {
				rep.Problems = append(rep.Problems, fmt.Sprintf("key %s: value does not decode: %v", k, err))
			}
			return nil
		})
	})
	if err == nil {
		err = checkLog(rep)
	}
	return rep, err
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
	rep.LogRevision, err = replayWAL(f, rep.Revision, func(change) error { rep.LogWrites++; return nil })
	return err
}

func decodeRev(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return n
}
