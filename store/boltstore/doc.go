// Package boltstore is the embedded default backend of store.Interface: one
// bbolt file in the data directory, playing etcd's part.
//
// Every write is one bbolt transaction that takes the next revision of a
// single persisted counter; each key keeps its create revision, its mod
// revision (the object's resourceVersion) and the uid given at create. Writes
// from many goroutines go through one commit loop that puts everything queued
// while the previous commit was being synced into the next transaction (group
// commit), so concurrent writers share one fsync instead of paying one each.
//
// Durability: a write is acknowledged only after its transaction is synced to
// disk. bbolt's NoSync is never the default; Config.UnsafeNoFsync exists for
// throwaway demos and says so in its name.
//
// Left out, compared with etcd (go.etcd.io/etcd/server/v3/mvcc/backend and
// .../mvcc/kvstore.go): old revisions of a key are not kept (a read always
// sees the latest value), there is no raft log, no lease, no defragmentation.
package boltstore
