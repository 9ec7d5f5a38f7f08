package store

import (
	"errors"
	"fmt"
)

// The store's errors. Every error a store returns wraps one of these, so
// callers test with errors.Is; the API server maps them to 404, 409 and 410.
var (
	// ErrNotFound: the key does not exist.
	ErrNotFound = errors.New("key not found")
	// ErrKeyExists: Create of a key that exists.
	ErrKeyExists = errors.New("key already exists")
	// ErrConflict: a precondition (resourceVersion or uid) did not hold.
	ErrConflict = errors.New("precondition failed")
	// ErrExpired: the requested revision is older than the event window,
	// or a watcher fell too far behind. The client must list again.
	ErrExpired = errors.New("required revision has been compacted")
	// ErrFutureRevision: a read at a revision the store has not reached
	// (etcd's "mvcc: required revision is a future revision").
	ErrFutureRevision = errors.New("required revision is a future revision")
	// ErrClosed: the store is closed.
	ErrClosed = errors.New("store is closed")
	// ErrUnavailable: the backend could not be reached or did not answer
	// in time (etcd down); nothing was written, or the write's outcome is
	// unknown to this caller. The API server answers 503.
	ErrUnavailable = errors.New("storage is unavailable")
)

// UnavailableError wraps the backend's own words for ErrUnavailable.
type UnavailableError struct{ Err error }

func (e *UnavailableError) Error() string { return e.Err.Error() }

// Unwrap makes errors.Is(err, ErrUnavailable) true, and exposes the cause.
func (e *UnavailableError) Unwrap() []error { return []error{ErrUnavailable, e.Err} }

// IsUnavailable reports whether err means the backend could not be reached.
func IsUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) }

// KeyError is an error about one key; it wraps one of the errors above.
type KeyError struct {
	Err error
	Key string
	// Detail explains a conflict, e.g. which revision the key is at now.
	Detail string
}

func (e *KeyError) Error() string {
	if e.Detail != "" {
		return fmt.Sprintf("%s: %v (%s)", e.Key, e.Err, e.Detail)
	}
	return fmt.Sprintf("%s: %v", e.Key, e.Err)
}

// Unwrap lets errors.Is see the cause.
func (e *KeyError) Unwrap() error { return e.Err }

// ExpiredError reports a watch from a revision the window no longer holds.
type ExpiredError struct {
	// Requested is the revision asked for; Oldest the oldest revision a
	// watch can start from now.
	Requested, Oldest int64
	// Reason says why, for the message.
	Reason string
}

func (e *ExpiredError) Error() string {
	if e.Reason != "" {
		return e.Reason
	}
	return fmt.Sprintf("too old resource version: %d (%d)", e.Requested, e.Oldest)
}

// Unwrap makes errors.Is(err, ErrExpired) true.
func (e *ExpiredError) Unwrap() error { return ErrExpired }

// IsNotFound reports whether err means the key does not exist.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// IsKeyExists reports whether err means the key already exists.
func IsKeyExists(err error) bool { return errors.Is(err, ErrKeyExists) }

// IsConflict reports whether err means a precondition failed.
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }

// IsExpired reports whether err means the revision is too old.
func IsExpired(err error) bool { return errors.Is(err, ErrExpired) }
