// Package boltstore is the embedded default backend of store.Interface: a
// write-ahead log and one bbolt file in the data directory, playing etcd's
// part.
//
// Every write takes the next revision of a single counter; each key keeps
// its create revision, its mod revision (the object's resourceVersion) and
// the uid given at create. Writes from many goroutines go through one
// commit loop that puts everything queued while the previous batch was
// being synced into the next one (group commit), so concurrent writers
// share one sync instead of paying one each.
//
// # Durability: the log, as etcd's WAL
//
// A batch is acknowledged once it is appended to the write-ahead log
// (kubesim.db.wal, wal.go) as one checksummed entry and the log is synced
// with one fdatasync. The log grows in zeroed chunks that are then written
// over, so that sync has only data to flush, no file size or block
// allocation. This is etcd's answer to the same problem (server/storage/wal:
// one append and one fdatasync per batch of raft proposals); a bbolt
// commit, which kubesim did per batch before, costs two syncs (the pages,
// then the meta page) and more pages written.
//
// The bbolt file is brought up to date by checkpoints: every 100 ms after
// the first write not yet in it, or once 10,000 writes are waiting, or at
// Close, the commit loop commits the waiting writes in one ordinary, synced
// bbolt transaction and starts the log over from its start. That is etcd's
// backend batch (mvcc/backend: batchInterval 100 ms, batchLimit 10,000),
// committed without making any writer wait for it. On open, the log's
// writes past the file's revision (a crash came before their checkpoint)
// become the not yet checkpointed writes again, and a checkpoint commits
// them at once: each change in the log carries its revision, so a replay
// is idempotent, and it stops at the first entry that is torn, fails its
// checksum, or does not continue the revisions exactly — that entry was
// never acknowledged, and what lies after it is zeros or an earlier
// cycle's entries, already in the file. Unless a sound entry further on
// continues the revisions after a gap: then the entry was acknowledged
// and is damaged, and the store refuses to open (see below).
//
// # A full disk
//
// Checkpoints fail first when the disk fills (bbolt needs new pages; the
// log writes into space it allocated before). The log keeps the writes
// and reads still see them; the checkpoint is retried after twice the
// last wait, up to 10 s, with one log line per try. A restart on the full
// disk serves the log's writes the same way instead of refusing to start:
// opening an existing file writes nothing. Writes go on while the log has
// room, then fail with an error naming the full disk.
//
// # A damaged file
//
// bbolt trusts its data pages: it follows page ids, offsets and lengths
// through its memory map without bounds checks, so a damaged page can end
// the process with SIGSEGV, where no recover reaches, or make its freelist
// rebuild panic in a goroutine of its own. Before bbolt sees a file, the
// store reads the whole tree with ordinary reads and checks everything
// bbolt relies on (pagewalk.go); bbolt's own reads then run with
// debug.SetPanicOnFault as a second line. A file that fails is refused with
// a DamageError naming each page and the keys it makes unreadable, and
// the way out: `kubesim store check` lists what is lost, `kubesim store
// export --skip-damaged` (Salvage) saves every key that can still be read,
// with the log's writes over them, and `kubesim store import` makes a
// sound data directory of them. A damaged record (its CRC-32C fails) does
// not stop the store: its key reads back with no value.
//
// # Reads see every acknowledged write at once
//
// Until their checkpoint, the acknowledged writes (the latest change per
// key) are kept in memory, and every read looks there first, then in the
// bbolt file: a Get takes the key's pending change or the file's record; a
// List merges the pending changes under its prefix over the file's keys in
// key order (a pending deletion hides the file's key). This is etcd's
// read buffer over its uncommitted backend batch (txReadBuffer).
//
// The other shape, committing each batch to bbolt with NoSync before the
// acknowledgement and syncing only at checkpoints, would be simpler but is
// not safe: between two syncs bbolt reuses the pages the last synced tree
// still points to and writes its meta pages in turn, so a power loss can
// leave a file whose newest valid meta page names pages that never reached
// the disk. Here the file only ever changes by synced transactions, so
// after any crash it is a consistent tree at some checkpoint, and the log
// has everything after it.
//
// A reader takes the pending changes and opens its bbolt transaction under
// one read lock; a checkpoint forgets its writes (under the write lock)
// only after the file has them. So a reader sees each write exactly once,
// all as of one revision, whether a checkpoint is running or not.
//
// bbolt's NoSync is never the default; Config.UnsafeNoFsync (neither the
// log nor the file is synced) exists for throwaway demos and says so in its
// name.
//
// # Left out
//
// Compared with etcd (go.etcd.io/etcd/server/v3/storage/wal,
// .../storage/backend, .../storage/mvcc/kvstore.go): the log is one file
// written over after each checkpoint, not a series of 64 MB segments with
// snapshots; there is no raft (the log holds applied changes, not
// proposals), no consistent index (the revision counter does its job), no
// lease, no defragmentation; old revisions of a key are not kept (a Get
// always sees the latest value; a List at a past revision undoes the
// changes still in the event window, store.ListAt); and a failed log write
// fails its batch rather than stopping the server as etcd does. A damaged
// last entry of the log cannot be told from a torn write, and is dropped as
// one (etcd tells them apart by the zeroed sectors of its preallocated
// segments; this log is written over, so a tear does not leave zeros). The
// records' checksum does not cover their key: damage that renames a key
// and keeps the key order can go unseen.
package boltstore
