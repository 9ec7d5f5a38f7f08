package controllers

import (
	"sync"
	"time"

	"github.com/kubesim/kubesim/clock"
)

// ExpectationsTimeout is how long a controller waits for its informer to
// show the creates and deletes it made before it acts again anyway (the
// watch event may have been lost), as in Kubernetes.
const ExpectationsTimeout = 5 * time.Minute

// ControllerExpectations remembers, per controller key, how many pod
// creations and which pod deletions are in flight: written to the API
// server but not yet seen by the informer. Until they are seen (or time
// out) the controller does not act on its stale view, so it never creates a
// pod twice. It is Kubernetes' UIDTrackingControllerExpectations
// (pkg/controller/controller_utils.go), tracking deletions by pod key.
type ControllerExpectations struct {
	clock   clock.Clock
	timeout time.Duration

	mu    sync.Mutex
	store map[string]*expectation
}

type expectation struct {
	add       int
	del       int
	deleting  map[string]bool
	timestamp time.Time
}

// NewControllerExpectations returns empty expectations that expire after
// timeout on clk (ExpectationsTimeout when timeout is 0).
func NewControllerExpectations(clk clock.Clock, timeout time.Duration) *ControllerExpectations {
	if timeout <= 0 {
		timeout = ExpectationsTimeout
	}
	return &ControllerExpectations{clock: clk, timeout: timeout, store: map[string]*expectation{}}
}

// SatisfiedExpectations reports whether the controller may act for key:
// nothing is recorded, everything was observed, or the record expired.
func (e *ControllerExpectations) SatisfiedExpectations(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	exp, ok := e.store[key]
	if !ok {
		return true
	}
	return exp.fulfilled() || e.expiredLocked(exp)
}

// Expiry is when the expectations of key stop holding the controller back;
// ok is false when nothing is pending.
func (e *ControllerExpectations) Expiry(key string) (at time.Time, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	exp, found := e.store[key]
	if !found || exp.fulfilled() {
		return time.Time{}, false
	}
	return exp.timestamp.Add(e.timeout), true
}

func (exp *expectation) fulfilled() bool { return exp.add <= 0 && exp.del <= 0 }

func (e *ControllerExpectations) expiredLocked(exp *expectation) bool {
	return e.clock.Now().Sub(exp.timestamp) > e.timeout
}

// ExpectCreations records that n creations for key are in flight,
// replacing what was recorded.
func (e *ControllerExpectations) ExpectCreations(key string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.store[key] = &expectation{add: n, timestamp: e.clock.Now()}
}

// ExpectDeletions records that the pods podKeys ("namespace/name") are
// being deleted for key, replacing what was recorded.
func (e *ControllerExpectations) ExpectDeletions(key string, podKeys []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	set := make(map[string]bool, len(podKeys))
	for _, k := range podKeys {
		set[k] = true
	}
	e.store[key] = &expectation{del: len(set), deleting: set, timestamp: e.clock.Now()}
}

// CreationObserved lowers the creations expected for key by one: the
// informer saw a pod of the controller appear, or a create failed.
func (e *ControllerExpectations) CreationObserved(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if exp, ok := e.store[key]; ok {
		exp.add--
	}
}

// DeletionObserved lowers the deletions expected for key when podKey is
// one the controller deleted (a pod deleted by someone else does not
// count: the controller must still see its own deletes).
func (e *ControllerExpectations) DeletionObserved(key, podKey string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if exp, ok := e.store[key]; ok && exp.deleting[podKey] {
		delete(exp.deleting, podKey)
		exp.del--
	}
}

// SetExpectations records that add creations and the deletions of the
// pods podKeys are in flight for key at once (the DaemonSet controller
// both creates and deletes in one sync), replacing what was recorded.
func (e *ControllerExpectations) SetExpectations(key string, add int, podKeys []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	set := make(map[string]bool, len(podKeys))
	for _, k := range podKeys {
		set[k] = true
	}
	e.store[key] = &expectation{add: add, del: len(set), deleting: set, timestamp: e.clock.Now()}
}

// DeleteExpectations forgets key (its controller object is gone).
func (e *ControllerExpectations) DeleteExpectations(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.store, key)
}

// Pending returns the creations and deletions still expected for key.
func (e *ControllerExpectations) Pending(key string) (add, del int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if exp, ok := e.store[key]; ok {
		return exp.add, exp.del
	}
	return 0, 0
}
