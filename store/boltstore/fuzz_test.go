package boltstore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
)

// fuzzFlip is the size of one flip in FuzzDamagedDataFile's input: which
// file (the low bit of byte 0: the data file or the log), where (bytes
// 1-3, taken modulo the file's size) and the mask XORed there (byte 4).
const fuzzFlip = 5

// maxFuzzFlips bounds the flips of one input, as the probe that found
// the crashes used at most 64.
const maxFuzzFlips = 64

// fuzzDataDir makes the data directory every input damages: a kv bucket
// of several levels of pages, values that span pages, pages freed by
// deletes, and writes in the log only (a crash before their checkpoint).
func fuzzDataDir(t testing.TB) (db, wal []byte) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	s, err := Open(Config{Path: path, UnsafeNoFsync: true})
	require.NoError(t, err)
	for i := range 240 {
		pad := strings.Repeat("p", 40+i%90)
		if i%60 == 7 {
			pad = strings.Repeat("P", 6000) // an overflow page
		}
		_, err := s.Create(bg, fmt.Sprintf("/registry/pods/ns%d/pod-%03d", i%3, i), []byte(fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, pad)), store.CreateOptions{UID: fmt.Sprintf("uid-%d", i)})
		require.NoError(t, err)
	}
	for i := 0; i < 240; i += 7 {
		_, err := s.Delete(bg, fmt.Sprintf("/registry/pods/ns%d/pod-%03d", i%3, i), store.Preconditions{})
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	s, err = Open(noCheckpoint(path))
	require.NoError(t, err)
	for i := range 12 { // keys 3, 10, 17, …: none deleted above
		_, err := s.Update(bg, fmt.Sprintf("/registry/pods/ns%d/pod-%03d", (i*7+3)%3, i*7+3), []byte(fmt.Sprintf(`{"logged":%d}`, i)), store.Preconditions{})
		require.NoError(t, err)
	}
	require.NoError(t, s.crash())
	db, err = os.ReadFile(path)
	require.NoError(t, err)
	wal, err = os.ReadFile(path + WALSuffix)
	require.NoError(t, err)
	return db, wal
}

// randomFlips is an input of n flips drawn from seed, over both files.
func randomFlips(seed uint64, n int) []byte {
	rnd := rand.New(rand.NewPCG(seed, 0x6b756265))
	in := make([]byte, 0, n*fuzzFlip)
	for range n {
		in = append(in, byte(rnd.IntN(4)/3), byte(rnd.Uint32()), byte(rnd.Uint32()), byte(rnd.Uint32()), byte(1+rnd.IntN(255)))
	}
	return in
}

// flip applies the input's flips to copies of db and wal.
func applyFlips(in, db, wal []byte) ([]byte, []byte) {
	db, wal = slices.Clone(db), slices.Clone(wal)
	for n := 0; len(in) >= fuzzFlip && n < maxFuzzFlips; n++ {
		target := db
		if in[0]&1 == 1 && len(wal) > 0 {
			target = wal
		}
		off := int(uint32(in[1])<<16|uint32(in[2])<<8|uint32(in[3])) % len(target)
		target[off] ^= in[4]
		in = in[fuzzFlip:]
	}
	return db, wal
}

// FuzzDamagedDataFile damages a data directory with up to 64 byte flips
// in the data file and its write-ahead log, and requires that nothing
// crashes: Check (`kubesim store check`), Salvage (`store export
// --skip-damaged`), and Open (`serve`), which either refuses the file or
// opens one that bbolt can serve: every read, writes, a checkpoint, and a
// reopen. A damaged file refused only by bbolt itself failing on it
// (withFaultsAsErrors catching a panic or a memory fault) fails the test
// too: the walk before bbolt must have refused it.
//
// The seed corpus (flips in page headers and log fields, and random sets
// of 64 flips) runs
// in every `go test`; `make test` also fuzzes it for a bounded time.
func FuzzDamagedDataFile(f *testing.F) {
	db, wal := fuzzDataDir(f)
	pages, _, err := readMetaPages(writeTemp(f, db, wal))
	require.NoError(f, err)
	pageSize := int(pages[0].pageSize)
	at := func(file byte, off int, mask byte) []byte {
		return []byte{file, byte(off >> 16), byte(off >> 8), byte(off), mask}
	}
	// Flips in the page headers (id, flags, count, overflow) and the
	// first elements (positions, sizes, child ids), spread over the pages.
	offsets := []int{0, 4, 8, 10, 12, 16 + 4, 16 + 8, 16 + 12, 32 + 8, 32 + 13}
	for i, p := 0, 2; p*pageSize < len(db); i, p = i+1, p+3 {
		f.Add(at(0, p*pageSize+offsets[i%len(offsets)], 0x40))
	}
	// Flips in the log: a length, a checksum, a revision, a value.
	for _, o := range []int{1, 5, 9, 20, 40, 100, 300} {
		f.Add(at(1, o, 0x08))
	}
	for seed := range uint64(6) {
		f.Add(randomFlips(seed, maxFuzzFlips))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d, w := applyFlips(in, db, wal)
		_ = exerciseDamaged(t, writeTemp(t, d, w))
	})
}

func writeTemp(t testing.TB, db, wal []byte) string {
	path := filepath.Join(t.TempDir(), FileName)
	require.NoError(t, os.WriteFile(path, db, 0o600))
	require.NoError(t, os.WriteFile(path+WALSuffix, wal, 0o600))
	return path
}

// exerciseDamaged is what no damage may crash. It reports whether the
// store opened the file.
func exerciseDamaged(t *testing.T, path string) bool {
	if _, err := Check(path); err != nil {
		assertNotCaught(t, err)
	}
	last := ""
	_, err := Salvage(path, func(int64) error { return nil }, func(kv store.KeyValue) error {
		if kv.Key <= last {
			t.Fatalf("salvage: key %q after %q", kv.Key, last)
		}
		last = kv.Key
		return nil
	})
	if err != nil {
		assertNotCaught(t, err)
	}

	s, err := Open(Config{Path: path, UnsafeNoFsync: true, OpenTimeout: 100 * time.Millisecond})
	if err != nil {
		assertNotCaught(t, err)
		return false
	}
	list, err := s.List(bg, "/", store.ListOptions{})
	require.NoError(t, err)
	for _, kv := range list.Items {
		_, err := s.Get(bg, kv.Key)
		require.NoError(t, err)
	}
	// Writes over whatever is there: a damaged record is rewritten, or
	// deleted; the checkpoint makes bbolt rewrite the pages it touches.
	for i, kv := range list.Items {
		if i%3 == 0 {
			_, err = s.Update(bg, kv.Key, []byte(`{"rewritten":true}`), store.Preconditions{})
		} else if i%3 == 1 {
			_, err = s.Delete(bg, kv.Key, store.Preconditions{})
		}
		require.NoError(t, err)
	}
	_, err = s.Create(bg, "/registry/pods/ns9/fresh", []byte(`{}`), store.CreateOptions{})
	if err != nil && !store.IsKeyExists(err) {
		t.Fatal(err)
	}
	require.NoError(t, s.checkpointNow())
	require.NoError(t, s.Close())
	// What the store wrote over a file that passed the walk passes it
	// again.
	s, err = Open(Config{Path: path, UnsafeNoFsync: true})
	require.NoError(t, err, "the store's own writes damaged the file")
	require.NoError(t, s.Close())
	return true
}

// assertNotCaught fails when bbolt itself failed on the file: the walk
// before it should have refused the file.
func assertNotCaught(t *testing.T, err error) {
	t.Helper()
	var d *DamageError
	if errors.As(err, &d) && d.caught {
		t.Fatalf("bbolt failed on a file the walk let through: %v", err)
	}
}

// The flips that an outside probe used, in the same number: 64 random
// byte flips, many times over, never crash the store, check or salvage.
// (The fuzz test runs the same code on inputs it makes up.)
func TestRandomFlipsNeverCrash(t *testing.T) {
	db, wal := fuzzDataDir(t)
	refused, opened := 0, 0
	for seed := range uint64(24) {
		d, w := applyFlips(randomFlips(1000+seed, maxFuzzFlips), db, wal)
		if exerciseDamaged(t, writeTemp(t, d, w)) {
			opened++
		} else {
			refused++
		}
	}
	t.Logf("24 files with 64 flips each: %d refused, %d opened (damage in values or free pages only), none crashed", refused, opened)
	require.Positive(t, refused)
}
