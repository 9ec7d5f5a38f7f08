package boltstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/kubesim/kubesim/store"
)

var bg = context.Background()

type boltTx = bolt.Tx

func TestSecondOpenFailsFastNamingTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	start := time.Now()
	_, err = Open(Config{Path: path, OpenTimeout: 200 * time.Millisecond})
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second, "must not hang")
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "locked by another process")
}

func TestCorruptFileIsReportedAndNotOverwritten(t *testing.T) {
	cases := map[string]func(t *testing.T, path string){
		"garbage": func(t *testing.T, path string) {
			garbage := make([]byte, 64*1024)
			for i := range garbage {
				garbage[i] = byte(i*7 + 3)
			}
			require.NoError(t, os.WriteFile(path, garbage, 0o600))
		},
		"truncated": func(t *testing.T, path string) {
			s, err := Open(Config{Path: path})
			require.NoError(t, err)
			_, err = s.Create(bg, "/k", []byte("v"), store.CreateOptions{})
			require.NoError(t, err)
			require.NoError(t, s.Close())
			require.NoError(t, os.Truncate(path, 100))
		},
		"foreign bbolt file": func(t *testing.T, path string) {
			s, err := Open(Config{Path: path})
			require.NoError(t, err)
			require.NoError(t, s.db.Update(func(tx *boltTx) error {
				if err := tx.DeleteBucket(bucketMeta); err != nil {
					return err
				}
				return tx.DeleteBucket(bucketKV)
			}))
			require.NoError(t, s.db.Update(func(tx *boltTx) error {
				_, err := tx.CreateBucket([]byte("someone-else"))
				return err
			}))
			require.NoError(t, s.Close())
		},
	}
	for name, corrupt := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			corrupt(t, path)
			before, err := os.ReadFile(path)
			require.NoError(t, err)
			_, err = Open(Config{Path: path})
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, before, after, "a corrupt file is never overwritten")
		})
	}
}

func TestFailedCommitChangesNothing(t *testing.T) {
	fail := false
	s, err := Open(Config{Path: filepath.Join(t.TempDir(), FileName), beforeCommit: func() error {
		if fail {
			return errors.New("injected I/O error")
		}
		return nil
	}})
	require.NoError(t, err)
	defer s.Close()
	kv, err := s.Create(bg, "/a", []byte("1"), store.CreateOptions{})
	require.NoError(t, err)
	w, err := s.Watch(bg, "/", 0)
	require.NoError(t, err)
	defer w.Stop()

	fail = true
	_, err = s.Create(bg, "/b", []byte("1"), store.CreateOptions{})
	require.ErrorContains(t, err, "injected I/O error")
	_, err = s.Update(bg, "/a", []byte("2"), store.Preconditions{})
	require.ErrorContains(t, err, "injected I/O error")
	assert.Equal(t, kv.ModRevision, s.Revision(), "the counter did not move")
	_, err = s.Get(bg, "/b")
	assert.True(t, store.IsNotFound(err), "nothing half-written is visible")
	got, _ := s.Get(bg, "/a")
	assert.Equal(t, "1", string(got.Value))
	select {
	case ev := <-w.ResultChan():
		t.Fatalf("a failed commit published %+v", ev)
	case <-time.After(20 * time.Millisecond):
	}

	fail = false
	kv2, err := s.Create(bg, "/b", []byte("1"), store.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, kv.ModRevision+1, kv2.ModRevision, "the next write takes the next revision")
	ev := <-w.ResultChan()
	assert.Equal(t, kv2.ModRevision, ev.Revision)
}

// The durability test runs this test binary twice: the child (selected by
// an environment variable, in TestMain) writes keys as fast as it can and prints each
// one after Create returns; the parent kills it with SIGKILL mid-stream,
// reopens the file and requires every printed key.
const childEnv = "KUBESIM_STORE_CRASH_CHILD"

// childNoCheckpointEnv makes the child never checkpoint: every write it
// acknowledges is in the write-ahead log only when it is killed.
const childNoCheckpointEnv = "KUBESIM_STORE_CRASH_CHILD_NO_CHECKPOINT"

// TestMain runs the child instead of the tests when the parent asks for it:
// the child is never a test, so it never passes or skips silently.
func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		crashChild(path)
	}
	os.Exit(m.Run())
}

// crashChild writes keys until it is killed; it never returns.
func crashChild(path string) {
	cfg := Config{Path: path}
	if os.Getenv(childNoCheckpointEnv) != "" {
		cfg = noCheckpoint(path)
	}
	s, err := Open(cfg)
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		key := "/registry/crash/" + strconv.Itoa(i)
		kv, err := s.Create(bg, key, []byte(key), store.CreateOptions{})
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(2)
		}
		fmt.Fprintf(out, "ACK %s %d\n", key, kv.ModRevision)
		out.Flush()
	}
}

// The child is killed between checkpoints (every 100 ms by default) or,
// with no checkpoint at all, with every write in the log only.
func TestAcknowledgedWritesSurviveKill9(t *testing.T) {
	t.Run("default", func(t *testing.T) { testKill9(t, false) })
	t.Run("no checkpoint", func(t *testing.T) { testKill9(t, true) })
}

func testKill9(t *testing.T, noCheckpoint bool) {
	path := filepath.Join(t.TempDir(), FileName)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	if noCheckpoint {
		cmd.Env = append(cmd.Env, childNoCheckpointEnv+"=1")
	}
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())

	acked := map[string]int64{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "ACK" {
			rev, _ := strconv.ParseInt(f[2], 10, 64)
			acked[f[1]] = rev
		} else if len(f) > 0 && f[0] == "ERR" {
			t.Fatalf("child: %s", sc.Text())
		}
		if len(acked) == 300 {
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			break
		}
	}
	// Keys printed after the kill signal was sent were acknowledged too.
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "ACK" {
			rev, _ := strconv.ParseInt(f[2], 10, 64)
			acked[f[1]] = rev
		}
	}
	_ = cmd.Wait()
	require.GreaterOrEqual(t, len(acked), 300)
	if noCheckpoint {
		require.Zero(t, fileRevision(t, path), "the bbolt file has none of the writes: the log has them all")
	}

	s, err := Open(Config{Path: path})
	require.NoError(t, err, "the file opens cleanly after kill -9")
	defer s.Close()
	var maxRev int64
	for key, rev := range acked {
		kv, err := s.Get(bg, key)
		require.NoError(t, err, "acknowledged key %s lost", key)
		assert.Equal(t, rev, kv.ModRevision)
		maxRev = max(maxRev, rev)
	}
	assert.GreaterOrEqual(t, s.Revision(), maxRev)
	kv, err := s.Create(bg, "/after", []byte("v"), store.CreateOptions{})
	require.NoError(t, err)
	assert.Greater(t, kv.ModRevision, maxRev, "no revision is reused after a crash")
}
