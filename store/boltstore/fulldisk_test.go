package boltstore

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
)

// diskFull is a switch for the checkpoint's fault injection: while it is
// on, every checkpoint fails as on a full disk (the log still has room:
// it grows in preallocated chunks, and bbolt needs new pages).
type diskFull struct {
	mu    sync.Mutex
	full  bool
	tries int
	tried chan struct{}
}

func newDiskFull(full bool) *diskFull { return &diskFull{full: full, tried: make(chan struct{}, 100)} }

func (d *diskFull) set(full bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.full = full
}

func (d *diskFull) beforeCheckpoint() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tries++
	d.tried <- struct{}{}
	if d.full {
		return fmt.Errorf("write %s: %w", "kubesim.db", syscall.ENOSPC)
	}
	return nil
}

// fakeTimers makes the store's checkpoint timers on the fake clock.
func fakeTimers(fake *clock.Fake) func(time.Duration) timer {
	return func(d time.Duration) timer { return fake.NewTimer(d) }
}

// logLines collects what the store logs.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logLines) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.buf.String(), s)
}

// A restart after the disk filled under load: checkpoints had failed, so
// the log holds writes the file does not, and committing them to the
// file needs space. The store opens anyway and serves them from the log,
// takes new writes (after them in the log), and commits everything once
// space is back; nothing acknowledged is lost across another crash.
func TestRestartWhileCheckpointsFailServesTheLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(noCheckpoint(path))
	require.NoError(t, err)
	for _, k := range []string{"/k/a", "/k/b", "/k/c"} {
		_, err := s.Create(bg, k, []byte(`{"v":"`+k+`"}`), store.CreateOptions{})
		require.NoError(t, err)
	}
	_, err = s.Delete(bg, "/k/c", store.Preconditions{})
	require.NoError(t, err)
	require.NoError(t, s.crash())
	require.Zero(t, fileRevision(t, path))

	disk := newDiskFull(true)
	fake := clock.NewFake(time.Unix(0, 0))
	var logs logLines
	cfg := Config{Path: path, newTimer: fakeTimers(fake), beforeCheckpoint: disk.beforeCheckpoint,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	s, err = Open(cfg)
	require.NoError(t, err, "a full disk does not stop the store from starting")
	assert.Equal(t, int64(4), s.Revision())
	assert.Equal(t, 1, logs.count("checkpoint failed"), "%s", logs.buf.String())
	kv, err := s.Get(bg, "/k/b")
	require.NoError(t, err)
	assert.Equal(t, `{"v":"/k/b"}`, string(kv.Value))
	_, err = s.Get(bg, "/k/c")
	assert.True(t, store.IsNotFound(err))
	list, err := s.List(bg, "/k/", store.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, list.Items, 2)
	d, err := s.Create(bg, "/k/d", []byte(`{}`), store.CreateOptions{})
	require.NoError(t, err, "the log has room")
	assert.Equal(t, int64(5), d.ModRevision)
	require.NoError(t, s.crash())
	assert.Zero(t, fileRevision(t, path), "nothing reached the file")

	// Space is back: the checkpoint at open commits the log, old and new.
	s, err = Open(Config{Path: path})
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, int64(5), fileRevision2(t, s))
	for _, k := range []string{"/k/a", "/k/b", "/k/d"} {
		_, err := s.Get(bg, k)
		require.NoError(t, err, k)
	}
}

// While the disk is full the checkpoint is retried after twice the last
// wait, up to 10 s, with one log line per try: not every 100 ms. Once a
// try succeeds the next checkpoint comes after the usual interval again.
// The clock is a fake one: the test steps it to each retry.
func TestFailingCheckpointBacksOff(t *testing.T) {
	disk := newDiskFull(true)
	fake := clock.NewFake(time.Unix(0, 0))
	var logs logLines
	s, err := Open(Config{Path: filepath.Join(t.TempDir(), FileName), newTimer: fakeTimers(fake), CheckpointInterval: 100 * time.Millisecond,
		beforeCheckpoint: disk.beforeCheckpoint, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Create(context.Background(), "/k/a", []byte(`{}`), store.CreateOptions{})
	require.NoError(t, err)

	// next waits for the commit loop to set its timer, moves the clock
	// there, waits for the try and returns the wait.
	next := func() time.Duration {
		var at time.Time
		require.Eventually(t, func() bool {
			var ok bool
			at, ok = fake.NextDeadline()
			return ok
		}, 10*time.Second, time.Millisecond)
		wait := at.Sub(fake.Now())
		fake.SetTime(at)
		<-disk.tried
		return wait
	}
	var waits []time.Duration
	for range 10 {
		waits = append(waits, next())
	}
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 10 * time.Second, 10 * time.Second, 10 * time.Second}, waits)
	var total time.Duration
	for _, w := range waits {
		total += w
	}
	// The try's line follows the fault it met: wait for the last one.
	require.Eventually(t, func() bool { return logs.count("checkpoint still failing") == 9 }, 10*time.Second, time.Millisecond,
		"one line per try: %d tries in %v, where a retry every 100 ms would have logged %d lines", len(waits), total, total/(100*ms))
	assert.Equal(t, 1, logs.count("checkpoint failed"))

	disk.set(false)
	next()
	require.Eventually(t, func() bool { return logs.count("checkpoint succeeded again") == 1 }, 10*time.Second, time.Millisecond)
	_, ok := fake.NextDeadline()
	assert.False(t, ok, "nothing left to checkpoint")
	_, err = s.Create(context.Background(), "/k/b", []byte(`{}`), store.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, 100*ms, next(), "back to the usual interval")
}
