package boltstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/kubesim/kubesim/store"
)

// SalvageReport is what Salvage kept and what it left out.
type SalvageReport struct {
	// Path is the bbolt file read.
	Path string
	// Revision is the revision of the newest write kept.
	Revision int64
	// Kept is the number of keys handed to visit.
	Kept int
	// Problems name what was left out: the damaged pages with the keys
	// they made unreadable, damaged records, damaged log entries.
	Problems []string
}

// Salvage reads every key of the data file at path that can still be
// read, with the write-ahead log's writes over them, and hands each to
// visit in key order, after telling start the revision of the newest
// write it keeps (a snapshot's header comes first): `kubesim store export --skip-damaged`, the way out
// of a data directory the store refuses to open (a DamageError). It reads
// the file as treeWalk does, without bbolt, so no damage can crash it: a
// damaged page costs the keys under it, a damaged record its key, a
// damaged log entry its writes (the log's sound entries after it are
// kept), and each is named in the report. A damaged newest meta page
// costs its commit: the file is read at the older one.
//
// Like Check it holds a shared lock on the file, so it fails fast, naming
// the file, while a server holds it.
func Salvage(path string, start func(revision int64) error, visit func(store.KeyValue) error) (*SalvageReport, error) {
	pages, ok, err := readMetaPages(path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: no data file (empty or missing)", path)
	}
	if _, ok := currentMeta(pages); !ok {
		return nil, fmt.Errorf("data file %s: both meta pages are damaged (page 0: %s; page 1: %s): nothing can be read; restore the data directory from a copy",
			path, pages[0].why, pages[1].why)
	}
	rep := &SalvageReport{Path: path}
	if err := checkMetaPages(path); err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
	err = withFaultsAsErrors(path, func() error {
		// The read-only open takes the shared lock and reads the meta
		// pages only.
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
		if err != nil {
			return lockError(path, err)
		}
		defer db.Close()
		return salvage(rep, start, visit)
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func salvage(rep *SalvageReport, start func(int64) error, visit func(store.KeyValue) error) error {
	// The meta bucket: how to read the records, and where the log goes on.
	var format, revision []byte
	if _, err := walkFile(rep.Path, func(_ string, k, v []byte) {
		switch string(k) {
		case string(keyFormat):
			format = bytes.Clone(v)
		case string(keyRevision):
			revision = bytes.Clone(v)
		}
	}, map[string]bool{string(bucketMeta): true}); err != nil {
		return err
	}
	rf := formatSummed
	if bytes.Equal(format, formatV1) {
		rf = formatPlain
	}
	// The log's writes past the file, latest per key.
	logged := map[string]change{}
	if len(revision) == 8 {
		rep.Revision = int64(decodeRev(revision))
		if err := salvageLog(rep, logged); err != nil {
			return err
		}
	} else {
		rep.Problems = append(rep.Problems, "the revision counter is unreadable: the write-ahead log's writes cannot be placed after the file's, and are left out")
	}
	if err := start(rep.Revision); err != nil {
		return err
	}
	keys := make([]string, 0, len(logged))
	for k := range logged {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	// Then the kv bucket in key order, the log's writes merged over it.
	var err error
	emit := func(kv store.KeyValue) {
		if err == nil {
			if err = visit(kv); err == nil {
				rep.Kept++
			}
		}
	}
	fromLog := func(k string) {
		if c := logged[k]; !c.deleted {
			emit(c.keyValue())
		}
	}
	res, werr := walkFile(rep.Path, func(bucket string, k, v []byte) {
		for len(keys) > 0 && keys[0] < string(k) {
			fromLog(keys[0])
			keys = keys[1:]
		}
		if len(keys) > 0 && keys[0] == string(k) {
			fromLog(keys[0]) // the log's write is the newer
			keys = keys[1:]
			return
		}
		r, derr := decodeRecord(v, rf)
		if derr != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("key %s: %v: left out", store.PrintableKey(string(k)), derr))
			return
		}
		emit(r.keyValue(string(k)))
	}, map[string]bool{string(bucketKV): true})
	if werr != nil {
		return werr
	}
	for _, k := range keys {
		fromLog(k)
	}
	rep.Problems = append(rep.Problems, res.problems...)
	if !res.buckets[string(bucketKV)] {
		rep.Problems = append(rep.Problems, "the kv bucket is missing: only the log's writes are kept")
	}
	return err
}

// salvageLog collects the log's writes past rep.Revision into logged,
// going on after each damaged entry with the sound entries that follow
// it, and moves rep.Revision to the last write kept.
func salvageLog(rep *SalvageReport, logged map[string]change) error {
	walPath := rep.Path + WALSuffix
	f, err := os.Open(walPath)
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
	keep := func(c change) error { logged[c.key] = c; return nil }
	res, err := replayWAL(f, st.Size(), rep.Revision, keep)
	for err == nil && res.damage != nil {
		rep.Problems = append(rep.Problems, "write-ahead log "+walPath+": "+res.damage.String())
		res, err = replayFrom(f, st.Size(), res.damage.resume, res.damage.to, keep)
	}
	rep.Revision = res.last
	return err
}
