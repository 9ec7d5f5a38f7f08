package boltstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/storetest"
)

func openTest(t testing.TB, dir string, w store.BroadcasterConfig) store.Interface {
	s, err := Open(Config{Path: filepath.Join(dir, FileName), Watch: w})
	require.NoError(t, err)
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Options{Open: openTest, Persistent: true})
}

// The same suite with every read served from the writes not yet
// checkpointed (no checkpoint before Close), and with a checkpoint after
// every write (every read from the bbolt file).
func TestConformanceCheckpointModes(t *testing.T) {
	modes := map[string]Config{
		"never":       {CheckpointInterval: time.Hour, CheckpointWrites: 1 << 30},
		"every write": {CheckpointWrites: 1},
	}
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			storetest.Run(t, storetest.Options{Persistent: true,
				Open: func(t testing.TB, dir string, w store.BroadcasterConfig) store.Interface {
					cfg := mode
					cfg.Path, cfg.Watch = filepath.Join(dir, FileName), w
					s, err := Open(cfg)
					require.NoError(t, err)
					return s
				}})
		})
	}
}

// Writers racing Close: every write is either acknowledged, and then on
// disk after a reopen, or refused with ErrClosed; none is left waiting
// (ops queued for the commit loop when Close came are committed).
func TestCloseCommitsQueuedWritesAndStrandsNone(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	// fsync on: commits are slow enough that writers queue behind them.
	s, err := Open(Config{Path: path, MaxBatch: 4})
	require.NoError(t, err)
	const writers = 32
	acked := make([][]string, writers)
	var started, done sync.WaitGroup
	for w := range writers {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			for i := 0; ; i++ {
				key := fmt.Sprintf("/k/%d/%d", w, i)
				_, err := s.Create(context.Background(), key, []byte("v"), store.CreateOptions{})
				if i == 0 {
					started.Done()
				}
				if err != nil {
					assert.ErrorIs(t, err, store.ErrClosed)
					return
				}
				acked[w] = append(acked[w], key)
			}
		}()
	}
	started.Wait() // every writer has written once: the queue is busy
	require.NoError(t, s.Close())
	done.Wait()

	s, err = Open(Config{Path: path, UnsafeNoFsync: true})
	require.NoError(t, err)
	defer s.Close()
	n := 0
	for _, keys := range acked {
		for _, k := range keys {
			_, err := s.Get(context.Background(), k)
			require.NoError(t, err, "acknowledged %s", k)
			n++
		}
	}
	assert.GreaterOrEqual(t, n, writers)
}

// DBSize is the bbolt file's size, for the API server's
// apiserver_storage_size_bytes.
func TestDBSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(Config{Path: path, UnsafeNoFsync: true})
	require.NoError(t, err)
	defer s.Close()
	size, id, err := s.DBSize(context.Background())
	require.NoError(t, err)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, fi.Size(), size)
	assert.Empty(t, id)
}
