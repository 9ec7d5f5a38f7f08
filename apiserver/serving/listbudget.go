package serving

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
	"github.com/kubesim/kubesim/clock"
)

// Priority is the share of the list budget a request may use, after API
// Priority and Fairness' priority levels: the API server's own loopback is
// exempt, the control plane's components (kubelets, scheduler, controllers)
// are system and may use the whole budget, everyone else is a workload
// and may use only part of it, so that a user's storm of lists leaves the
// components room.
type Priority int

// The priorities, from the most to the least privileged.
const (
	// PriorityExempt is never refused (kube-apiserver's exempt level): the
	// API server's own privileged loopback.
	PriorityExempt Priority = iota
	// PrioritySystem may use the whole budget (the system, node-high and
	// workload-high levels of APF's default configuration).
	PrioritySystem
	// PriorityWorkload may use the budget less its reserved share (APF's
	// global-default and workload-low levels).
	PriorityWorkload
)

func (p Priority) String() string {
	switch p {
	case PriorityExempt:
		return "exempt"
	case PrioritySystem:
		return "system"
	}
	return "workload"
}

// DefaultListBudget is the list budget when nothing else decides it
// (512 MiB): what a server with no memory limit may hold for lists.
const DefaultListBudget = 512 << 20

// ListBudget bounds the memory that LIST requests hold at once. kube-
// apiserver's API Priority and Fairness charges a list seats by its
// estimated size (the object count of the resource) so that a storm of
// large lists is queued or refused instead of exhausting memory; kubesim
// charges the estimated bytes themselves against a byte budget and answers
// 429 beyond it, at once (Acquire) or after waiting a while for room
// (AcquireWaiting, for the clients APF would queue). The shares:
//
//   - workload requests together hold at most three quarters of the
//     budget, and nothing when the budget is full;
//   - system requests may use the whole budget, so the last quarter is
//     theirs whatever the workloads do; one of them is admitted whenever
//     no other system list is in flight, so a storm of user lists never
//     shuts a component out;
//   - the exempt loopback is charged (the others see its use) but never
//     refused.
//
// A charge is cut to the budget, and a workload list is admitted whenever
// nothing at all is in use: a list bigger than the budget still runs,
// alone.
type ListBudget struct {
	capacity, workload int64

	mu                                sync.Mutex
	inUse, workloadInUse, systemInUse int64
	admitted, refused, waiting        int64
	// freed is closed, and replaced, whenever a release makes room: the
	// lists waiting in AcquireWaiting then try again.
	freed chan struct{}
}

// NewListBudget returns a budget of capacity bytes (at least 1).
func NewListBudget(capacity int64) *ListBudget {
	capacity = max(capacity, 1)
	return &ListBudget{capacity: capacity, workload: capacity - capacity/4, freed: make(chan struct{})}
}

// Capacity is the budget's size in bytes.
func (b *ListBudget) Capacity() int64 { return b.capacity }

// UnknownCharge is what a list whose size cannot be estimated yet is
// charged: an eighth of the budget, as APF charges such a list its
// maximum seats.
func (b *ListBudget) UnknownCharge() int64 { return max(b.capacity/8, 1) }

// Acquire charges n bytes for a list of priority p. ok is false when the
// budget cannot take it (answer 429); otherwise release must be called once
// the list's answer is written.
func (b *ListBudget) Acquire(n int64, p Priority) (release func(), ok bool) {
	n = min(max(n, 1), b.capacity)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.tryLocked(n, p) {
		b.refused++
		return nil, false
	}
	return b.releaser(n, p), true
}

// AcquireWaiting is Acquire for a list that may wait for room, up to wait
// on clk or until ctx ends, before it is refused. kube-apiserver's API
// Priority and Fairness queues a request its priority level has no seat
// for and rejects it only when it has waited a quarter of the request
// timeout (15 s of the default 60 s); kubesim makes the control plane's
// components and the service accounts wait so, as their lists come in a
// burst when everything starts (an informer per resource per component,
// each charged the budget's UnknownCharge before the first list taught
// the store its size) and a refusal would only make each retry and log a
// warning. A user's own list is still refused at once (Acquire).
func (b *ListBudget) AcquireWaiting(ctx context.Context, n int64, p Priority, clk clock.Clock, wait time.Duration) (release func(), ok bool) {
	n = min(max(n, 1), b.capacity)
	var timeout <-chan time.Time
	for {
		b.mu.Lock()
		if b.tryLocked(n, p) {
			b.mu.Unlock()
			return b.releaser(n, p), true
		}
		if timeout == nil {
			t := clk.NewTimer(wait)
			defer t.Stop()
			timeout = t.C()
		}
		freed := b.freed
		b.waiting++
		b.mu.Unlock()
		var gaveUp bool
		select {
		case <-freed:
		case <-timeout:
			gaveUp = true
		case <-ctx.Done():
			gaveUp = true
		}
		b.mu.Lock()
		b.waiting--
		if gaveUp {
			b.refused++
			b.mu.Unlock()
			return nil, false
		}
		b.mu.Unlock()
	}
}

// tryLocked charges n bytes for priority p if the shares allow it; b.mu is
// held.
func (b *ListBudget) tryLocked(n int64, p Priority) bool {
	fits := b.inUse+n <= b.capacity
	var ok bool
	switch p {
	case PrioritySystem:
		ok = fits || b.systemInUse == 0
	case PriorityWorkload:
		ok = b.inUse == 0 || (fits && b.workloadInUse+n <= b.workload)
	default:
		ok = true
	}
	if ok {
		b.charge(p, n)
		b.admitted++
	}
	return ok
}

// releaser returns the function that gives a charge back, once, and wakes
// the lists waiting for room.
func (b *ListBudget) releaser(n int64, p Priority) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.charge(p, -n)
			close(b.freed)
			b.freed = make(chan struct{})
		})
	}
}

func (b *ListBudget) charge(p Priority, n int64) {
	b.inUse += n
	switch p {
	case PrioritySystem:
		b.systemInUse += n
	case PriorityWorkload:
		b.workloadInUse += n
	}
}

// ListBudgetStats are a budget's counters.
type ListBudgetStats struct {
	// InUse is the bytes charged to lists being served now.
	InUse int64
	// Admitted and Refused count the lists let in and those answered 429.
	Admitted, Refused int64
	// Waiting is the lists waiting for room now (AcquireWaiting).
	Waiting int64
}

// Stats returns the budget's counters.
func (b *ListBudget) Stats() ListBudgetStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return ListBudgetStats{InUse: b.inUse, Admitted: b.admitted, Refused: b.refused, Waiting: b.waiting}
}

// WriteTooManyRequests answers as kube-apiserver does when it refuses a
// request for want of room (the max-in-flight filter, APF's rejection):
// 429, Retry-After: 1, in the Status shape.
func WriteTooManyRequests(w http.ResponseWriter) {
	const retryAfter = 1
	w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	responsewriters.WriteError(w, api.NewTooManyRequests("Too many requests, please try again later.", retryAfter))
}
