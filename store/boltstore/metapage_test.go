package boltstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
)

// writeN makes a store with n committed keys and returns its path.
func writeN(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(Config{Path: path})
	require.NoError(t, err)
	for i := range n {
		_, err := s.Create(context.Background(), fmt.Sprintf("/k/%d", i), []byte(`{}`), store.CreateOptions{})
		require.NoError(t, err)
		// One bbolt transaction per write, as the meta-page tests
		// count them.
		require.NoError(t, s.checkpointNow())
	}
	require.NoError(t, s.Close())
	return path
}

// flipMeta damages meta page index (a byte inside its checksummed part).
func flipMeta(t *testing.T, path string, index int) {
	t.Helper()
	pages, ok, err := readMetaPages(path)
	require.NoError(t, err)
	require.True(t, ok)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	off := int64(index)*int64(pages[0].pageSize) + pageHeaderSize + 40 // inside the freelist page id
	b := make([]byte, 1)
	_, err = f.ReadAt(b, off)
	require.NoError(t, err)
	b[0] ^= 0xff
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
}

func newerMeta(t *testing.T, path string) (newer, older int) {
	pages, ok, err := readMetaPages(path)
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, pages[0].valid && pages[1].valid)
	if pages[0].txid > pages[1].txid {
		return 0, 1
	}
	return 1, 0
}

// A damaged newest meta page would make bbolt fall back a transaction and
// lose the last acknowledged write: the store refuses to open and says how
// to recover; accepting the rollback opens it one commit back.
func TestDamagedNewestMetaPageIsRefused(t *testing.T) {
	path := writeN(t, 5)
	newer, older := newerMeta(t, path)
	flipMeta(t, path, newer)

	_, err := Open(Config{Path: path})
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), fmt.Sprintf("meta page %d (checksum mismatch)", newer))
	assert.Contains(t, err.Error(), "kubesim store check --accept-meta-rollback")

	require.NoError(t, AcceptMetaRollback(path))
	s, err := Open(Config{Path: path})
	require.NoError(t, err, "opens at the older meta page (%d)", older)
	defer s.Close()
	assert.Equal(t, int64(4), s.Revision(), "the damaged page's commit is given up, knowingly")
	_, err = s.Get(context.Background(), "/k/3")
	require.NoError(t, err)
}

// A damaged older meta page loses nothing: the store opens with every write.
func TestDamagedOlderMetaPageLosesNothing(t *testing.T) {
	path := writeN(t, 5)
	_, older := newerMeta(t, path)
	flipMeta(t, path, older)
	s, err := Open(Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, int64(5), s.Revision())
	// And the next commit rewrites it.
	_, err = s.Create(context.Background(), "/k/5", []byte(`{}`), store.CreateOptions{})
	require.NoError(t, err)
}

func TestBothMetaPagesDamaged(t *testing.T) {
	path := writeN(t, 2)
	flipMeta(t, path, 0)
	flipMeta(t, path, 1)
	_, err := Open(Config{Path: path})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "both meta pages are damaged")
	assert.Error(t, AcceptMetaRollback(path))
}

// A damaged data page is an error naming the file and the page, not a
// panic (bbolt panics reading it, in the read-write open's freelist rebuild
// where no recover can reach), and the error says the way out.
func TestDamagedDataPageIsAnErrorNotAPanic(t *testing.T) {
	path := writeN(t, 50)
	pages, _, err := readMetaPages(path)
	require.NoError(t, err)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	junk := make([]byte, pages[0].pageSize)
	for i := range junk {
		junk[i] = byte(i*13 + 5)
	}
	for p := int64(2); p < 6; p++ {
		_, err = f.WriteAt(junk, p*int64(pages[0].pageSize))
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())
	_, err = Open(Config{Path: path})
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "it names itself page")
	assert.Contains(t, err.Error(), "kubesim store export --skip-damaged")
}
