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
	"strings"
	"sync"
	"sync/atomic"
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
	// Watch sizes the event window and the watcher buffers.
	Watch store.BroadcasterConfig
	// Logger receives the store's few log lines (default: discard).
	Logger *slog.Logger

	// beforeCommit, when set by a test in this package, runs at the end of
	// each write transaction; an error fails the commit (fault injection).
	beforeCommit func() error
	// afterCommit, when set by a benchmark, runs right after a successful
	// commit, before events are published.
	afterCommit func()
}

// Store is the bbolt backend of store.Interface.
type Store struct {
	cfg    Config
	format recordFormat
	db     *bolt.DB
	hub    *store.Broadcaster
	rev    atomic.Int64
	ops    chan *op
	stop   chan struct{}
	done   chan struct{}

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
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir for %s: %w", cfg.Path, err)
	}
	if err := checkMetaPages(cfg.Path); err != nil {
		return nil, err
	}
	if _, ok, err := readMetaPages(cfg.Path); err != nil {
		return nil, err
	} else if ok {
		err := verifyPages(cfg.Path, func() (*bolt.DB, error) {
			db, err := bolt.Open(cfg.Path, 0o600, &bolt.Options{ReadOnly: true, Timeout: cfg.OpenTimeout})
			return db, lockError(cfg.Path, err)
		})
		if err != nil {
			return nil, err
		}
	}
	db, err := bolt.Open(cfg.Path, 0o600, &bolt.Options{
		Timeout: cfg.OpenTimeout,
		NoSync:  cfg.UnsafeNoFsync,
		// The freelist is rebuilt at open instead of written at every
		// commit: fewer pages per commit, as etcd does.
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
	})
	if err != nil {
		return nil, lockError(cfg.Path, err)
	}
	// bbolt panics on some kinds of page corruption; at open we would
	// rather report the file than crash.
	defer func() {
		if r := recover(); r != nil {
			_ = db.Close()
			s, err = nil, fmt.Errorf("data file %s is corrupt: %v", cfg.Path, r)
		}
	}()
	rev, format, err := prepare(db, cfg.Logger, cfg.Path)
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("data file %s: %w", cfg.Path, err)
	}
	if cfg.UnsafeNoFsync {
		cfg.Logger.Warn("UNSAFE: fsync is off; acknowledged writes can be lost on a crash", "file", cfg.Path)
	}
	s = &Store{
		cfg: cfg,
		db:  db,
		hub: store.NewBroadcaster(cfg.Watch, rev),
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
	s.rev.Store(rev)
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
func prepare(db *bolt.DB, logger *slog.Logger, path string) (int64, recordFormat, error) {
	var rev int64
	format := formatSummed
	err := db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			empty := true
			_ = tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
			if !empty {
				return errors.New("not a kubesim data file (no meta bucket); refusing to change it")
			}
			var err error
			if meta, err = tx.CreateBucket(bucketMeta); err != nil {
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
				logger.Error("damaged record: reads of this key fail until it is deleted or rewritten", "file", path, "key", string(k), "err", err)
				return nil
			}
			if r.modRev > rev {
				return fmt.Errorf("key %q has revision %d beyond the counter %d", k, r.modRev, rev)
			}
			return nil
		})
	})
	return rev, format, err
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
// previous transaction was syncing goes into the next one, so N concurrent
// writers share one fsync (group commit). bbolt's own db.Batch does the
// same but waits on a 10 ms timer, which caps small groups of writers.
func (s *Store) commitLoop() {
	defer close(s.done)
	batch := make([]*op, 0, s.cfg.MaxBatch)
	for {
		select {
		case o := <-s.ops:
			batch = append(batch[:0], o)
		case <-s.stop:
			// Close waited for every writer handing an op over; the ops
			// still queued were handed over, so they are committed.
			for {
				if batch = s.fill(batch[:0]); len(batch) == 0 {
					return
				}
				s.commit(batch)
				clear(batch)
			}
		}
		batch = s.fill(batch)
		s.commit(batch)
		clear(batch)
	}
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

// errNothingWritten rolls back a transaction in which every op failed its
// checks, saving a pointless sync.
var errNothingWritten = errors.New("nothing written")

// commit applies batch in one transaction, then publishes its events and
// answers the writers.
func (s *Store) commit(batch []*op) {
	base := s.rev.Load()
	var events []store.Event
	err := s.db.Update(func(tx *bolt.Tx) error {
		kv := tx.Bucket(bucketKV)
		rev := base
		events = events[:0]
		for _, o := range batch {
			o.err = nil
			ev, err := apply(kv, o, rev+1, s.format)
			if err != nil {
				if isStoreError(err) {
					o.err = err
					continue
				}
				return err
			}
			rev++
			events = append(events, ev)
		}
		if rev == base {
			return errNothingWritten
		}
		if err := tx.Bucket(bucketMeta).Put(keyRevision, encodeRev(rev)); err != nil {
			return err
		}
		if s.cfg.beforeCommit != nil {
			return s.cfg.beforeCommit()
		}
		return nil
	})
	switch {
	case err == nil:
		if s.cfg.afterCommit != nil {
			s.cfg.afterCommit()
		}
		s.rev.Store(events[len(events)-1].Revision)
		// Publish before answering: once a writer has its reply, every
		// watcher already has the event in its buffer.
		s.hub.Publish(events...)
	case errors.Is(err, errNothingWritten):
	default:
		// bbolt rolled the transaction back: nothing of it is visible and
		// the counter was not advanced. Every write in it fails.
		s.cfg.Logger.Error("commit failed", "file", s.cfg.Path, "err", err)
		for _, o := range batch {
			if o.err == nil {
				o.err = fmt.Errorf("commit to %s failed: %w", s.cfg.Path, err)
			}
		}
	}
	for _, o := range batch {
		close(o.done)
	}
}

func isStoreError(err error) bool {
	return errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrKeyExists) || errors.Is(err, store.ErrConflict)
}

// apply performs one op inside the transaction at revision rev. A store
// error (exists, not found, conflict) fails only this op; any other error
// fails the transaction.
//
// A damaged record may be rewritten or deleted (that is how it is
// repaired) with what can still be read of it: its revisions. Its old
// value is gone, so events carry none.
func apply(kv *bolt.Bucket, o *op, rev int64, f recordFormat) (store.Event, error) {
	key := []byte(o.key)
	raw := kv.Get(key)
	var old record
	damaged := false
	if raw != nil {
		var err error
		old, err = decodeRecord(raw, f)
		damaged = err != nil
	}
	if o.kind == opCreate {
		if raw != nil {
			return store.Event{}, &store.KeyError{Err: store.ErrKeyExists, Key: o.key}
		}
		rec := record{createRev: rev, modRev: rev, uid: o.uid, value: o.value}
		if err := kv.Put(key, rec.encode(f)); err != nil {
			return store.Event{}, err
		}
		o.res = store.KeyValue{Key: o.key, Value: o.value, UID: o.uid, CreateRevision: rev, ModRevision: rev}
		return store.Event{Type: store.Added, Key: o.key, Value: o.value, UID: o.uid, CreateRevision: rev, Revision: rev}, nil
	}
	if raw == nil {
		return store.Event{}, &store.KeyError{Err: store.ErrNotFound, Key: o.key}
	}
	if err := checkPreconditions(o.key, old, o.pre); err != nil {
		return store.Event{}, err
	}
	if o.kind == opUpdate {
		rec := record{createRev: old.createRev, modRev: rev, uid: old.uid, value: o.value}
		if err := kv.Put(key, rec.encode(f)); err != nil {
			return store.Event{}, err
		}
		o.res = store.KeyValue{Key: o.key, Value: o.value, UID: old.uid, CreateRevision: old.createRev, ModRevision: rev}
		typ := store.Modified
		if damaged {
			// No reader could see the damaged value: to watchers the
			// rewritten object is new.
			typ = store.Added
		}
		return store.Event{Type: typ, Key: o.key, Value: o.value, PrevValue: old.value,
			UID: old.uid, CreateRevision: old.createRev, Revision: rev}, nil
	}
	if err := kv.Delete(key); err != nil {
		return store.Event{}, err
	}
	o.res = store.KeyValue{Key: o.key, Value: old.value, UID: old.uid, CreateRevision: old.createRev, ModRevision: rev}
	return store.Event{Type: store.Deleted, Key: o.key, Value: old.value, PrevValue: old.value,
		UID: old.uid, CreateRevision: old.createRev, Revision: rev}, nil
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
	err := s.view(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketKV).Get([]byte(key))
		if raw == nil {
			return &store.KeyError{Err: store.ErrNotFound, Key: key}
		}
		kv = s.readRecord(key, raw)
		return nil
	})
	return kv, err
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

// view runs a read transaction unless the store is closed.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return store.ErrClosed
	}
	return s.db.View(fn)
}

// List implements store.Interface. The items and the revision come from one
// read transaction, so they agree.
func (s *Store) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	if err := ctx.Err(); err != nil {
		return store.ListResult{}, err
	}
	var res store.ListResult
	err := s.view(func(tx *bolt.Tx) error {
		res.Revision = int64(binary.BigEndian.Uint64(tx.Bucket(bucketMeta).Get(keyRevision)))
		c := tx.Bucket(bucketKV).Cursor()
		start := prefix
		if opts.StartAfter > start {
			start = opts.StartAfter
		}
		for k, v := c.Seek([]byte(start)); k != nil && strings.HasPrefix(string(k), prefix); k, v = c.Next() {
			if opts.StartAfter != "" && string(k) <= opts.StartAfter {
				continue
			}
			if opts.Limit > 0 && int64(len(res.Items)) == opts.Limit {
				res.More = true
				break
			}
			res.Items = append(res.Items, s.readRecord(string(k), v))
		}
		return nil
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
// loop are committed, then watches end and the file is closed.
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
	return s.db.Close()
}
