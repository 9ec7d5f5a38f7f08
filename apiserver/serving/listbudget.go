package serving

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
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
// 429 beyond it (no queues, as its max-in-flight filter). The shares:
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
	admitted, refused                 int64
}

// NewListBudget returns a budget of capacity bytes (at least 1).
func NewListBudget(capacity int64) *ListBudget {
	capacity = max(capacity, 1)
	return &ListBudget{capacity: capacity, workload: capacity - capacity/4}
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
	fits := b.inUse+n <= b.capacity
	switch p {
	case PrioritySystem:
		ok = fits || b.systemInUse == 0
	case PriorityWorkload:
		ok = b.inUse == 0 || (fits && b.workloadInUse+n <= b.workload)
	default:
		ok = true
	}
	if !ok {
		b.refused++
		return nil, false
	}
	b.charge(p, n)
	b.admitted++
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.charge(p, -n)
		})
	}, true
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
}

// Stats returns the budget's counters.
func (b *ListBudget) Stats() ListBudgetStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return ListBudgetStats{InUse: b.inUse, Admitted: b.admitted, Refused: b.refused}
}

// WriteTooManyRequests answers as kube-apiserver does when it refuses a
// request for want of room (the max-in-flight filter, APF's rejection):
// 429, Retry-After: 1, in the Status shape.
func WriteTooManyRequests(w http.ResponseWriter) {
	const retryAfter = 1
	w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	responsewriters.WriteError(w, api.NewTooManyRequests("Too many requests, please try again later.", retryAfter))
}
