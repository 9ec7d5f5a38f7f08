package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/kubesim/kubesim/store"
)

// FileName is the name of the bbolt file inside a data directory.
const FileName = "kubesim.db"

var (
	bucketKV    = []byte("kv")
	bucketMeta  = []byte("meta")
	keyRevision = []byte("revision")
	keyFormat   = []byte("format")
	formatV1    = []byte("kubesim-store-v1")
	formatV2    = []byte("kubesim-store-v2") // records carry a CRC-32C
)

// Config configures a Store. Only Path is required.
type Config struct {
	// Path is the bbolt file; use filepath.Join(dataDir, FileName).
	Path string
	// UnsafeNoFsync skips the sync after each commit. An acknowledged write
	// can then be lost on power failure or kill -9. For throwaway demos only.
	UnsafeNoFsync bool
	// OpenTimeout bounds the wait for the file lock held by another
	// process (default 1s), so a second kubesim on the same data dir fails
	// fast instead of hanging.
	OpenTimeout time.Duration
	// MaxBatch caps the writes committed in one transaction (default 1024).
	MaxBatch int
	// CheckpointInterval is how long acknowledged writes may live in the
	// write-ahead log and in memory only before they are committed to the
	// bbolt file (default 100ms, etcd's backend batch interval).
	CheckpointInterval time.Duration
	// CheckpointWrites commits them sooner, once this many are waiting
	// (default 10,000, etcd's backend batch limit).
	CheckpointWrites int
	// Watch sizes the event window and the watcher buffers.
	Watch store.BroadcasterConfig
	// Logger receives the store's few log lines (default: discard).
	Logger *slog.Logger

	// beforeCommit, when set by a test in this package, runs before each
	// batch is written to the log; an error fails the commit (fault
	// injection). beforeCheckpoint runs at the end of each checkpoint's
	// bbolt transaction; an error fails the checkpoint.
	beforeCommit     func() error
	beforeCheckpoint func() error
	// afterCommit, when set by a benchmark, runs right after a successful
	// commit, before events are published.
	afterCommit func()
	// newTimer makes the timers that pace checkpoints and their retries
	// (default: the wall clock's; tests in this package step a fake
	// clock.Fake instead of waiting).
	newTimer func(time.Duration) timer
}

// timer is what the commit loop needs of a timer: clock.Timer's methods.
type timer interface {
	C() <-chan time.Time
	Stop() bool
}

// wallTimer is a time.Timer as a timer.
type wallTimer struct{ t *time.Timer }

func (w wallTimer) C() <-chan time.Time { return w.t.C }
func (w wallTimer) Stop() bool          { return w.t.Stop() }

// Store is the bbolt backend of store.Interface.
type Store struct {
	cfg    Config
	format recordFormat
	db     *bolt.DB
	wal    *wal
	hub    *store.Broadcaster
	rev    atomic.Int64
	ops    chan *op
	stop   chan struct{}
	done   chan struct{}

	// mu guards pending (and rev moves with it): the acknowledged writes
	// not yet checkpointed into the bbolt file, latest change per key.
	// Only the commit loop changes them; a reader looks at pending and
	// opens its bbolt transaction under one RLock, so that it sees every
	// acknowledged write exactly once, whether a checkpoint is running
	// or not (see doc.go).
	mu      sync.RWMutex
	pending map[string]change
	// pendingDirs indexes pending by the key's directory (the key up to
	// and with its last "/"), so that a List visits only the directories
	// under its prefix: the admission plugins list (mostly empty)
	// prefixes on every create, and a scan of all of pending each time
	// was most of the CPU while 5,000 nodes registered.
	pendingDirs map[string]map[string]struct{}

	// Commit-loop state, reused from batch to batch.
	changes []change
	events  []store.Event
	local   map[string]int // key -> index in changes, within one batch

	// checkpointFailures counts the checkpoints that failed in a row (a
	// full disk): the commit loop waits longer before each retry.
	checkpointFailures int

	// abandon makes the commit loop stop without the final checkpoint
	// (tests: a crash after the acknowledgements); stopErr is the final
	// checkpoint's outcome.
	abandon bool
	stopErr error

	// closeMu makes Close wait for writers that are handing an op to the
	// commit loop, and makes later writers see closed.
	closeMu sync.RWMutex
	closed  bool
}

var _ store.Interface = (*Store)(nil)

type opKind int

const (
	opCreate opKind = iota
	opUpdate
	opDelete
	// opCheckpoint asks the commit loop for a checkpoint now (tests).
	opCheckpoint
)

type op struct {
	kind  opKind
	key   string
	value []byte
	uid   string
	pre   store.Preconditions
	res   store.KeyValue
	err   error
	done  chan struct{}
}

// Open opens (or creates) the store file and starts the commit loop.
func Open(cfg Config) (s *Store, err error) {
	if cfg.Path == "" {
		return nil, errors.New("boltstore: Config.Path is required")
	}
	if cfg.OpenTimeout <= 0 {
		cfg.OpenTimeout = time.Second
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 1024
	}
	if cfg.CheckpointInterval <= 0 {
		cfg.CheckpointInterval = 100 * time.Millisecond
	}
	if cfg.CheckpointWrites <= 0 {
		cfg.CheckpointWrites = 10000
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir for %s: %w", cfg.Path, err)
	}
	if err := checkMetaPages(cfg.Path); err != nil {
		return nil, err
	}
	if err := checkStructure(cfg.Path, cfg.OpenTimeout); err != nil {
		return nil, err
	}
	var (
		db     *bolt.DB
		w      *wal
		rev    int64
		format recordFormat
		logged walReplay
		writes []change
	)
	err = withFaultsAsErrors(cfg.Path, func() error {
		var err error
		db, err = bolt.Open(cfg.Path, 0o600, &bolt.Options{
			Timeout: cfg.OpenTimeout,
			NoSync:  cfg.UnsafeNoFsync,
			// The freelist is rebuilt at open instead of written at every
			// commit: fewer pages per commit, as etcd does.
			NoFreelistSync: true,
			FreelistType:   bolt.FreelistMapType,
		})
		if err != nil {
			return lockError(cfg.Path, err)
		}
		if rev, format, err = prepare(db, cfg.Logger, cfg.Path); err != nil {
			_ = db.Close()
			return fmt.Errorf("data file %s: %w", cfg.Path, err)
		}
		if w, err = openWAL(cfg.Path+WALSuffix, cfg.UnsafeNoFsync); err != nil {
			_ = db.Close()
			return err
		}
		// The log's writes past the file (a crash came before their
		// checkpoint): read now, committed to the file below.
		logged, err = replayWAL(w.f, w.size, rev, func(c change) error { writes = append(writes, c); return nil })
		switch {
		case err == nil && logged.damage != nil:
			err = &DamageError{Path: cfg.Path, Problems: []string{"write-ahead log " + w.path + ": " + logged.damage.String()}}
		case err != nil:
			err = fmt.Errorf("read the write-ahead log %s: %w", w.path, err)
		}
		if err != nil {
			_ = w.close(false)
			_ = db.Close()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if cfg.UnsafeNoFsync {
		cfg.Logger.Warn("UNSAFE: fsync is off; acknowledged writes can be lost on a crash", "file", cfg.Path)
	}
	if cfg.newTimer == nil {
		cfg.newTimer = func(d time.Duration) timer { return wallTimer{time.NewTimer(d)} }
	}
	s = &Store{
		cfg:         cfg,
		db:          db,
		wal:         w,
		pending:     map[string]change{},
		pendingDirs: map[string]map[string]struct{}{},
		local:       map[string]int{},
		hub:         store.NewBroadcaster(cfg.Watch, logged.last),
		// Buffered, so that a writer hands its op over without waiting
		// for the loop to take it: while a commit syncs, the next batch's
		// writers queue here and are woken once, when their batch is
		// committed (an unbuffered hand-over parked and woke each of them
		// twice).
		ops:  make(chan *op, cfg.MaxBatch),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	s.format = format
	s.rev.Store(logged.last)
	if len(writes) > 0 {
		// The log's writes are the not yet checkpointed writes of a
		// running store: reads see them, and the first checkpoint
		// commits them to the file. Until it has, the log goes on after
		// them. If that checkpoint fails (the disk is full: it needs
		// new pages, the log does not), the store still opens: it serves
		// them, takes writes while the log has room, and retries.
		for _, c := range writes {
			s.addPending(c)
		}
		w.off = logged.end
		if err := s.checkpoint(); err == nil {
			cfg.Logger.Info("replayed the write-ahead log", "file", w.path, "writes", len(writes), "revision", logged.last)
		}
	}
	go s.commitLoop()
	return s, nil
}

// lockError words an error of bolt.Open.
func lockError(path string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bolterrors.ErrTimeout):
		return fmt.Errorf("data file %s is locked by another process (is another kubesim using this data dir?): %w", path, err)
	}
	return fmt.Errorf("cannot open data file %s: %w", path, err)
}

// prepare creates the buckets of a new file (format 2), or checks that an
// existing file is a kubesim store, and returns the persisted revision and
// the records' format. Every record is read once: a damaged one does not
// stop the store (the others are served, and the damaged key is reported
// on every read of it until it is deleted or rewritten), and is logged now.
// An existing file is only read: opening writes nothing, so that it works
// on a full disk.
func prepare(db *bolt.DB, logger *slog.Logger, path string) (int64, recordFormat, error) {
	var rev int64
	format := formatSummed
	fresh := false
	err := db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			empty := true
			_ = tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
			if !empty {
				return errors.New("not a kubesim data file (no meta bucket); refusing to change it")
			}
			fresh = true
			return nil
		}
		switch f := meta.Get(keyFormat); {
		case bytes.Equal(f, formatV2):
		case bytes.Equal(f, formatV1):
			format = formatPlain
		default:
			return fmt.Errorf("unknown store format %q", f)
		}
		r := meta.Get(keyRevision)
		if len(r) != 8 {
			return errors.New("corrupt revision counter")
		}
		rev = int64(binary.BigEndian.Uint64(r))
		kv := tx.Bucket(bucketKV)
		if kv == nil {
			return errors.New("missing kv bucket")
		}
		return kv.ForEach(func(k, v []byte) error {
			r, err := decodeRecord(v, format)
			if err != nil {
				logger.Error("damaged record: reads of this key fail until it is deleted or rewritten", "file", path, "key", store.PrintableKey(string(k)), "err", err)
				return nil
			}
			if r.modRev > rev {
				return fmt.Errorf("key %s has revision %d beyond the counter %d", store.PrintableKey(string(k)), r.modRev, rev)
			}
			return nil
		})
	})
	if err != nil || !fresh {
		return rev, format, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		if err := meta.Put(keyFormat, formatV2); err != nil {
			return err
		}
		if err := meta.Put(keyRevision, encodeRev(0)); err != nil {
			return err
		}
		_, err = tx.CreateBucket(bucketKV)
		return err
	})
	return 0, formatSummed, err
}

func encodeRev(r int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(r))
	return b
}

// Revision is the revision of the last committed write.
func (s *Store) Revision() int64 { return s.rev.Load() }

// Create implements store.Interface.
func (s *Store) Create(ctx context.Context, key string, value []byte, opts store.CreateOptions) (store.KeyValue, error) {
	return s.submit(ctx, &op{kind: opCreate, key: key, value: value, uid: opts.UID})
}

// Update implements store.Interface.
func (s *Store) Update(ctx context.Context, key string, value []byte, pre store.Preconditions) (store.KeyValue, error) {
	return s.submit(ctx, &op{kind: opUpdate, key: key, value: value, pre: pre})
}

// Delete implements store.Interface.
func (s *Store) Delete(ctx context.Context, key string, pre store.Preconditions) (store.KeyValue, error) {
	return s.submit(ctx, &op{kind: opDelete, key: key, pre: pre})
}

// submit hands o to the commit loop and waits for its outcome. Once the
// loop has taken an op, it is committed or failed regardless of ctx: a
// caller must never be told "cancelled" about a write that happened.
func (s *Store) submit(ctx context.Context, o *op) (store.KeyValue, error) {
	o.done = make(chan struct{})
	s.closeMu.RLock()
	if s.closed {
		s.closeMu.RUnlock()
		return store.KeyValue{}, store.ErrClosed
	}
	select {
	case s.ops <- o:
	case <-ctx.Done():
		s.closeMu.RUnlock()
		return store.KeyValue{}, ctx.Err()
	}
	s.closeMu.RUnlock()
	<-o.done
	return o.res, o.err
}

// commitLoop is the single writer. Whatever writers queued while the
// previous batch was being synced goes into the next one, so N concurrent
// writers share one fsync (group commit). bbolt's own db.Batch does the
// same but waits on a 10 ms timer, which caps small groups of writers.
//
// The loop also checkpoints: every CheckpointInterval after the first
// write not yet in the bbolt file, or sooner once CheckpointWrites are
// waiting. The interval paces disk I/O, not anything simulated, and no
// answer depends on when it runs. A failed checkpoint (a full disk) is
// retried after twice the last wait, up to maxCheckpointBackoff: the log
// keeps the writes meanwhile, and a full disk stays full for a while.
func (s *Store) commitLoop() {
	defer close(s.done)
	batch := make([]*op, 0, s.cfg.MaxBatch)
	var next timer // the next checkpoint; nil when none is waiting
	arm := func() {
		if next != nil {
			next.Stop()
		}
		next = s.cfg.newTimer(s.checkpointDelay())
	}
	if len(s.pending) > 0 {
		arm() // the log's writes, when the checkpoint at open failed
	}
	for {
		var due <-chan time.Time
		if next != nil {
			due = next.C()
		}
		select {
		case o := <-s.ops:
			batch = append(batch[:0], o)
		case <-due:
			next = nil
			if s.checkpoint() != nil {
				arm()
			}
			continue
		case <-s.stop:
			// Close waited for every writer handing an op over; the ops
			// still queued were handed over, so they are committed.
			for {
				if batch = s.fill(batch[:0]); len(batch) == 0 {
					break
				}
				s.commit(batch)
				s.answerCheckpoints(batch)
				clear(batch)
			}
			if next != nil {
				next.Stop()
			}
			if !s.abandon {
				s.stopErr = s.checkpoint()
			}
			return
		}
		batch = s.fill(batch)
		s.commit(batch)
		failures := s.checkpointFailures
		asked := s.answerCheckpoints(batch)
		if !asked && failures == 0 && (len(s.pending) >= s.cfg.CheckpointWrites || s.wal.off >= walCheckpointBytes) {
			// Sooner than the timer; not while retries wait out a failure.
			_ = s.checkpoint()
		}
		clear(batch)
		switch {
		case len(s.pending) == 0:
			if next != nil {
				next.Stop()
				next = nil
			}
		case next == nil || s.checkpointFailures > failures:
			arm()
		}
	}
}

// maxCheckpointBackoff is the longest wait between two tries of a failing
// checkpoint (or CheckpointInterval, when that is longer).
const maxCheckpointBackoff = 10 * time.Second

// checkpointDelay is how long the commit loop waits before the next
// checkpoint: CheckpointInterval, doubled for each failure in a row, up
// to maxCheckpointBackoff.
func (s *Store) checkpointDelay() time.Duration {
	d, limit := s.cfg.CheckpointInterval, max(s.cfg.CheckpointInterval, maxCheckpointBackoff)
	for range s.checkpointFailures {
		if d >= limit/2 {
			return limit
		}
		d *= 2
	}
	return d
}

// walCheckpointBytes bounds the log between checkpoints, whatever the
// number of writes.
const walCheckpointBytes = 64 << 20

// answerCheckpoints runs the checkpoint asked for by opCheckpoint ops in
// batch, if any, and answers them. It reports whether there were any.
func (s *Store) answerCheckpoints(batch []*op) bool {
	asked := false
	for _, o := range batch {
		if o.kind != opCheckpoint {
			continue
		}
		if !asked {
			asked = true
			o.err = s.checkpoint()
		}
		close(o.done)
	}
	return asked
}

// fill adds the queued ops to batch, up to MaxBatch, without waiting.
func (s *Store) fill(batch []*op) []*op {
	for len(batch) < s.cfg.MaxBatch {
		select {
		case o := <-s.ops:
			batch = append(batch, o)
		default:
			return batch
		}
	}
	return batch
}

// errNothingWritten rolls back a transaction that has nothing to write.
var errNothingWritten = errors.New("nothing written")

// commit checks batch's ops against the current state (the bbolt file
// under the not yet checkpointed writes), appends the ones that pass to
// the write-ahead log as one synced entry, and only then makes them
// visible to readers, publishes their events and answers the writers.
func (s *Store) commit(batch []*op) {
	base := s.rev.Load()
	changes, events := s.changes[:0], s.events[:0]
	tx, err := s.db.Begin(false)
	if err == nil {
		kv := tx.Bucket(bucketKV)
		rev := base
		for _, o := range batch {
			if o.kind == opCheckpoint {
				continue
			}
			o.err = nil
			old, found, damaged := s.current(kv, changes, o.key)
			c, ev, err := apply(o, old, found, damaged, rev+1)
			if err != nil {
				o.err = err
				continue
			}
			rev++
			s.local[o.key] = len(changes)
			changes = append(changes, c)
			events = append(events, ev)
		}
		_ = tx.Rollback()
		for _, c := range changes {
			delete(s.local, c.key)
		}
		if len(changes) > 0 {
			if s.cfg.beforeCommit != nil {
				err = s.cfg.beforeCommit()
			}
			if err == nil {
				err = s.wal.appendBatch(changes)
			}
		}
	}
	switch {
	case err == nil && len(changes) > 0:
		if s.cfg.afterCommit != nil {
			s.cfg.afterCommit()
		}
		s.mu.Lock()
		for _, c := range changes {
			s.addPending(c)
		}
		s.rev.Store(events[len(events)-1].Revision)
		s.mu.Unlock()
		// Publish before answering: once a writer has its reply, every
		// watcher already has the event in its buffer.
		s.hub.Publish(events...)
	case err != nil:
		// Nothing of the batch is visible and the counter did not move:
		// every write in it fails, and the next batch is written over it.
		s.cfg.Logger.Error("commit failed", "file", s.cfg.Path, "err", err)
		s.wal.discard()
		if errors.Is(err, syscall.ENOSPC) {
			err = fmt.Errorf("%w (the disk holding %s is full: writes fail until space is freed there; reads go on)", err, filepath.Dir(s.cfg.Path))
		}
		for _, o := range batch {
			if o.err == nil && o.kind != opCheckpoint {
				o.err = fmt.Errorf("commit to %s failed: %w", s.cfg.Path, err)
			}
		}
	}
	clear(events) // drop the values: the buffers live on
	clear(changes)
	s.changes, s.events = changes[:0], events[:0]
	for _, o := range batch {
		if o.kind != opCheckpoint {
			close(o.done)
		}
	}
}

// addPending makes c the key's latest not yet checkpointed change. The
// caller holds mu, or is Open before anyone else can read.
func (s *Store) addPending(c change) {
	if _, ok := s.pending[c.key]; !ok {
		dir := dirOf(c.key)
		keys := s.pendingDirs[dir]
		if keys == nil {
			keys = map[string]struct{}{}
			s.pendingDirs[dir] = keys
		}
		keys[c.key] = struct{}{}
	}
	s.pending[c.key] = c
}

// current is key's latest state for the commit loop: an earlier write of
// the same batch, else a write not yet checkpointed, else the bbolt file.
func (s *Store) current(kv *bolt.Bucket, batch []change, key string) (old record, found, damaged bool) {
	c, ok := change{}, false
	if i, in := s.local[key]; in {
		c, ok = batch[i], true
	} else {
		// Only this goroutine writes pending: no lock to read it.
		c, ok = s.pending[key]
	}
	if ok {
		return c.rec, !c.deleted, false
	}
	raw := kv.Get([]byte(key))
	if raw == nil {
		return record{}, false, false
	}
	old, err := decodeRecord(raw, s.format)
	return old, true, err != nil
}

// checkpoint commits the pending writes to the bbolt file in one synced
// transaction (etcd's backend commit), then forgets them and starts the
// log over. On failure (a full disk) nothing is forgotten: the log still
// holds them, reads still see them, and the next checkpoint tries again.
func (s *Store) checkpoint() error {
	if len(s.pending) == 0 {
		s.wal.reset()
		return nil
	}
	keys := make([]string, 0, len(s.pending))
	for k := range s.pending {
		keys = append(keys, k)
	}
	slices.Sort(keys) // bbolt fills its pages best in key order
	rev := s.rev.Load()
	err := s.db.Update(func(tx *bolt.Tx) error {
		kv := tx.Bucket(bucketKV)
		for _, k := range keys {
			c := s.pending[k]
			var err error
			if c.deleted {
				err = kv.Delete([]byte(k))
			} else {
				err = kv.Put([]byte(k), c.rec.encode(s.format))
			}
			if err != nil {
				return err
			}
		}
		if err := tx.Bucket(bucketMeta).Put(keyRevision, encodeRev(rev)); err != nil {
			return err
		}
		if s.cfg.beforeCheckpoint != nil {
			return s.cfg.beforeCheckpoint()
		}
		return nil
	})
	if err != nil {
		// One line per try, and the tries back off: a full disk does not
		// fill the log with this line ten times a second.
		s.checkpointFailures++
		if s.checkpointFailures == 1 {
			s.cfg.Logger.Error("checkpoint failed; the write-ahead log keeps the writes and reads still see them",
				"file", s.cfg.Path, "writes", len(s.pending), "err", err, "retry in", s.checkpointDelay())
		} else {
			s.cfg.Logger.Warn("checkpoint still failing", "file", s.cfg.Path, "tries", s.checkpointFailures,
				"writes", len(s.pending), "err", err, "retry in", s.checkpointDelay())
		}
		return fmt.Errorf("checkpoint to %s failed: %w", s.cfg.Path, err)
	}
	if s.checkpointFailures > 0 {
		s.cfg.Logger.Info("checkpoint succeeded again", "file", s.cfg.Path, "after failed tries", s.checkpointFailures, "writes", len(s.pending))
		s.checkpointFailures = 0
	}
	s.mu.Lock()
	// New maps, not cleared ones: a map keeps its size, and a list or a
	// checkpoint walking a large, nearly empty one pays for all of it.
	s.pending = map[string]change{}
	s.pendingDirs = map[string]map[string]struct{}{}
	s.mu.Unlock()
	s.wal.reset()
	return nil
}

func isStoreError(err error) bool {
	return errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrKeyExists) || errors.Is(err, store.ErrConflict)
}

// apply performs one op at revision rev on the key's current record
// (found says whether it exists) and returns the change to log and the
// event to publish. A failed check (exists, not found, conflict) fails
// only this op.
//
// A damaged record may be rewritten or deleted (that is how it is
// repaired) with what can still be read of it: its revisions. Its old
// value is gone, so events carry none.
func apply(o *op, old record, found, damaged bool, rev int64) (change, store.Event, error) {
	if o.kind == opCreate {
		if found {
			return change{}, store.Event{}, &store.KeyError{Err: store.ErrKeyExists, Key: o.key}
		}
		rec := record{createRev: rev, modRev: rev, uid: o.uid, value: o.value}
		o.res = rec.keyValue(o.key)
		return change{key: o.key, rec: rec},
			store.Event{Type: store.Added, Key: o.key, Value: o.value, UID: o.uid, CreateRevision: rev, Revision: rev}, nil
	}
	if !found {
		return change{}, store.Event{}, &store.KeyError{Err: store.ErrNotFound, Key: o.key}
	}
	if err := checkPreconditions(o.key, old, o.pre); err != nil {
		return change{}, store.Event{}, err
	}
	if o.kind == opUpdate {
		rec := record{createRev: old.createRev, modRev: rev, uid: old.uid, value: o.value}
		o.res = rec.keyValue(o.key)
		typ := store.Modified
		if damaged {
			// No reader could see the damaged value: to watchers the
			// rewritten object is new.
			typ = store.Added
		}
		return change{key: o.key, rec: rec}, store.Event{Type: typ, Key: o.key, Value: o.value, PrevValue: old.value,
			PrevModRevision: old.modRev, UID: old.uid, CreateRevision: old.createRev, Revision: rev}, nil
	}
	o.res = store.KeyValue{Key: o.key, Value: old.value, UID: old.uid, CreateRevision: old.createRev, ModRevision: rev}
	return change{key: o.key, rec: record{modRev: rev}, deleted: true},
		store.Event{Type: store.Deleted, Key: o.key, Value: old.value, PrevValue: old.value,
			PrevModRevision: old.modRev, UID: old.uid, CreateRevision: old.createRev, Revision: rev}, nil
}

func checkPreconditions(key string, cur record, pre store.Preconditions) error {
	if pre.UID != "" && pre.UID != cur.uid {
		return &store.KeyError{Err: store.ErrConflict, Key: key,
			Detail: fmt.Sprintf("uid is %s, precondition wants %s", cur.uid, pre.UID)}
	}
	if pre.ResourceVersion != 0 && pre.ResourceVersion != cur.modRev {
		return &store.KeyError{Err: store.ErrConflict, Key: key,
			Detail: fmt.Sprintf("revision is %d, precondition wants %d", cur.modRev, pre.ResourceVersion)}
	}
	return nil
}

// Get implements store.Interface.
func (s *Store) Get(ctx context.Context, key string) (store.KeyValue, error) {
	if err := ctx.Err(); err != nil {
		return store.KeyValue{}, err
	}
	var kv store.KeyValue
	err := s.read(func(pending map[string]change) bool {
		c, ok := pending[key]
		if ok {
			kv = c.keyValue()
		}
		return ok
	}, func(tx *bolt.Tx) {
		if raw := tx.Bucket(bucketKV).Get([]byte(key)); raw != nil {
			kv = s.readRecord(key, raw)
		}
	})
	if err == nil && kv.Key == "" {
		err = &store.KeyError{Err: store.ErrNotFound, Key: key}
	}
	return kv, err
}

// dirOf is key up to and with its last "/" ("" when it has none).
func dirOf(key string) string {
	return key[:strings.LastIndexByte(key, '/')+1]
}

// keyValue is what a read of a not yet checkpointed change returns: no
// key for a deletion. The value is copied, as one read from bbolt is, so
// that no caller holds the store's own bytes.
func (c change) keyValue() store.KeyValue {
	if c.deleted {
		return store.KeyValue{}
	}
	kv := c.rec.keyValue(c.key)
	kv.Value = bytes.Clone(kv.Value)
	return kv
}

// readRecord turns a stored record into a KeyValue. A damaged one comes
// back with its key and revisions and no value (the store.KeyValue
// contract for a value that failed its integrity check): the caller names
// the key as corrupt, and the other keys of a list are unaffected.
func (s *Store) readRecord(key string, raw []byte) store.KeyValue {
	r, err := decodeRecord(raw, s.format)
	if err != nil {
		s.cfg.Logger.Error("damaged record", "file", s.cfg.Path, "key", key, "err", err)
		return store.KeyValue{Key: key, CreateRevision: r.createRev, ModRevision: r.modRev}
	}
	return r.keyValue(key)
}

func (r record) keyValue(key string) store.KeyValue {
	return store.KeyValue{Key: key, Value: r.value, UID: r.uid, CreateRevision: r.createRev, ModRevision: r.modRev}
}

// read is every read's view of the store, unless it is closed: first the
// writes not yet checkpointed (fromPending; true when it needs nothing
// more), then a bbolt read transaction. Both are taken under one RLock of
// mu: a checkpoint forgets its writes (under the lock) only after they
// are committed to the file, so the transaction opened here holds every
// write that pending no longer does, and the reader sees each
// acknowledged write once, as of one revision.
//
// fromBolt runs after the lock is released, so that a long list does not
// hold up the commit loop. Nobody waits for mu while holding a bbolt
// transaction, which keeps bbolt's remap (it waits for readers) free of
// deadlock.
func (s *Store) read(fromPending func(map[string]change) bool, fromBolt func(*bolt.Tx)) error {
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return store.ErrClosed
	}
	s.mu.RLock()
	if fromPending(s.pending) {
		s.mu.RUnlock()
		return nil
	}
	tx, err := s.db.Begin(false)
	s.mu.RUnlock()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	fromBolt(tx)
	return nil
}

// List implements store.Interface. The items and the revision are one
// view: the not yet checkpointed writes under the prefix, merged in key
// order over the bbolt file's, at the revision of the last of them. bbolt
// keeps only the latest value of a key, so a read at a past revision
// undoes the later changes that the event window still holds
// (store.ListAt): the window is this store's history.
func (s *Store) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	if err := ctx.Err(); err != nil {
		return store.ListResult{}, err
	}
	if opts.Revision != 0 {
		return store.ListAt(s.hub, prefix, opts, func(now store.ListOptions) (store.ListResult, error) {
			return s.listNow(prefix, now)
		})
	}
	return s.listNow(prefix, opts)
}

// listNow is List of the latest revision.
func (s *Store) listNow(prefix string, opts store.ListOptions) (store.ListResult, error) {
	var res store.ListResult
	var over []change
	err := s.read(func(pending map[string]change) bool {
		res.Revision = s.rev.Load()
		for dir, keys := range s.pendingDirs {
			// A key is its directory and a name without "/": it can
			// have the prefix only if the directory has it, or is a
			// prefix of it.
			all := strings.HasPrefix(dir, prefix)
			if !all && !strings.HasPrefix(prefix, dir) {
				continue
			}
			for k := range keys {
				if (all || strings.HasPrefix(k, prefix)) && k > opts.StartAfter {
					over = append(over, pending[k])
				}
			}
		}
		return false
	}, func(tx *bolt.Tx) {
		slices.SortFunc(over, func(a, b change) int { return strings.Compare(a.key, b.key) })
		c := tx.Bucket(bucketKV).Cursor()
		start := prefix
		if opts.StartAfter > start {
			start = opts.StartAfter
		}
		k, v := c.Seek([]byte(start))
		for {
			inBolt := k != nil && strings.HasPrefix(string(k), prefix)
			if inBolt && opts.StartAfter != "" && string(k) <= opts.StartAfter {
				k, v = c.Next()
				continue
			}
			var item store.KeyValue
			switch {
			case !inBolt && len(over) == 0:
				return
			case inBolt && (len(over) == 0 || string(k) < over[0].key):
				item = s.readRecord(string(k), v)
				k, v = c.Next()
			default:
				// A newer write of this key (or of a key bbolt has
				// not got yet) wins over the file.
				ch := over[0]
				over = over[1:]
				if inBolt && string(k) == ch.key {
					k, v = c.Next()
				}
				if ch.deleted {
					continue
				}
				item = ch.keyValue()
			}
			if opts.Limit > 0 && int64(len(res.Items)) == opts.Limit {
				res.More = true
				return
			}
			res.Items = append(res.Items, item)
		}
	})
	return res, err
}

// Watch implements store.Interface.
func (s *Store) Watch(ctx context.Context, prefix string, fromRevision int64) (store.Watcher, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	return s.hub.Watch(ctx, prefix, fromRevision)
}

// Compact implements store.Interface. bbolt keeps no history, so only the
// event window shrinks.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.hub.Compact(revision)
	return nil
}

// Close implements store.Interface: writes already handed to the commit
// loop are committed, a last checkpoint puts everything in the bbolt file
// (the log is then cut to nothing), then watches end and the file is
// closed.
func (s *Store) Close() error {
	s.closeMu.Lock()
	if s.closed {
		s.closeMu.Unlock()
		return nil
	}
	s.closed = true
	s.closeMu.Unlock()
	close(s.stop)
	<-s.done
	s.hub.Close()
	clean := !s.abandon && s.stopErr == nil
	return errors.Join(s.stopErr, s.wal.close(clean), s.db.Close())
}

// checkpointNow has the commit loop checkpoint at once (tests).
func (s *Store) checkpointNow() error {
	_, err := s.submit(context.Background(), &op{kind: opCheckpoint})
	return err
}

// crash stops the store as a killed process would after its last
// acknowledgement: nothing more reaches the bbolt file (no checkpoint),
// the log is left as it is (tests).
func (s *Store) crash() error {
	s.abandon = true
	return s.Close()
}

// DBSize implements store.Sizer: the size of the bbolt file (the
// write-ahead log is left out, as etcd reports its database without its
// WAL).
func (s *Store) DBSize(context.Context) (int64, string, error) {
	fi, err := os.Stat(s.cfg.Path)
	if err != nil {
		return 0, "", err
	}
	return fi.Size(), "", nil
}
