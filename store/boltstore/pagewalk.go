package boltstore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/kubesim/kubesim/store"
)

// bbolt trusts its data pages: it reads them through a memory map and
// follows every page id, offset and length it finds there without a
// bounds check. A damaged page id points outside the map (a SIGSEGV, which
// no recover can catch), a damaged key order makes its freelist rebuild
// panic in a goroutine of its own, and a damaged length hands out a slice
// that runs past the page. So before bbolt sees a file, treeWalk reads the
// whole tree with ordinary reads and checks everything bbolt relies on;
// only a file that passes is opened.
//
// The layout read here (go.etcd.io/bbolt internal/common, in the
// machine's byte order):
//
//	page header (16 bytes): id u64 | flags u16 | count u16 | overflow u32
//	branch element (16 bytes): pos u32 | ksize u32 | child page id u64
//	leaf element (16 bytes):   flags u32 | pos u32 | ksize u32 | vsize u32
//
// An element's key starts pos bytes after the element itself; a leaf's
// value follows its key. A leaf element whose flags have bit 0 set is a
// bucket: its value is the bucket header (root page id u64 | sequence u64),
// and a root of 0 means the bucket's one leaf page follows the header
// inside the value (an inline bucket). A freelist page holds count page
// ids (u64) after its header, or, when count is 0xFFFF, the real count
// first.
//
// The checks are those of bbolt's own Tx.Check (page types, page ids below
// the high-water mark, each page reached once and never also free, keys
// in order within a page and within the range their parent gives them)
// plus what its reads would otherwise take on trust: every page and every
// key and value inside the file and inside its page, no empty key, a
// branch with at least one child whose key is its child's first key, no
// cycles and a bounded depth.
const (
	branchPageFlag   = 0x01
	leafPageFlag     = 0x02
	freelistPageFlag = 0x10
	bucketLeafFlag   = 0x01
	elementSize      = 16
	bucketHeaderSize = 16
	noFreelist       = ^uint64(0) // the meta page's freelist id when it is not written (NoFreelistSync)
	maxKeySize       = 32768      // bbolt's MaxKeySize
	// maxTreeDepth bounds the pages from the root to a leaf, nested
	// buckets included: a bbolt tree of depth 64 would hold more keys
	// than any disk, so a deeper one is a cycle or damage.
	maxTreeDepth = 64
	// maxProblems bounds what one walk reports of a badly damaged file.
	maxProblems = 200
)

// treeProblem is one fault found in the tree. The keys it makes
// unreadable are those of bucket in [from, to) (nil: unbounded), or the
// one key when key is set; none when lossless is set. bucket is the
// bucket's name as a report shows it ("" for the root bucket).
type treeProblem struct {
	page     uint64
	bucket   string
	what     string
	from, to []byte
	key      []byte
	lossless bool
}

func (p treeProblem) String() string {
	where := "page " + fmt.Sprint(p.page)
	if p.bucket != "" {
		where += " (bucket " + p.bucket + ")"
	}
	switch {
	case p.lossless:
		return fmt.Sprintf("%s: %s", where, p.what)
	case p.key != nil:
		return fmt.Sprintf("%s: %s: key %s is unreadable", where, p.what, store.PrintableKey(string(p.key)))
	case p.bucket == "":
		return fmt.Sprintf("%s: %s: the whole tree below it is unreadable", where, p.what)
	}
	return fmt.Sprintf("%s: %s: %s unreadable", where, p.what, keyRange(p.from, p.to))
}

// keyRange words the keys in [from, to).
func keyRange(from, to []byte) string {
	switch {
	case from == nil && to == nil:
		return "every key of the bucket is"
	case to == nil:
		return "the keys from " + store.PrintableKey(string(from)) + " to the end of the bucket are"
	case from == nil:
		return "the keys before " + store.PrintableKey(string(to)) + " are"
	}
	return "the keys from " + store.PrintableKey(string(from)) + " up to (not including) " + store.PrintableKey(string(to)) + " are"
}

// treeWalk reads the tree of one meta page. Create it with newTreeWalk.
type treeWalk struct {
	r        io.ReaderAt
	size     int64
	pageSize uint64
	hwm      uint64 // the meta page's high-water mark: every page id is below it
	reached  []uint64
	free     []uint64
	problems []treeProblem
	dropped  int // problems beyond maxProblems
	// visit, when set, gets every key and value of the top-level buckets
	// named in only (all when only is nil), in key order, except keys that
	// break the order. The slices are valid during the call only.
	visit func(bucket string, key, value []byte)
	only  map[string]bool
	// buckets are the top-level buckets found.
	buckets map[string]bool
	bufs    [][]byte // one page buffer per depth, reused
}

// newTreeWalk prepares a walk of the tree that meta m describes.
func newTreeWalk(r io.ReaderAt, size int64, m metaPage) *treeWalk {
	w := &treeWalk{r: r, size: size, pageSize: uint64(m.pageSize), hwm: m.hwm, buckets: map[string]bool{}}
	pages := uint64(size) / max(w.pageSize, 1)
	words := (min(m.hwm, pages) + 63) / 64
	w.reached, w.free = make([]uint64, words), make([]uint64, words)
	return w
}

// run walks the freelist, then every bucket from the root, and returns
// what it found.
func (w *treeWalk) run(m metaPage) []treeProblem {
	switch {
	case w.pageSize < 1024 || w.pageSize > 1<<26:
		w.report(treeProblem{what: fmt.Sprintf("the meta page's page size %d is not a bbolt page size", w.pageSize)})
		return w.problems
	case m.hwm < 4:
		w.report(treeProblem{what: fmt.Sprintf("the meta page's high-water mark %d is below the four pages of an empty file", m.hwm)})
		return w.problems
	case m.hwm > uint64(w.size)/w.pageSize:
		w.report(treeProblem{what: fmt.Sprintf("the file holds %d pages, fewer than the %d its meta page counts: it was cut short",
			uint64(w.size)/w.pageSize, m.hwm)})
		return w.problems
	}
	if m.freelist != noFreelist {
		w.freelist(m.freelist)
	}
	if m.root == 0 {
		w.report(treeProblem{what: "the meta page names no root bucket"})
		return w.problems
	}
	w.tree("", m.root, 0, nil, nil, nil)
	return w.problems
}

func (w *treeWalk) report(p treeProblem) {
	if len(w.problems) >= maxProblems {
		w.dropped++
		return
	}
	// The keys point into page buffers that the walk reuses.
	p.from, p.to, p.key = bytes.Clone(p.from), bytes.Clone(p.to), bytes.Clone(p.key)
	w.problems = append(w.problems, p)
}

func bitSet(b []uint64, i uint64) bool { return i/64 < uint64(len(b)) && b[i/64]&(1<<(i%64)) != 0 }
func bitPut(b []uint64, i uint64) {
	if i/64 < uint64(len(b)) {
		b[i/64] |= 1 << (i % 64)
	}
}

// readPage reads page id and its overflow pages, after checking that they
// lie below the high-water mark and inside the file, that the page names
// itself, and that none of them was reached before or is free. why is
// empty when the page is sound.
func (w *treeWalk) readPage(id uint64, depth int, wantFlags ...uint16) (b []byte, why string) {
	if id < 2 || id >= w.hwm {
		return nil, fmt.Sprintf("a page id outside the file's pages [2, %d)", w.hwm)
	}
	var hdr [pageHeaderSize]byte
	if _, err := w.r.ReadAt(hdr[:], int64(id*w.pageSize)); err != nil {
		return nil, fmt.Sprintf("cannot be read: %v", err)
	}
	ne := binary.NativeEndian
	if self := ne.Uint64(hdr[0:]); self != id {
		return nil, fmt.Sprintf("it names itself page %d", self)
	}
	flags, overflow := ne.Uint16(hdr[8:]), uint64(ne.Uint32(hdr[12:]))
	if !contains(wantFlags, flags) {
		return nil, fmt.Sprintf("its type flags are %#x, not %s", flags, flagNames(wantFlags))
	}
	if id+overflow >= w.hwm || (id+overflow+1)*w.pageSize > uint64(w.size) {
		return nil, fmt.Sprintf("it runs over %d more pages, past the end of the file", overflow)
	}
	for i := id; i <= id+overflow; i++ {
		switch {
		case bitSet(w.reached, i):
			return nil, fmt.Sprintf("page %d is reached twice (a cycle, or two parents)", i)
		case bitSet(w.free, i):
			return nil, fmt.Sprintf("page %d is in use and also in the freelist", i)
		}
	}
	for i := id; i <= id+overflow; i++ {
		bitPut(w.reached, i)
	}
	n := (overflow + 1) * w.pageSize
	for len(w.bufs) <= depth {
		w.bufs = append(w.bufs, nil)
	}
	if uint64(cap(w.bufs[depth])) < n {
		w.bufs[depth] = make([]byte, n)
	}
	b = w.bufs[depth][:n]
	if _, err := w.r.ReadAt(b, int64(id*w.pageSize)); err != nil {
		return nil, fmt.Sprintf("cannot be read: %v", err)
	}
	return b, ""
}

func contains(flags []uint16, f uint16) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}

func flagNames(flags []uint16) string {
	var names []string
	for _, f := range flags {
		switch f {
		case branchPageFlag:
			names = append(names, "branch")
		case leafPageFlag:
			names = append(names, "leaf")
		case freelistPageFlag:
			names = append(names, "freelist")
		}
	}
	return strings.Join(names, " or ")
}

// freelist marks the pages the freelist page id lists as free, checking
// that the list fits its page and names each page once, below the
// high-water mark and past the meta pages.
func (w *treeWalk) freelist(id uint64) {
	b, why := w.readPage(id, 0, freelistPageFlag)
	if why != "" {
		w.report(treeProblem{page: id, what: "freelist: " + why, lossless: true})
		return
	}
	ne := binary.NativeEndian
	start, count := uint64(pageHeaderSize), uint64(ne.Uint16(b[10:]))
	if count == 0xFFFF {
		count = ne.Uint64(b[pageHeaderSize:])
		start += 8
	}
	if count > (uint64(len(b))-start)/8 {
		w.report(treeProblem{page: id, what: fmt.Sprintf("freelist: %d page ids do not fit the page", count), lossless: true})
		return
	}
	prev := uint64(0)
	for i := uint64(0); i < count; i++ {
		p := ne.Uint64(b[start+8*i:])
		if p < 2 || p >= w.hwm || (i > 0 && p <= prev) || bitSet(w.reached, p) {
			w.report(treeProblem{page: id, what: fmt.Sprintf("freelist: entry %d (page %d) is out of order, out of range or in use", i, p), lossless: true})
			return
		}
		bitPut(w.free, p)
		prev = p
	}
}

// element is one entry of a branch or leaf page, its key and value (a
// leaf's) bounded to the page.
type element struct {
	flags uint32
	child uint64
	key   []byte
	value []byte
}

// elements parses the count elements of the page in b. Each key and value
// must lie in the page, after the element headers.
func elements(b []byte, leaf bool, out []element) ([]element, string) {
	ne := binary.NativeEndian
	count := uint64(ne.Uint16(b[10:]))
	data := pageHeaderSize + count*elementSize
	if data > uint64(len(b)) {
		return out, fmt.Sprintf("%d elements do not fit the page", count)
	}
	if !leaf && count == 0 {
		return out, "a branch page with no element"
	}
	for i := uint64(0); i < count; i++ {
		at := pageHeaderSize + i*elementSize
		e := b[at : at+elementSize]
		var pos, ksize, vsize uint64
		var el element
		if leaf {
			el.flags = ne.Uint32(e[0:])
			pos, ksize, vsize = uint64(ne.Uint32(e[4:])), uint64(ne.Uint32(e[8:])), uint64(ne.Uint32(e[12:]))
		} else {
			pos, ksize = uint64(ne.Uint32(e[0:])), uint64(ne.Uint32(e[4:]))
			el.child = ne.Uint64(e[8:])
		}
		start := at + pos
		end := start + ksize + vsize
		switch {
		case ksize == 0:
			return out, fmt.Sprintf("element %d has an empty key", i)
		case ksize > maxKeySize:
			return out, fmt.Sprintf("element %d has a key of %d bytes, more than bbolt allows", i, ksize)
		case start < data || end > uint64(len(b)):
			return out, fmt.Sprintf("element %d's key and value (%d bytes at offset %d) lie outside the page's data", i, ksize+vsize, start)
		}
		el.key = b[start : start+ksize]
		el.value = b[start+ksize : end]
		out = append(out, el)
	}
	return out, ""
}

// tree walks the page tree rooted at id, of the bucket shown as bucket
// (the root bucket is ""; path is the bucket's names from the root, the
// bucket's own last), whose keys must lie in
// [lo, hi). It returns the subtree's first key, and false when the page
// itself is unreadable (the parent reports the keys lost).
func (w *treeWalk) tree(bucket string, id uint64, depth int, path []string, lo, hi []byte) ([]byte, bool) {
	if depth > maxTreeDepth {
		w.report(treeProblem{page: id, bucket: bucket, what: fmt.Sprintf("the tree is deeper than %d pages (a cycle?)", maxTreeDepth), from: lo, to: hi})
		return nil, false
	}
	b, why := w.readPage(id, depth, branchPageFlag, leafPageFlag)
	if why != "" {
		w.report(treeProblem{page: id, bucket: bucket, what: why, from: lo, to: hi})
		return nil, false
	}
	leaf := binary.NativeEndian.Uint16(b[8:]) == leafPageFlag
	return w.page(bucket, id, b, leaf, depth, path, lo, hi)
}

// page checks the elements of one page (b, read from page id, or the page
// inside an inline bucket's value) and descends into its children.
func (w *treeWalk) page(bucket string, id uint64, b []byte, leaf bool, depth int, path []string, lo, hi []byte) ([]byte, bool) {
	els, why := elements(b, leaf, nil)
	if why != "" {
		w.report(treeProblem{page: id, bucket: bucket, what: why, from: lo, to: hi})
		return nil, false
	}
	var first, prev []byte
	for i, el := range els {
		next := hi
		if !leaf && i+1 < len(els) {
			next = els[i+1].key
		}
		switch {
		case prev != nil && bytes.Compare(el.key, prev) <= 0:
			w.report(treeProblem{page: id, bucket: bucket, key: el.key, what: fmt.Sprintf("element %d's key is not after the key before it (%s)", i, store.PrintableKey(string(prev)))})
			continue
		case lo != nil && bytes.Compare(el.key, lo) < 0, hi != nil && bytes.Compare(el.key, hi) >= 0:
			w.report(treeProblem{page: id, bucket: bucket, key: el.key, what: fmt.Sprintf("element %d's key lies outside the range its parent page gives", i)})
			continue
		}
		prev = el.key
		if first == nil {
			first = el.key
		}
		if !leaf {
			childFirst, ok := w.tree(bucket, el.child, depth+1, path, el.key, next)
			if ok && !bytes.Equal(childFirst, el.key) {
				w.report(treeProblem{page: id, bucket: bucket, from: el.key, to: next,
					what: fmt.Sprintf("element %d's key is not the first key of its child page %d (%s)", i, el.child, store.PrintableKey(string(childFirst)))})
			}
			continue
		}
		if el.flags&bucketLeafFlag != 0 {
			w.bucket(bucket, id, el, depth, path)
			continue
		}
		if w.visit != nil && len(path) == 1 && (w.only == nil || w.only[path[0]]) {
			w.visit(path[0], el.key, el.value)
		}
	}
	return first, true
}

// bucket checks a bucket entry of page id and walks the bucket: its root
// page, or the page inline in its value.
func (w *treeWalk) bucket(parent string, id uint64, el element, depth int, path []string) {
	name := string(el.key)
	sub := append(path[:len(path):len(path)], name)
	shown := store.PrintableKey(name)
	if parent != "" {
		shown += " in bucket " + parent
	}
	if len(path) == 0 {
		w.buckets[name] = true
		if w.only != nil && !w.only[name] {
			return // not asked for; its pages are neither read nor counted
		}
	}
	if len(el.value) < bucketHeaderSize {
		w.report(treeProblem{page: id, bucket: parent, key: el.key, what: "a bucket entry too short for a bucket header"})
		return
	}
	root := binary.NativeEndian.Uint64(el.value)
	if root != 0 {
		w.tree(shown, root, depth+1, sub, nil, nil)
		return
	}
	inline := el.value[bucketHeaderSize:]
	switch {
	case len(inline) < pageHeaderSize:
		w.report(treeProblem{page: id, bucket: shown, what: "an inline bucket too short for its page"})
	case binary.NativeEndian.Uint16(inline[8:]) != leafPageFlag:
		w.report(treeProblem{page: id, bucket: shown, what: "an inline bucket whose page is not a leaf"})
	default:
		// bbolt makes a bucket inline only when it holds no bucket.
		for _, child := range mustElements(inline) {
			if child.flags&bucketLeafFlag != 0 {
				w.report(treeProblem{page: id, bucket: shown, what: "an inline bucket holding a bucket"})
				return
			}
		}
		w.page(shown, id, inline, true, depth+1, sub, nil, nil)
	}
}

// mustElements is elements for a page whose bounds page checks anyway.
func mustElements(b []byte) []element {
	els, _ := elements(b, true, nil)
	return els
}
