package store

import "context"

// Interface is the storage contract the API server writes through.
//
// Keys look like /registry/<group>/<resource>/<namespace>/<name>. A prefix
// passed to List or Watch should end with "/" so that "/registry/pods/ab/"
// does not also match namespace "abc".
type Interface interface {
	// Create stores value under key with revision Revision()+1. It fails
	// with ErrKeyExists if the key is present.
	Create(ctx context.Context, key string, value []byte, opts CreateOptions) (KeyValue, error)
	// Get returns the current value of key, or ErrNotFound.
	Get(ctx context.Context, key string) (KeyValue, error)
	// Update replaces the value of an existing key if the preconditions
	// hold (ErrConflict otherwise, ErrNotFound if the key is missing).
	Update(ctx context.Context, key string, value []byte, pre Preconditions) (KeyValue, error)
	// Delete removes key if the preconditions hold and returns its last
	// value; ModRevision of the result is the revision of the deletion.
	Delete(ctx context.Context, key string, pre Preconditions) (KeyValue, error)
	// List returns the keys under prefix in key order, read at one
	// revision, which it reports: the latest, or opts.Revision.
	List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error)
	// Watch reports every change under prefix with a revision greater than
	// fromRevision (0 means "from now"). A fromRevision older than the
	// event window fails at once with an error that wraps ErrExpired.
	Watch(ctx context.Context, prefix string, fromRevision int64) (Watcher, error)
	// Revision is the revision of the last committed write.
	Revision() int64
	// Compact forgets events at or before revision: a watch from an older
	// revision then fails with ErrExpired.
	Compact(ctx context.Context, revision int64) error
	// Close finishes writes in flight, ends every watch with ErrClosed
	// and releases the backend.
	Close() error
}

// KeyValue is one stored entry.
type KeyValue struct {
	Key string
	// Value is the stored bytes. Callers must not modify it: watchers and
	// the caller may share one slice. It is empty when the stored entry is
	// damaged (it failed the backend's integrity check): the key is then
	// reported as a corrupt object, and may be rewritten or deleted.
	Value []byte
	// UID is the identity given at Create. It survives updates and lets a
	// writer say "only if this is still the object I read" after a delete
	// and re-create under the same name.
	UID string
	// CreateRevision is the revision of the Create; ModRevision of the
	// last write (the object's resourceVersion).
	CreateRevision int64
	ModRevision    int64
}

// CreateOptions are the optional parts of a Create.
type CreateOptions struct {
	// UID is stored beside the value and checked by Preconditions.UID.
	UID string
}

// Preconditions guard an Update or a Delete. Zero fields are not checked.
type Preconditions struct {
	// ResourceVersion, when non-zero, must equal the key's ModRevision.
	ResourceVersion int64
	// UID, when non-empty, must equal the UID given at Create.
	UID string
}

// ListOptions page a List.
type ListOptions struct {
	// Limit caps the number of items (0: no limit).
	Limit int64
	// StartAfter, when set, lists only keys greater than it: the
	// continue point of a paged list.
	StartAfter string
	// Revision, when not 0, reads the keys as they were at that past
	// revision, so that every page of a paged list shows one snapshot
	// (etcd's range read WithRev). A revision older than the store's
	// history reaches fails with an error wrapping ErrExpired (etcd's
	// "required revision has been compacted"); one newer than the store's
	// with ErrFutureRevision.
	Revision int64
}

// ListResult is what a List read.
type ListResult struct {
	Items []KeyValue
	// Revision is the store's revision at the moment of the read: a watch
	// from it misses nothing and repeats nothing.
	Revision int64
	// More reports that Limit cut the list short; the next page starts
	// after the last item's key.
	More bool
}

// EventType says what happened to a key.
type EventType string

// The event types, named as Kubernetes watch events are.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
)

// Event is one change seen by a watcher.
type Event struct {
	Type EventType
	Key  string
	// Value is the new value; for Deleted, the last value before deletion.
	Value []byte
	// PrevValue is the value before this change (nil for Added).
	PrevValue []byte
	// PrevModRevision is the ModRevision of PrevValue: 0 for Added, unless
	// the key held a damaged value that this write replaced.
	PrevModRevision int64
	UID             string
	CreateRevision  int64
	// Revision is the revision of this change.
	Revision int64
}

// Watcher is an open watch.
type Watcher interface {
	// ResultChan delivers events in revision order. It is closed when the
	// watch ends; Err then says why.
	ResultChan() <-chan Event
	// Stop ends the watch; it is safe to call more than once.
	Stop()
	// Err is nil while the watch runs and after Stop; it wraps ErrExpired
	// when the watcher fell too far behind and ErrClosed when the store
	// closed.
	Err() error
}

// Sizer is a store that can tell the size of its database, for the API
// server's apiserver_storage_size_bytes: the bbolt file, or etcd's
// database as its maintenance status reports it. clusterID names the
// storage cluster (etcd's cluster ID in hex; "" for a file).
type Sizer interface {
	DBSize(ctx context.Context) (size int64, clusterID string, err error)
}
