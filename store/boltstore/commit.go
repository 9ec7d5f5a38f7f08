package boltstore

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/kubesim/kubesim/store"
)

// The commit loop is the single writer. Whatever writers queued while it
// was busy goes into the next batch, so N concurrent writers share one
// log entry and one fdatasync (group commit). bbolt's own db.Batch does
// the same but waits on a 10 ms timer, which caps small groups of
// writers.
//
// A batch's life, as etcd's raft pipeline (entries are appended to the
// WAL while earlier ones are still being fsynced, and a proposal is
// answered once its own entry is durable):
//
//  1. start: the loop checks each op against the latest state (the
//     batches in flight, then the acknowledged writes, then the bbolt
//     file), gives it the next revision and writes the batch to the log
//     as one entry; a goroutine of its own syncs the log for it. The loop
//     goes on at once with the next batch, up to Config.MaxInFlight
//     batches waiting for their syncs. An fdatasync returns once
//     everything written to the file before it was called is on the disk,
//     so each batch's sync also covers every earlier entry, and syncs
//     that overlap share the disk's cache flushes.
//  2. land: batches are acknowledged strictly in log order, each once its
//     own sync and every earlier batch's have succeeded — its writes made
//     visible to readers, its events published, its writers answered.
//  3. A failed write or sync fails its batch and every batch after it
//     (they were checked against writes that will never be acknowledged,
//     and a replay would stop at the failed entry anyway): the loop takes
//     no new batch until every sync in flight has returned, zeroes the
//     failed entries' headers, rewinds the log to the first of them and
//     only then answers their writers. The revisions they took are given
//     again.
//
// The loop also checkpoints (see checkpoint below).
type loopState struct {
	// flights are the batches written to the log and not yet landed, in
	// log order; spare are landed ones kept for reuse.
	flights []*flight
	spare   []*flight
	// synced receives each flight whose sync has returned.
	synced chan *flight
	// unsynced is the latest change per key among the flights: what the
	// next batch is checked against before the acknowledged writes.
	unsynced map[string]change
	// next is the last revision given to a write (rev, the last
	// acknowledged one, follows it as flights land).
	next int64
	// broken is set when a batch's write or sync failed: no new batch
	// starts until repair. failure is the first failed batch's error,
	// rewind its log offset, failed the batches waiting for the repair.
	broken  bool
	failure error
	rewind  int64
	failed  []*flight

	// fileRev is the revision the bbolt file has; checkpointing says a
	// checkpoint is running (its outcome arrives on checkpointed) and
	// checkpointRev is the revision it brings the file to.
	fileRev       int64
	checkpointing bool
	checkpointRev int64
	checkpointed  chan error
	// wrapping says the log is long enough to start over from its start
	// as soon as the file has everything in it; no new batch starts
	// until then — unless the last checkpoint failed (a full disk): the
	// log then keeps taking writes while checkpoints are tried again.
	wrapping         bool
	checkpointFailed bool
}

// A flight is one batch on its way: its ops, the changes and events of
// those that passed their checks, and where its log entry starts.
type flight struct {
	ops     []*op
	changes []change
	events  []store.Event
	at      int64
	written bool  // its entry is in the log
	synced  bool  // its sync has returned (or it needs none)
	err     error // its write's or sync's failure
}

// walWrapBytes is how long the log may grow before new writes wait (for
// about one sync and one small checkpoint) so that it can start over from
// its start: the file then has every write the log holds. Until then the
// log is appended to across checkpoints, which run beside the writes.
const walWrapBytes = 4 << 20

func (s *Store) commitLoop() {
	defer close(s.done)
	l := &s.loop
	batch := make([]*op, 0, s.cfg.MaxBatch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	armed, due, stopping := false, false, false
	var asked []*op // opCheckpoint ops waiting for a checkpoint of their own
	for {
		idle := len(l.flights) == 0 && !l.checkpointing
		if stopping && idle && len(s.ops) == 0 {
			break
		}
		if idle && len(asked) > 0 {
			// Asked for (tests): everything acknowledged so far, in the
			// file before the answer.
			err := s.checkpointNowFromLoop()
			for _, o := range asked {
				o.err = err
				close(o.done)
			}
			asked = asked[:0]
		}
		if idle && l.wrapping {
			if l.fileRev == l.next {
				s.wal.reset()
				l.wrapping = false
			} else {
				due = true
			}
		}
		if !l.checkpointing && s.pending.len() > 0 && (due || s.pending.len() >= s.cfg.CheckpointWrites) {
			s.startCheckpoint()
			due = false
		}
		if !armed && !l.checkpointing && s.pending.len() > 0 {
			timer.Reset(s.cfg.CheckpointInterval)
			armed = true
		}
		if s.wal.off >= walWrapBytes && !l.checkpointFailed {
			l.wrapping = true
		}

		var ops <-chan *op
		if !l.broken && !l.wrapping && len(asked) == 0 && len(l.flights) < s.cfg.MaxInFlight {
			ops = s.ops
		}
		var stop <-chan struct{}
		if !stopping {
			stop = s.stop
		}
		select {
		case o := <-ops:
			batch = s.fill(append(batch[:0], o))
			writes := batch[:0]
			for _, o := range batch {
				if o.kind == opCheckpoint {
					asked = append(asked, o)
				} else {
					writes = append(writes, o)
				}
			}
			if len(writes) > 0 {
				s.start(writes)
			}
			clear(batch)
		case f := <-l.synced:
			f.synced = true
			s.land()
		case err := <-l.checkpointed:
			if s.finishCheckpoint(err) != nil {
				// A failed checkpoint (a full disk) is tried again an
				// interval later: the log keeps the writes meanwhile.
				armed = false
			}
		case <-timer.C:
			armed = false
			due = true
		case <-stop:
			// Close waited for every writer handing an op over; the
			// ops still queued were handed over, so they are committed
			// before the loop ends.
			stopping = true
		}
	}
	timer.Stop()
	if !s.abandon {
		s.stopErr = s.checkpointNowFromLoop()
	}
	for _, o := range asked {
		o.err = s.stopErr
		close(o.done)
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

// start checks batch's ops against the latest state, writes the ones that
// pass to the log as one entry and has it synced (step 1 above).
func (s *Store) start(batch []*op) {
	l := &s.loop
	f := s.newFlight()
	f.ops = append(f.ops, batch...)
	f.at = s.wal.off
	tx, err := s.db.Begin(false)
	if err == nil {
		kv := tx.Bucket(bucketKV)
		for _, o := range batch {
			o.err = nil
			old, found, damaged := s.current(kv, o.key)
			c, ev, err := apply(o, old, found, damaged, l.next+1)
			if err != nil {
				o.err = err
				continue
			}
			l.next++
			l.unsynced[o.key] = c
			f.changes = append(f.changes, c)
			f.events = append(f.events, ev)
		}
		_ = tx.Rollback()
		if len(f.changes) > 0 {
			if s.cfg.beforeCommit != nil {
				err = s.cfg.beforeCommit()
			}
			if err == nil {
				f.at, err = s.wal.write(f.changes)
				f.written = err == nil
			}
		}
	}
	l.flights = append(l.flights, f)
	switch {
	case err != nil:
		f.err, f.synced = err, true
		l.broken = true
	case len(f.changes) == 0 || s.wal.noSync:
		// Nothing to make durable: it lands after the batches before it.
		f.synced = true
	default:
		go s.sync(f)
	}
	s.land()
}

// sync makes f's entry durable (and every entry before it) and hands f
// back to the loop. It runs beside the loop, and beside other syncs.
func (s *Store) sync(f *flight) {
	var err error
	if s.cfg.beforeSync != nil {
		err = s.cfg.beforeSync(f.events[0].Revision)
	}
	if err == nil {
		err = s.wal.sync()
	}
	f.err = err
	s.loop.synced <- f
}

// current is key's latest state for the commit loop: a batch in flight
// (this one included), else an acknowledged write not yet in the file,
// else the bbolt file.
func (s *Store) current(kv *bolt.Bucket, key string) (old record, found, damaged bool) {
	c, ok := s.loop.unsynced[key]
	if !ok {
		// Only this goroutine writes pending and frozen: no lock to
		// read them.
		c, ok = s.pending.byKey[key]
	}
	if !ok && s.frozen != nil {
		c, ok = s.frozen.byKey[key]
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

// land acknowledges, in log order, the flights at the head whose syncs
// have returned (step 2), and fails a failed one and every one after it
// (step 3).
func (s *Store) land() {
	l := &s.loop
	was, n := len(l.flights), 0
	for _, f := range l.flights {
		if !f.synced {
			break
		}
		n++
		if f.err != nil && l.failure == nil {
			l.failure, l.rewind, l.broken = f.err, f.at, true
		}
		if l.failure != nil {
			l.failed = append(l.failed, f)
			continue
		}
		s.acknowledge(f)
	}
	l.flights = append(l.flights[:0], l.flights[n:]...)
	clear(l.flights[len(l.flights):was])
	if l.broken && len(l.flights) == 0 {
		s.repair()
	}
}

// acknowledge makes f's writes visible, publishes their events and
// answers its writers.
func (s *Store) acknowledge(f *flight) {
	l := &s.loop
	if len(f.changes) > 0 {
		if s.cfg.afterCommit != nil {
			s.cfg.afterCommit()
		}
		s.mu.Lock()
		for _, c := range f.changes {
			s.pending.put(c)
		}
		s.rev.Store(f.events[len(f.events)-1].Revision)
		s.mu.Unlock()
		for _, c := range f.changes {
			if u, ok := l.unsynced[c.key]; ok && u.rec.modRev == c.rec.modRev {
				delete(l.unsynced, c.key)
			}
		}
		// Publish before answering: once a writer has its reply, every
		// watcher already has the event in its buffer.
		s.hub.Publish(f.events...)
	}
	for _, o := range f.ops {
		close(o.done)
	}
	s.recycle(f)
}

// repair ends a failure once no sync is running: the failed entries can
// never be replayed (their headers are zeroed; best effort, the disk may
// be failing), the next entry goes where the first of them was, and their
// writers are told. Nothing of them was visible and the counter goes back
// to the last acknowledged revision.
func (s *Store) repair() {
	l := &s.loop
	err := l.failure
	if err == nil {
		err = errors.New("commit failed")
	}
	s.cfg.Logger.Error("commit failed", "file", s.cfg.Path, "err", err)
	var entries []int64
	for _, f := range l.failed {
		if f.written {
			entries = append(entries, f.at)
		}
	}
	s.wal.discard(entries, l.rewind)
	clear(l.unsynced)
	l.next = s.rev.Load()
	for _, f := range l.failed {
		for _, o := range f.ops {
			o.err = fmt.Errorf("commit to %s failed: %w", s.cfg.Path, err)
			close(o.done)
		}
		s.recycle(f)
	}
	clear(l.failed)
	l.failed, l.failure, l.broken = l.failed[:0], nil, false
}

func (s *Store) newFlight() *flight {
	l := &s.loop
	if n := len(l.spare); n > 0 {
		f := l.spare[n-1]
		l.spare = l.spare[:n-1]
		return f
	}
	return &flight{}
}

// recycle keeps f's slices for a later batch, without their values.
func (s *Store) recycle(f *flight) {
	clear(f.ops)
	clear(f.changes)
	clear(f.events)
	*f = flight{ops: f.ops[:0], changes: f.changes[:0], events: f.events[:0]}
	if len(s.loop.spare) < s.cfg.MaxInFlight {
		s.loop.spare = append(s.loop.spare, f)
	}
}

// Checkpoints bring the bbolt file up to date: every CheckpointInterval
// after the first write not yet in it, or sooner once CheckpointWrites
// are waiting. The interval is wall time on purpose: it paces disk I/O,
// not anything simulated, and no answer depends on when it runs.
//
// A checkpoint runs beside the commit loop, which goes on writing
// batches to the log meanwhile (etcd's backend commits its batch beside
// the raft loop the same way): the acknowledged writes so far become
// frozen, later ones go to a new pending set, and reads look at both.
// Once the file has them (one synced bbolt transaction), frozen is
// forgotten. The log is not written over then — it holds the later
// writes too — but appended to until the file has everything in it (the
// loop is idle) or it reaches walWrapBytes (then new writes wait for that
// moment); a replay skips what the file already has.

// startCheckpoint freezes the acknowledged writes and commits them to the
// file in a goroutine; its outcome comes back on loop.checkpointed.
func (s *Store) startCheckpoint() {
	l := &s.loop
	s.mu.Lock()
	frozen := s.pending
	s.frozen, s.pending = frozen, newChangeSet()
	rev := s.rev.Load()
	s.mu.Unlock()
	l.checkpointing, l.checkpointRev = true, rev
	go func() { l.checkpointed <- s.writeCheckpoint(frozen, rev) }()
}

// finishCheckpoint takes a checkpoint's outcome. On success the frozen
// writes are forgotten, and if nothing was written since, the log starts
// over. On failure (a full disk) nothing is forgotten: the frozen writes
// go back to pending, behind any newer ones, the log still holds them
// all, and the next checkpoint tries again.
func (s *Store) finishCheckpoint(err error) error {
	l := &s.loop
	l.checkpointing = false
	l.checkpointFailed = err != nil
	if err != nil {
		l.wrapping = false
	}
	s.mu.Lock()
	if err == nil {
		l.fileRev = l.checkpointRev
	} else {
		for k, c := range s.frozen.byKey {
			if _, newer := s.pending.byKey[k]; !newer {
				s.pending.put(c)
			}
		}
	}
	s.frozen = nil
	s.mu.Unlock()
	if err == nil && len(l.flights) == 0 && l.fileRev == l.next {
		s.wal.reset()
		l.wrapping = false
	}
	return err
}

// checkpointNowFromLoop runs a checkpoint of everything acknowledged and
// waits for it (the loop is idle: no flight, no other checkpoint).
func (s *Store) checkpointNowFromLoop() error {
	if s.pending.len() == 0 {
		if len(s.loop.flights) == 0 && s.loop.fileRev == s.loop.next {
			s.wal.reset()
		}
		return nil
	}
	s.startCheckpoint()
	return s.finishCheckpoint(<-s.loop.checkpointed)
}

// writeCheckpoint commits frozen to the bbolt file at revision rev in one
// synced transaction (etcd's backend commit).
func (s *Store) writeCheckpoint(frozen *changeSet, rev int64) error {
	keys := make([]string, 0, frozen.len())
	for k := range frozen.byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys) // bbolt fills its pages best in key order
	err := s.db.Update(func(tx *bolt.Tx) error {
		kv := tx.Bucket(bucketKV)
		for _, k := range keys {
			c := frozen.byKey[k]
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
		s.cfg.Logger.Error("checkpoint failed; the write-ahead log keeps the writes", "file", s.cfg.Path, "err", err)
		return fmt.Errorf("checkpoint to %s failed: %w", s.cfg.Path, err)
	}
	return nil
}

// A changeSet is acknowledged writes not yet in the bbolt file: the
// latest change per key, and the keys indexed by directory (the key up to
// and with its last "/"), so that a List visits only the directories
// under its prefix — the admission plugins list (mostly empty) prefixes
// on every create, and a scan of every key each time was most of the CPU
// while 5,000 nodes registered. A set is made anew, not cleared, at each
// checkpoint: a map keeps its size, and a list walking a large, nearly
// empty one pays for all of it.
type changeSet struct {
	byKey map[string]change
	dirs  map[string]map[string]struct{}
}

func newChangeSet() *changeSet {
	return &changeSet{byKey: map[string]change{}, dirs: map[string]map[string]struct{}{}}
}

func (cs *changeSet) len() int { return len(cs.byKey) }

func (cs *changeSet) put(c change) {
	if _, ok := cs.byKey[c.key]; !ok {
		dir := dirOf(c.key)
		keys := cs.dirs[dir]
		if keys == nil {
			keys = map[string]struct{}{}
			cs.dirs[dir] = keys
		}
		keys[c.key] = struct{}{}
	}
	cs.byKey[c.key] = c
}

// under appends to out the changes of keys with prefix after startAfter.
func (cs *changeSet) under(prefix, startAfter string, out []change) []change {
	for dir, keys := range cs.dirs {
		// A key is its directory and a name without "/": it can have
		// the prefix only if the directory has it, or is a prefix of it.
		all := strings.HasPrefix(dir, prefix)
		if !all && !strings.HasPrefix(prefix, dir) {
			continue
		}
		for k := range keys {
			if (all || strings.HasPrefix(k, prefix)) && k > startAfter {
				out = append(out, cs.byKey[k])
			}
		}
	}
	return out
}
