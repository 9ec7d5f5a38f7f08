package boltstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt keeps two meta pages, 0 and 1, and writes them in turn (a
// transaction's meta goes to page txid%2). Each is checksummed. On open
// bbolt takes the valid one with the higher transaction id, so a damaged
// newer meta page silently rolls the file back to the transaction before
// it: an acknowledged write disappears without a word. checkMetaPages
// reads both pages before bbolt does and refuses that case.
//
// The layout read here (go.etcd.io/bbolt internal/common: page and meta,
// in the machine's byte order, as bbolt writes its structs):
//
//	page header (16 bytes): id u64 | flags u16 | count u16 | overflow u32
//	meta: magic u32 | version u32 | pageSize u32 | flags u32 |
//	      root bucket (root u64, sequence u64) | freelist u64 | pgid u64 |
//	      txid u64 | checksum u64   (FNV-64a of the meta before checksum)
const (
	pageHeaderSize = 16
	metaMagic      = 0xED0CDAED
	metaVersion    = 2
	metaSumOffset  = 56 // bytes of meta covered by the checksum
)

// metaPage is what one meta page says of itself.
type metaPage struct {
	index    int
	valid    bool
	why      string // why it is not valid
	txid     uint64
	pageSize uint32
	root     uint64 // the root bucket's page
	freelist uint64 // the freelist's page, or noFreelist
	hwm      uint64 // the high-water mark: the number of pages in use
}

func readMeta(buf []byte, index int) metaPage {
	m := metaPage{index: index}
	if len(buf) < pageHeaderSize+metaSumOffset+8 {
		m.why = "the file is too short"
		return m
	}
	meta := buf[pageHeaderSize:]
	le := binary.NativeEndian // bbolt writes its structs as they are in memory
	m.txid = le.Uint64(meta[48:])
	m.pageSize = le.Uint32(meta[8:])
	m.root = le.Uint64(meta[16:])
	m.freelist = le.Uint64(meta[32:])
	m.hwm = le.Uint64(meta[40:])
	h := fnv.New64a()
	h.Write(meta[:metaSumOffset])
	switch {
	case le.Uint32(meta[0:]) != metaMagic:
		m.why = "bad magic number"
	case le.Uint32(meta[4:]) != metaVersion:
		m.why = fmt.Sprintf("unknown version %d", le.Uint32(meta[4:]))
	case le.Uint64(meta[metaSumOffset:]) != h.Sum64():
		m.why = "checksum mismatch"
	default:
		m.valid = true
	}
	return m
}

// readMetaPages reads the two meta pages of the bbolt file at path; ok is
// false for a new or empty file.
func readMetaPages(path string) (pages [2]metaPage, ok bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return pages, false, nil
	}
	if err != nil {
		return pages, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return pages, false, err
	}
	// Page 0 tells the page size; if it is damaged, try the common sizes
	// for page 1.
	first := make([]byte, 4096)
	n, err := io.ReadFull(f, first)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return pages, false, err
	}
	pages[0] = readMeta(first[:n], 0)
	sizes := []int64{int64(os.Getpagesize()), 4096, 16384, 65536}
	if pages[0].valid {
		sizes = []int64{int64(pages[0].pageSize)}
	}
	for _, size := range sizes {
		buf := make([]byte, pageHeaderSize+metaSumOffset+8)
		if _, err := f.ReadAt(buf, size); err != nil && !errors.Is(err, io.EOF) {
			return pages, false, err
		}
		pages[1] = readMeta(buf, 1)
		if pages[1].valid {
			break
		}
	}
	return pages, true, nil
}

// checkMetaPages refuses a file whose damaged meta page is newer than the
// valid one (opening it would lose the last commit), or whose two meta
// pages are both damaged. A damaged older meta page loses nothing: bbolt
// uses the newer one and rewrites the other at the next commit.
func checkMetaPages(path string) error {
	pages, ok, err := readMetaPages(path)
	if err != nil || !ok {
		return err
	}
	good, bad := pages[0], pages[1]
	if !good.valid {
		good, bad = bad, good
	}
	switch {
	case !good.valid:
		return fmt.Errorf("data file %s is corrupt: both meta pages are damaged (page 0: %s; page 1: %s); restore the data directory from a copy",
			path, pages[0].why, pages[1].why)
	case bad.valid:
		return nil
	case bad.why == "checksum mismatch" && bad.txid < good.txid:
		return nil // an older meta page, replaced at the next commit
	}
	return fmt.Errorf("data file %s is damaged: meta page %d (%s) may hold the last committed transaction, "+
		"and opening the file would silently fall back to meta page %d (transaction %d), losing that commit; "+
		"restore the data directory from a copy, or accept the loss with `kubesim store check --accept-meta-rollback %s`",
		path, bad.index, bad.why, good.index, good.txid, path)
}

// AcceptMetaRollback rewrites the damaged meta page of the file at path
// with a copy of the valid one, so that bbolt opens the file at the older
// transaction: the damaged page's commit is given up, knowingly. It does
// nothing to a file whose meta pages are both valid.
func AcceptMetaRollback(path string) error {
	pages, ok, err := readMetaPages(path)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s is empty or missing", path)
	}
	good, bad := pages[0], pages[1]
	if !good.valid {
		good, bad = bad, good
	}
	if !good.valid {
		return fmt.Errorf("%s: both meta pages are damaged; nothing to roll back to", path)
	}
	if bad.valid {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	size := int64(good.pageSize)
	page := make([]byte, size)
	if _, err := f.ReadAt(page, int64(good.index)*size); err != nil {
		return err
	}
	// The copy keeps the older transaction id, so bbolt still prefers the
	// good page; only the page id in the header changes.
	binary.NativeEndian.PutUint64(page[0:], uint64(bad.index))
	if _, err := f.WriteAt(page, int64(bad.index)*size); err != nil {
		return err
	}
	return f.Sync()
}
