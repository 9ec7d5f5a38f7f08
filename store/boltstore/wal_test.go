package boltstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/kubesim/kubesim/store"
)

// noCheckpoint keeps every acknowledged write in the log only.
func noCheckpoint(path string) Config {
	return Config{Path: path, CheckpointInterval: time.Hour, CheckpointWrites: 1 << 30}
}

// fileRevision is the revision the bbolt file alone holds.
func fileRevision(t *testing.T, path string) int64 {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer db.Close()
	var rev int64
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		rev, _ = decodeRevForTest(tx.Bucket(bucketMeta).Get(keyRevision))
		return nil
	}))
	return rev
}

func decodeRevForTest(b []byte) (int64, bool) {
	if len(b) != 8 {
		return 0, false
	}
	var r int64
	for _, c := range b {
		r = r<<8 | int64(c)
	}
	return r, true
}

// A crash after the acknowledgements and before any checkpoint: the bbolt
// file has none of the writes, the log has them all; the reopened store
// has every one with its revision, and goes on from the last revision.
func TestAcknowledgedWritesSurviveACrashBeforeTheCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(noCheckpoint(path))
	require.NoError(t, err)
	want := map[string]store.KeyValue{}
	for i := range 30 {
		k := "/k/" + strconv.Itoa(i%10)
		var kv store.KeyValue
		switch {
		case i < 10:
			kv, err = s.Create(bg, k, []byte("v"+strconv.Itoa(i)), store.CreateOptions{UID: "u" + k})
		case i < 25:
			kv, err = s.Update(bg, k, []byte("v"+strconv.Itoa(i)), store.Preconditions{})
		default:
			_, err = s.Delete(bg, k, store.Preconditions{})
		}
		require.NoError(t, err)
		if i >= 25 {
			delete(want, k)
		} else {
			want[k] = kv
		}
	}
	rev := s.Revision()
	require.NoError(t, s.crash())
	require.Zero(t, fileRevision(t, path), "no checkpoint ran: only the log has the writes")

	s, err = Open(Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, rev, s.Revision())
	res, err := s.List(bg, "/k/", store.ListOptions{})
	require.NoError(t, err)
	got := map[string]store.KeyValue{}
	for _, kv := range res.Items {
		got[kv.Key] = kv
	}
	assert.Equal(t, want, got)
	assert.Equal(t, rev, fileRevision2(t, s), "the replay is committed to the file at open")
	kv, err := s.Create(bg, "/after", []byte("v"), store.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, rev+1, kv.ModRevision, "no revision is reused")
}

// fileRevision2 reads the counter of an open store's bbolt file.
func fileRevision2(t *testing.T, s *Store) int64 {
	var rev int64
	require.NoError(t, s.db.View(func(tx *bolt.Tx) error {
		rev, _ = decodeRevForTest(tx.Bucket(bucketMeta).Get(keyRevision))
		return nil
	}))
	return rev
}

// A torn last entry (a crash in the middle of its write, or bytes that do
// not match its checksum) was never acknowledged: the reopened store has
// every earlier write and nothing of that entry.
func TestTornLogTailIsNotApplied(t *testing.T) {
	tears := map[string]func(t *testing.T, wal string, start, end int64){
		"cut in the middle": func(t *testing.T, wal string, start, end int64) {
			require.NoError(t, os.Truncate(wal, start+(end-start)/2))
		},
		"cut after the header": func(t *testing.T, wal string, start, end int64) {
			require.NoError(t, os.Truncate(wal, start+walHeaderSize))
		},
		"a flipped byte": func(t *testing.T, wal string, start, end int64) {
			f, err := os.OpenFile(wal, os.O_RDWR, 0)
			require.NoError(t, err)
			defer f.Close()
			b := make([]byte, 1)
			_, err = f.ReadAt(b, end-3)
			require.NoError(t, err)
			b[0] ^= 0x10
			_, err = f.WriteAt(b, end-3)
			require.NoError(t, err)
		},
	}
	for name, tear := range tears {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			cfg := noCheckpoint(path)
			var hold sync.Mutex
			entered := make(chan struct{}, 1)
			cfg.beforeCommit = func() error {
				select {
				case entered <- struct{}{}:
				default:
				}
				hold.Lock()
				defer hold.Unlock()
				return nil
			}
			s, err := Open(cfg)
			require.NoError(t, err)
			for i := range 5 {
				_, err := s.Create(bg, "/k/"+strconv.Itoa(i), []byte(`{"i":`+strconv.Itoa(i)+`}`), store.CreateOptions{})
				require.NoError(t, err)
			}
			// The last entry: an update and a create in one batch,
			// queued while the commit loop is held in the batch before.
			select {
			case <-entered:
			default:
			}
			hold.Lock()
			var wg sync.WaitGroup
			wg.Add(3)
			go func() {
				defer wg.Done()
				_, err := s.Create(bg, "/k/gate", []byte(`{}`), store.CreateOptions{})
				assert.NoError(t, err)
			}()
			<-entered
			go func() {
				defer wg.Done()
				_, err := s.Update(bg, "/k/0", []byte(`{"i":"torn"}`), store.Preconditions{})
				assert.NoError(t, err)
			}()
			go func() {
				defer wg.Done()
				_, err := s.Create(bg, "/k/torn", []byte(`{}`), store.CreateOptions{})
				assert.NoError(t, err)
			}()
			for len(s.ops) < 2 {
				time.Sleep(time.Millisecond) // wait for both to be queued
			}
			hold.Unlock()
			wg.Wait()
			require.Equal(t, int64(8), s.Revision())
			require.NoError(t, s.crash())
			entries := walEntries(t, path+WALSuffix)
			require.Len(t, entries, 7, "5 creates, the gate, and the last batch as one entry")
			last := entries[len(entries)-1]
			tear(t, path+WALSuffix, last[0], last[1])

			s, err = Open(Config{Path: path})
			require.NoError(t, err)
			defer s.Close()
			assert.Equal(t, int64(6), s.Revision(), "nothing of the torn entry")
			kv, err := s.Get(bg, "/k/0")
			require.NoError(t, err)
			assert.Equal(t, `{"i":0}`, string(kv.Value), "the torn update is not applied")
			_, err = s.Get(bg, "/k/torn")
			assert.True(t, store.IsNotFound(err), "the torn create is not applied: %v", err)
			for i := range 5 {
				kv, err := s.Get(bg, "/k/"+strconv.Itoa(i))
				require.NoError(t, err)
				assert.Equal(t, int64(i+1), kv.ModRevision)
			}
			kv, err = s.Get(bg, "/k/gate")
			require.NoError(t, err)
			assert.Equal(t, int64(6), kv.ModRevision)
			kv, err = s.Create(bg, "/k/next", []byte(`{}`), store.CreateOptions{})
			require.NoError(t, err)
			assert.Equal(t, int64(7), kv.ModRevision, "the torn entry's revisions are taken again")
		})
	}
}

// walEntries lists the [start, end) offsets of the log's whole entries.
func walEntries(t *testing.T, path string) [][2]int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out [][2]int64
	for off := int64(0); off+walHeaderSize <= int64(len(b)); {
		n := int64(binary.BigEndian.Uint32(b[off:]))
		end := off + walHeaderSize + n
		if n == 0 || end > int64(len(b)) || crc32c(b[off+walHeaderSize:end]) != binary.BigEndian.Uint32(b[off+4:]) {
			break
		}
		out = append(out, [2]int64{off, end})
		off = end
	}
	return out
}

// The log is written from its start again after each checkpoint: what
// follows the current cycle's entries is an earlier cycle's, and is never
// applied, even when it lines up exactly on an entry boundary and would
// bring back a deleted key.
func TestStaleEntriesOfAnEarlierCycleAreNotReplayed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	w, err := openWAL(path, false)
	require.NoError(t, err)
	put := func(key string, rev int64, value string) change {
		return change{key: key, rec: record{createRev: rev, modRev: rev, value: []byte(value)}}
	}
	// Cycle 1: rev 1 puts /a (empty value), rev 2 puts /b "old".
	require.NoError(t, w.appendBatch([]change{put("/a", 1, "")}))
	first := w.off
	require.NoError(t, w.appendBatch([]change{put("/b", 2, "old")}))
	// Checkpoint at 2, cycle 2: rev 3 deletes /b, an entry exactly as
	// long as cycle 1's first, so the stale "put /b" follows intact.
	w.reset()
	require.NoError(t, w.appendBatch([]change{{key: "/b", rec: record{modRev: 3}, deleted: true}}))
	require.Equal(t, first, w.off, "the test needs the entries to line up")
	require.NoError(t, w.close(false))

	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	replayed := func(base int64) []change {
		var got []change
		st, err := f.Stat()
		require.NoError(t, err)
		res, err := replayWAL(f, st.Size(), base, func(c change) error { got = append(got, c); return nil })
		last := res.last
		require.NoError(t, err)
		if len(got) > 0 {
			assert.Equal(t, got[len(got)-1].rec.modRev, last)
		} else {
			assert.Equal(t, base, last)
		}
		return got
	}
	got := replayed(2)
	require.Len(t, got, 1, "only the current cycle: %+v", got)
	assert.Equal(t, int64(3), got[0].rec.modRev)
	assert.True(t, got[0].deleted)
	assert.Empty(t, replayed(3), "everything is in the file already")
	// A gap in the revisions ends a replay too.
	assert.Empty(t, replayed(1), "the file at 1 cannot continue with 3")
}

// A failed checkpoint (here an injected error; a full disk in life) loses
// nothing: reads still see every write, the log still has them for a
// crash, and the next checkpoint commits them.
func TestFailedCheckpointKeepsTheWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var fail sync.Mutex
	failing := true
	cfg := noCheckpoint(path)
	cfg.beforeCheckpoint = func() error {
		fail.Lock()
		defer fail.Unlock()
		if failing {
			return errors.New("injected I/O error")
		}
		return nil
	}
	s, err := Open(cfg)
	require.NoError(t, err)
	a, err := s.Create(bg, "/a", []byte("1"), store.CreateOptions{})
	require.NoError(t, err)
	require.ErrorContains(t, s.checkpointNow(), "injected I/O error")
	got, err := s.Get(bg, "/a")
	require.NoError(t, err)
	assert.Equal(t, a, got)
	b, err := s.Create(bg, "/b", []byte("2"), store.CreateOptions{})
	require.NoError(t, err)
	require.Zero(t, fileRevision2(t, s))
	require.NoError(t, s.crash())

	s, err = Open(Config{Path: path})
	require.NoError(t, err)
	for _, kv := range []store.KeyValue{a, b} {
		got, err := s.Get(bg, kv.Key)
		require.NoError(t, err)
		assert.Equal(t, kv, got)
	}
	require.NoError(t, s.Close())

	// And once the fault is gone, the checkpoint goes through.
	cfg.beforeCheckpoint = nil
	s, err = Open(cfg)
	require.NoError(t, err)
	defer s.Close()
	c, err := s.Create(bg, "/c", []byte("3"), store.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, s.checkpointNow())
	assert.Equal(t, c.ModRevision, fileRevision2(t, s))
}

// Reads against a model, with checkpoints at random points: Get and every
// page of a paged List see the not yet checkpointed writes merged over
// the file (creates, updates, deletes of keys in either), in key order.
func TestReadsMergeTheLogOverTheFile(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	s, err := Open(noCheckpoint(filepath.Join(t.TempDir(), FileName)))
	require.NoError(t, err)
	defer s.Close()
	model := map[string]store.KeyValue{}
	for step := range 600 {
		k := fmt.Sprintf("/m/%02d", rnd.IntN(40))
		switch rnd.IntN(8) {
		case 0:
			k = fmt.Sprintf("/other/%02d", rnd.IntN(5)) // outside the prefix
		case 1:
			k = fmt.Sprintf("/m/sub/%02d", rnd.IntN(10)) // a directory under it
		}
		cur, exists := model[k]
		switch {
		case !exists:
			kv, err := s.Create(bg, k, []byte(fmt.Sprint(step)), store.CreateOptions{UID: "u" + k})
			require.NoError(t, err)
			model[k] = kv
		case rnd.IntN(3) == 0:
			_, err := s.Delete(bg, k, store.Preconditions{ResourceVersion: cur.ModRevision})
			require.NoError(t, err)
			delete(model, k)
		default:
			kv, err := s.Update(bg, k, []byte(fmt.Sprint(step)), store.Preconditions{ResourceVersion: cur.ModRevision})
			require.NoError(t, err)
			model[k] = kv
		}
		if rnd.IntN(25) == 0 {
			require.NoError(t, s.checkpointNow())
		}
		if step%20 != 0 {
			continue
		}
		// Prefixes: a directory with a subdirectory, part of a name
		// (inside a directory), the subdirectory, nothing there.
		for _, prefix := range []string{"/m/", "/m/1", "/m/sub/", "/none/"} {
			var want []store.KeyValue
			for _, kv := range model {
				if strings.HasPrefix(kv.Key, prefix) {
					want = append(want, kv)
				}
			}
			slices.SortFunc(want, func(a, b store.KeyValue) int { return strings.Compare(a.Key, b.Key) })
			limit := int64(1 + rnd.IntN(7))
			var got []store.KeyValue
			after := ""
			for {
				res, err := s.List(bg, prefix, store.ListOptions{Limit: limit, StartAfter: after})
				require.NoError(t, err)
				assert.Equal(t, s.Revision(), res.Revision)
				got = append(got, res.Items...)
				if !res.More {
					break
				}
				require.Len(t, res.Items, int(limit))
				after = res.Items[len(res.Items)-1].Key
			}
			require.Equal(t, want, got, "step %d, prefix %s", step, prefix)
		}
		for i := range 40 {
			k := fmt.Sprintf("/m/%02d", i)
			kv, err := s.Get(bg, k)
			if want, ok := model[k]; ok {
				require.NoError(t, err)
				require.Equal(t, want, kv)
			} else {
				require.True(t, store.IsNotFound(err), "%s: %v", k, err)
			}
		}
	}
}

// Readers racing checkpoints never see a key vanish or go back in time:
// each read sees every acknowledged write once, whether it is still in
// memory, being committed, or in the file.
func TestReadsAcrossCheckpointsNeverGoBack(t *testing.T) {
	s, err := Open(Config{Path: filepath.Join(t.TempDir(), FileName), UnsafeNoFsync: true, CheckpointWrites: 3})
	require.NoError(t, err)
	defer s.Close()
	const keys = 8
	for i := range keys {
		_, err := s.Create(bg, "/r/"+strconv.Itoa(i), []byte("0"), store.CreateOptions{})
		require.NoError(t, err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := map[string]int64{}
			for {
				select {
				case <-stop:
					return
				default:
				}
				k := "/r/" + strconv.Itoa(r%keys)
				kv, err := s.Get(bg, k)
				if !assert.NoError(t, err, "Get %s", k) {
					return
				}
				assert.GreaterOrEqual(t, kv.ModRevision, seen[k])
				seen[k] = kv.ModRevision
				res, err := s.List(bg, "/r/", store.ListOptions{})
				if !assert.NoError(t, err) || !assert.Len(t, res.Items, keys) {
					return
				}
				for _, kv := range res.Items {
					assert.LessOrEqual(t, kv.ModRevision, res.Revision)
					assert.GreaterOrEqual(t, kv.ModRevision, seen[kv.Key])
					seen[kv.Key] = kv.ModRevision
				}
				r++
			}
		}()
	}
	for i := range 600 {
		_, err := s.Update(bg, "/r/"+strconv.Itoa(i%keys), []byte(strconv.Itoa(i)), store.Preconditions{})
		require.NoError(t, err)
	}
	close(stop)
	wg.Wait()
}
