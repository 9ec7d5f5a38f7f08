// Package store is kubesim's etcd: a versioned key-value store with watch.
//
// It plays two real parts at once. Like etcd, it gives every write the next
// value of one global revision counter (an object's resourceVersion is the
// revision of its last write), it lets a writer say "only if unchanged since
// revision N" (the precondition behind optimistic concurrency), and it tells
// watchers about every change in revision order. Like the API server's storage
// layer (k8s.io/apiserver/pkg/storage, the "watch cache"), it keeps a window
// of recent events in memory so that a watcher can resume from a recent
// revision, and answers "too old" (the API server's 410 Gone) otherwise.
//
// Values are opaque bytes: the store does not know kinds. Only the API server
// uses this package; every other component is an API client.
//
// This package holds the contract (Interface, Event, the errors) and the
// in-memory watch window (Broadcaster) that backends share. The embedded
// bbolt backend is in store/boltstore; store/storetest is the conformance
// suite every backend must pass.
//
// A List can read at a past revision (the later pages of a paged list read
// at the first page's): etcd reads its own history; a backend that keeps
// only the latest values (boltstore) undoes the changes that the event
// window still holds (ListAt). That window is the history: a revision it
// no longer reaches is compacted, and the read fails with ErrExpired.
//
// A backend that can tell its database's size implements Sizer (both do),
// for the API server's apiserver_storage_size_bytes; the API server times
// every call itself (etcd_request_duration_seconds), whatever the backend.
//
// Left out, compared with etcd: multi-version history kept in the backend
// (a Get reads the latest state only, and a past List goes back only as
// far as the event window), leases, transactions over several
// keys, and replication. Read the real thing in go.etcd.io/etcd/server/v3/mvcc
// and k8s.io/apiserver/pkg/storage/etcd3 and .../cacher.
package store
