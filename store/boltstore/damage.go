package boltstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DamageError is a data file, or its write-ahead log, damaged where bbolt
// would crash on it (a page id out of range, keys out of order, a length
// that runs past its page) or where opening it would lose acknowledged
// writes without a word. The store refuses to open it; Problems name
// each place and what it makes unreadable, and the message says the way
// out, which `kubesim store check` and `kubesim store export
// --skip-damaged` give.
type DamageError struct {
	// Path is the bbolt file.
	Path string
	// Problems name each fault: the page or the log offset, and the keys
	// or revisions it makes unreadable.
	Problems []string
	// caught says that no check before bbolt found the damage, and bbolt
	// itself failed on it (a panic, or a memory fault turned into one).
	caught bool
}

func (e *DamageError) Error() string {
	dir := filepath.Dir(e.Path)
	shown := e.Problems[:min(3, len(e.Problems))]
	msg := fmt.Sprintf("data file %s is damaged: %s", e.Path, strings.Join(shown, "; "))
	if more := len(e.Problems) - len(shown); more > 0 {
		msg += fmt.Sprintf(" (and %d more)", more)
	}
	return msg + fmt.Sprintf("; `kubesim store check %s` lists what is lost; "+
		"`kubesim store export --skip-damaged %s FILE` saves every readable key, and "+
		"`kubesim store import FILE NEW_DATA_DIR` makes a sound data directory of them", dir, dir)
}

// IsDamaged reports whether err is a DamageError.
func IsDamaged(err error) bool {
	var d *DamageError
	return errors.As(err, &d)
}

// currentMeta is the meta page bbolt opens the file at: the valid one with
// the higher transaction id (go.etcd.io/bbolt db.go, DB.meta).
func currentMeta(pages [2]metaPage) (metaPage, bool) {
	a, b := pages[0], pages[1]
	if b.txid > a.txid {
		a, b = b, a
	}
	switch {
	case a.valid:
		return a, true
	case b.valid:
		return b, true
	}
	return metaPage{}, false
}

// walkResult is what walkFile found.
type walkResult struct {
	// problems name each fault found, with what it makes unreadable.
	problems []string
	// buckets are the top-level buckets found.
	buckets map[string]bool
}

// walkFile walks the tree of the file at path as bbolt would open it,
// with ordinary reads, and returns what is wrong with it (nothing for a
// new or empty file). visit and only are treeWalk's. The caller holds the
// file's lock.
func walkFile(path string, visit func(bucket string, key, value []byte), only map[string]bool) (walkResult, error) {
	var res walkResult
	pages, ok, err := readMetaPages(path)
	if err != nil || !ok {
		return res, err
	}
	m, ok := currentMeta(pages)
	if !ok {
		res.problems = []string{"both meta pages are damaged"}
		return res, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return res, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return res, err
	}
	w := newTreeWalk(f, st.Size(), m)
	w.visit, w.only = visit, only
	for _, p := range w.run(m) {
		res.problems = append(res.problems, p.String())
	}
	if w.dropped > 0 {
		res.problems = append(res.problems, fmt.Sprintf("%d more problems not listed", w.dropped))
	}
	res.buckets = w.buckets
	return res, nil
}

// checkStructure refuses a file whose tree bbolt cannot be trusted with.
// It holds a shared lock on the file (a read-only bbolt open, which reads
// the meta pages only) while it reads, so that another process's writes
// are never taken for damage: that process's lock makes it fail, naming
// the file, as the read-write open would.
func checkStructure(path string, timeout time.Duration) error {
	if _, ok, err := readMetaPages(path); err != nil || !ok {
		return err
	}
	var res walkResult
	err := withFaultsAsErrors(path, func() error {
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: timeout})
		if err != nil {
			return lockError(path, err)
		}
		defer db.Close()
		res, err = walkFile(path, nil, nil)
		return err
	})
	if err != nil {
		return err
	}
	if len(res.problems) > 0 {
		return &DamageError{Path: path, Problems: res.problems}
	}
	return nil
}

// withFaultsAsErrors runs fn, which reads the file at path through bbolt,
// so that a panic in it, or a memory fault (a read through a damaged
// pointer into bbolt's memory map, which would otherwise end the process
// with SIGSEGV or SIGBUS), becomes a DamageError. It is the second line:
// checkStructure is meant to refuse every file on which bbolt could fail,
// and the fuzz test FuzzDamagedDataFile fails if this ever catches
// anything. It covers fn's goroutine only; bbolt's own goroutines (Check,
// the freelist rebuild) are covered by checkStructure alone.
//
// After a fault bbolt's handle may hold its locks, so fn must not be
// trusted to have closed it: the error is returned and the handle left.
func withFaultsAsErrors(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = &DamageError{Path: path, caught: true,
				Problems: []string{fmt.Sprintf("bbolt failed reading it: %v", r)}}
		}
	}()
	return fn()
}
