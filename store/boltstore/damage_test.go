package boltstore

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/kubesim/kubesim/store"
)

// treeFile makes a data file whose kv bucket is a tree of several leaves
// under a branch page: n keys /k/0000… with values of about 100 bytes.
func treeFile(t testing.TB, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(Config{Path: path, UnsafeNoFsync: true})
	require.NoError(t, err)
	for i := range n {
		_, err := s.Create(bg, fmt.Sprintf("/k/%04d", i), []byte(fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, strings.Repeat("x", 80))), store.CreateOptions{})
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	return path
}

// rawFile reads and writes the pages of a closed data file, the way a
// failing disk would damage them, independently of the code under test:
// page offsets come from bbolt itself, element layout from bbolt's source.
type rawFile struct {
	t        testing.TB
	path     string
	pageSize int
}

func openRaw(t testing.TB, path string) rawFile {
	pages, ok, err := readMetaPages(path)
	require.NoError(t, err)
	require.True(t, ok)
	return rawFile{t: t, path: path, pageSize: int(pages[0].pageSize)}
}

// kvRoot is the root page of the kv bucket, as bbolt reports it.
func (r rawFile) kvRoot() uint64 {
	db, err := bolt.Open(r.path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(r.t, err)
	defer db.Close()
	var root uint64
	require.NoError(r.t, db.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket(bucketKV).Root())
		return nil
	}))
	return root
}

func (r rawFile) page(id uint64) []byte {
	f, err := os.Open(r.path)
	require.NoError(r.t, err)
	defer f.Close()
	b := make([]byte, r.pageSize)
	_, err = f.ReadAt(b, int64(id)*int64(r.pageSize))
	require.NoError(r.t, err)
	return b
}

func (r rawFile) put(id uint64, b []byte) {
	f, err := os.OpenFile(r.path, os.O_RDWR, 0)
	require.NoError(r.t, err)
	defer f.Close()
	_, err = f.WriteAt(b, int64(id)*int64(r.pageSize))
	require.NoError(r.t, err)
}

// The header and element fields, in bbolt's layout.
func flagsOf(p []byte) uint16        { return binary.NativeEndian.Uint16(p[8:]) }
func elem(p []byte, i int) []byte    { return p[16+16*i : 32+16*i] }
func childOf(p []byte, i int) uint64 { return binary.NativeEndian.Uint64(elem(p, i)[8:]) }
func setU32(b []byte, v uint32)      { binary.NativeEndian.PutUint32(b, v) }
func setU64(b []byte, v uint64)      { binary.NativeEndian.PutUint64(b, v) }
func leafKey(p []byte, i int) []byte {
	e := elem(p, i)
	pos, ksize := binary.NativeEndian.Uint32(e[4:]), binary.NativeEndian.Uint32(e[8:])
	at := 16 + 16*i + int(pos)
	return p[at : at+int(ksize)]
}

// Damage that bbolt does not check for, as an outside probe found it:
// bbolt panicked in its freelist rebuild (keys out of order) or died with
// SIGSEGV following a page id or a length out of its memory map. Each is
// refused at open, naming the file, the page and the keys it makes
// unreadable, and saying the way out; `store check` reports the same, and
// neither changes the file.
func TestDamagedTreeIsRefusedNotACrash(t *testing.T) {
	cases := map[string]struct {
		damage func(r rawFile, root []byte, rootID uint64)
		want   []string
	}{
		"a key byte made to sort wrongly": {func(r rawFile, root []byte, _ uint64) {
			id := childOf(root, 0)
			leaf := r.page(id)
			k := leafKey(leaf, 2)
			k[len(k)-1] = ' ' // "/k/000 " sorts before "/k/0001"
			r.put(id, leaf)
		}, []string{"element 2's key is not after the key before it", `key "/k/000 " is unreadable`}},
		"a branch element's child page id out of range": {func(r rawFile, root []byte, rootID uint64) {
			setU64(elem(root, 1)[8:], 1<<30)
			r.put(rootID, root)
		}, []string{"page 1073741824", "a page id outside the file's pages", "the keys from /k/00"}},
		"a child page id pointing back at its parent": {func(r rawFile, root []byte, rootID uint64) {
			setU64(elem(root, 1)[8:], rootID)
			r.put(rootID, root)
		}, []string{"is reached twice"}},
		"a leaf value's length past its page": {func(r rawFile, root []byte, _ uint64) {
			id := childOf(root, 0)
			leaf := r.page(id)
			setU32(elem(leaf, 3)[12:], 1<<20)
			r.put(id, leaf)
		}, []string{"element 3's key and value", "lie outside the page's data"}},
		"a record marked as a bucket": {func(r rawFile, root []byte, _ uint64) {
			id := childOf(root, 0)
			leaf := r.page(id)
			elem(leaf, 1)[0] |= bucketLeafFlag
			r.put(id, leaf)
		}, []string{"(bucket /k/0001 in bucket kv): a page id outside the file's pages", "every key of the bucket is unreadable"}},
		"a leaf page's type flags": {func(r rawFile, root []byte, _ uint64) {
			id := childOf(root, 1)
			leaf := r.page(id)
			leaf[8] = 0x08
			r.put(id, leaf)
		}, []string{"its type flags are 0x8, not branch or leaf"}},
		"a branch with no element": {func(r rawFile, root []byte, rootID uint64) {
			root[10], root[11] = 0, 0
			r.put(rootID, root)
		}, []string{"a branch page with no element", "every key of the bucket is unreadable"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := treeFile(t, 300)
			r := openRaw(t, path)
			rootID := r.kvRoot()
			root := r.page(rootID)
			require.Equal(t, uint16(branchPageFlag), flagsOf(root), "the kv bucket is a tree")
			c.damage(r, root, rootID)
			before, err := os.ReadFile(path)
			require.NoError(t, err)

			_, err = Open(Config{Path: path})
			require.Error(t, err)
			assert.True(t, IsDamaged(err), "%v", err)
			msg := err.Error()
			assert.Contains(t, msg, path)
			for _, w := range c.want {
				assert.Contains(t, msg, w)
			}
			assert.Contains(t, msg, "kubesim store check "+filepath.Dir(path))
			assert.Contains(t, msg, "kubesim store export --skip-damaged")

			rep, err := Check(path)
			require.NoError(t, err)
			assert.False(t, rep.OK())
			all := strings.Join(rep.Problems, "\n")
			for _, w := range c.want {
				assert.Contains(t, all, w)
			}
			t.Logf("%s", all)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, before, after, "neither open nor check changes the file")
		})
	}
}

// A file with a written freelist (one created before the store stopped
// writing it, or by bbolt's defaults): a damaged freelist would hand pages
// in use to the next write, so it is refused too; a sound one opens.
func TestDamagedFreelistIsRefused(t *testing.T) {
	path := treeFile(t, 300)
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoFreelistSync: false})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketKV).Delete([]byte("/k/0005"))
	}))
	require.NoError(t, db.Close())
	pages, _, err := readMetaPages(path)
	require.NoError(t, err)
	m, ok := currentMeta(pages)
	require.True(t, ok)
	require.NotEqual(t, noFreelist, m.freelist, "bbolt wrote its freelist")

	s, err := Open(Config{Path: path})
	require.NoError(t, err, "a sound written freelist opens")
	require.NoError(t, s.Close())

	// The store's next commit stops writing the freelist: write one again.
	db, err = bolt.Open(path, 0o600, &bolt.Options{NoFreelistSync: false})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketKV).Delete([]byte("/k/0006"))
	}))
	require.NoError(t, db.Close())
	pages, _, err = readMetaPages(path)
	require.NoError(t, err)
	m, _ = currentMeta(pages)
	r := openRaw(t, path)
	fl := r.page(m.freelist)
	require.Equal(t, uint16(freelistPageFlag), flagsOf(fl))
	require.Positive(t, binary.NativeEndian.Uint16(fl[10:]), "some page is free")
	setU64(fl[16:], r.kvRoot()) // a page in use, listed as free
	r.put(m.freelist, fl)

	_, err = Open(Config{Path: path})
	require.Error(t, err)
	assert.True(t, IsDamaged(err), "%v", err)
	assert.Contains(t, err.Error(), "freelist")
}

// The walk must never refuse a sound file: after a random history of
// creates, updates and deletes (values from a few bytes to several pages,
// checkpoints at random, so that bbolt splits, merges and frees pages), the
// walk finds nothing, every key is visited once in order, and bbolt's own
// check agrees.
func TestSoundFilesPassTheWalk(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(Config{Path: path, UnsafeNoFsync: true, CheckpointInterval: time.Hour, CheckpointWrites: 1 << 30})
	require.NoError(t, err)
	live := map[string]bool{}
	for i := range 4000 {
		key := fmt.Sprintf("/k/%s/%05d", string(rune('a'+rnd.IntN(5))), rnd.IntN(1500))
		size := 1 + rnd.IntN(300)
		if rnd.IntN(40) == 0 {
			size = 4096 + rnd.IntN(20000) // overflow pages
		}
		value := []byte(fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, strings.Repeat("y", size)))
		switch {
		case live[key] && rnd.IntN(3) == 0:
			_, err = s.Delete(bg, key, store.Preconditions{})
			delete(live, key)
		case live[key]:
			_, err = s.Update(bg, key, value, store.Preconditions{})
		default:
			_, err = s.Create(bg, key, value, store.CreateOptions{})
			live[key] = true
		}
		require.NoError(t, err)
		if rnd.IntN(50) == 0 {
			require.NoError(t, s.checkpointNow())
			if rnd.IntN(4) == 0 {
				// Delete a run of keys, so that leaves empty out and merge.
				prefix := fmt.Sprintf("/k/%s/", string(rune('a'+rnd.IntN(5))))
				list, err := s.List(bg, prefix, store.ListOptions{})
				require.NoError(t, err)
				for _, kv := range list.Items[:len(list.Items)/2] {
					_, err := s.Delete(bg, kv.Key, store.Preconditions{})
					require.NoError(t, err)
					delete(live, kv.Key)
				}
				require.NoError(t, s.checkpointNow())
			}
			var seen []string
			res, err := walkFile(path, func(bucket string, k, _ []byte) {
				if bucket == string(bucketKV) {
					seen = append(seen, string(k))
				}
			}, nil)
			require.NoError(t, err)
			require.Empty(t, res.problems, "after write %d", i)
			require.True(t, slices.IsSorted(seen))
			require.Len(t, seen, len(live))
		}
	}
	require.NoError(t, s.Close())
	rep, err := Check(path)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%v", rep.Problems)
	assert.Equal(t, len(live), rep.Keys)
}

// logWith writes n creates as n log entries, none checkpointed, and
// leaves the data directory as a crash would; it returns the file's path
// and the entries' [start, end) offsets.
func logWith(t *testing.T, n int) (string, [][2]int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(noCheckpoint(path))
	require.NoError(t, err)
	for i := range n {
		_, err := s.Create(bg, fmt.Sprintf("/k/%d", i), []byte(fmt.Sprintf(`{"i":%d}`, i)), store.CreateOptions{})
		require.NoError(t, err)
	}
	require.NoError(t, s.crash())
	entries := walEntries(t, path+WALSuffix)
	require.Len(t, entries, n)
	return path, entries
}

func flipAt(t *testing.T, path string, off int64, mask byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	b := make([]byte, 1)
	_, err = f.ReadAt(b, off)
	require.NoError(t, err)
	b[0] ^= mask
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
}

// A damaged entry in the middle of the log's current cycle is not a torn
// tail: the entries after it were acknowledged, so they are not dropped
// without a word. The store refuses to open, naming the log, the offset,
// the revisions lost and what the entry still shows; store check says
// the same; nothing is changed.
func TestDamagedLiveLogEntryIsReported(t *testing.T) {
	cases := map[string]struct {
		off  func(e [2]int64) int64
		mask byte
		want []string
	}{
		"a flipped byte in a value": {func(e [2]int64) int64 { return e[1] - 3 }, 0x10,
			[]string{"revisions 2 to 2 are lost", "as far as they can still be read: /k/1"}},
		"a flipped byte in the length": {func(e [2]int64) int64 { return e[0] + 2 }, 0x40,
			[]string{"revisions 2 to 2 are lost"}},
		"a flipped byte in the checksum": {func(e [2]int64) int64 { return e[0] + 5 }, 0x01,
			[]string{"revisions 2 to 2 are lost"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path, entries := logWith(t, 3)
			flipAt(t, path+WALSuffix, c.off(entries[1]), c.mask)
			before, err := os.ReadFile(path + WALSuffix)
			require.NoError(t, err)

			_, err = Open(Config{Path: path})
			require.Error(t, err, "revisions 2 and 3 were acknowledged: they must not vanish")
			assert.True(t, IsDamaged(err), "%v", err)
			assert.Contains(t, err.Error(), path+WALSuffix)
			assert.Contains(t, err.Error(), fmt.Sprintf("the entry at offset %d is damaged", entries[1][0]))
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Contains(t, err.Error(), "kubesim store export --skip-damaged")

			rep, err := Check(path)
			require.NoError(t, err)
			assert.False(t, rep.OK())
			assert.Contains(t, strings.Join(rep.Problems, "\n"), "revisions 2 to 2 are lost")
			after, err := os.ReadFile(path + WALSuffix)
			require.NoError(t, err)
			assert.Equal(t, before, after)
		})
	}
}

// A damaged length field is checked against the file before anything is
// allocated: a log of a few bytes must not ask for a gigabyte.
func TestDamagedLogLengthAllocatesNothing(t *testing.T) {
	path, entries := logWith(t, 2)
	f, err := os.OpenFile(path+WALSuffix, os.O_RDWR, 0)
	require.NoError(t, err)
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], 1<<30)
	_, err = f.WriteAt(hdr[:], entries[1][0])
	require.NoError(t, err)
	st, err := f.Stat()
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := replayWAL(f, st.Size(), 0, func(change) error { return nil })
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.Equal(t, int64(1), res.last)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16<<20), "allocated for a damaged length")
}
