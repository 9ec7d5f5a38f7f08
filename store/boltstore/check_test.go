package boltstore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
)

func TestCheckHealthyFile(t *testing.T) {
	path := writeN(t, 3)
	rep, err := Check(path)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%v", rep.Problems)
	assert.Equal(t, 3, rep.Keys)
	assert.Equal(t, int64(3), rep.Revision)
}

// Every kind of damage is found and named, and the file is not changed.
func TestCheckFindsDamage(t *testing.T) {
	cases := map[string]struct {
		damage func(t *testing.T, path string)
		want   string
	}{
		"value that does not decode": {func(t *testing.T, path string) {
			s, err := Open(Config{Path: path})
			require.NoError(t, err)
			require.NoError(t, s.db.Update(func(tx *boltTx) error {
				return tx.Bucket(bucketKV).Put([]byte("/k/1"), record{createRev: 2, modRev: 2, value: []byte(`{"kind":"Pod","metadata":{"na`)}.encode(formatSummed))
			}))
			require.NoError(t, s.Close())
		}, "key /k/1: value does not decode"},
		"bad record": {func(t *testing.T, path string) {
			s, err := Open(Config{Path: path})
			require.NoError(t, err)
			require.NoError(t, s.db.Update(func(tx *boltTx) error {
				return tx.Bucket(bucketKV).Put([]byte("/k/2"), []byte{1, 2})
			}))
			require.NoError(t, s.Close())
		}, "key /k/2: malformed record"},
		"damaged newer meta page": {func(t *testing.T, path string) {
			newer, _ := newerMeta(t, path)
			flipMeta(t, path, newer)
		}, "would silently fall back"},
		"damaged data page": {func(t *testing.T, path string) {
			pages, _, err := readMetaPages(path)
			require.NoError(t, err)
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			require.NoError(t, err)
			defer f.Close()
			junk := make([]byte, pages[0].pageSize)
			for i := range junk {
				junk[i] = byte(i*13 + 5)
			}
			// Pages 2 and up hold the freelist and the trees.
			for p := int64(2); p < 6; p++ {
				_, err = f.WriteAt(junk, p*int64(pages[0].pageSize))
				require.NoError(t, err)
			}
		}, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeN(t, 3)
			c.damage(t, path)
			before, err := os.ReadFile(path)
			require.NoError(t, err)
			rep, err := Check(path)
			require.NoError(t, err)
			require.False(t, rep.OK(), "the damage is found")
			t.Logf("%s: %v", name, rep.Problems)
			if c.want != "" {
				assert.Contains(t, rep.Problems[len(rep.Problems)-1], c.want)
			}
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, before, after, "check changes nothing")
		})
	}
}

// After a crash before the checkpoint the file is behind; check says how
// many writes the log adds and up to which revision, and changes nothing.
func TestCheckCountsTheLogsWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(noCheckpoint(path))
	require.NoError(t, err)
	for i := range 4 {
		_, err := s.Create(bg, fmt.Sprintf("/k/%d", i), []byte(`{}`), store.CreateOptions{})
		require.NoError(t, err)
	}
	require.NoError(t, s.checkpointNow())
	for i := range 3 {
		_, err := s.Update(bg, fmt.Sprintf("/k/%d", i), []byte(`{"v":1}`), store.Preconditions{})
		require.NoError(t, err)
	}
	require.NoError(t, s.crash())
	rep, err := Check(path)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%v", rep.Problems)
	assert.Equal(t, int64(4), rep.Revision)
	assert.Equal(t, 3, rep.LogWrites)
	assert.Equal(t, int64(7), rep.LogRevision)

	s, err = Open(Config{Path: path})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	rep, err = Check(path)
	require.NoError(t, err)
	assert.Equal(t, int64(7), rep.Revision)
	assert.Zero(t, rep.LogWrites, "a clean close leaves nothing in the log")
}
