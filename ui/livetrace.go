package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/stepper"
)

// Bounds of live mode's record: it is a ring, so a server that runs for
// days keeps the same memory.
const (
	// liveTraceEntries is how many reconciles that wrote are kept.
	liveTraceEntries = 4096
	// liveTraceWrites bounds the writes kept of one reconcile (a garbage
	// collector's sweep can delete thousands).
	liveTraceWrites = 64
	// liveUserWrites is how many of the users' writes are kept.
	liveUserWrites = 2048
)

// liveTrace is live mode's record of the writes, kept so that "why does
// this exist?" answers there as it does in step mode: each component's
// writes as a trace entry of the reconcile that made them (its
// controller, key and the watch event that queued it — what the
// stepper's trace holds), and the users' writes, where a chain ends. The
// chain itself is the stepper's (stepper.ExplainObject), run over this
// record instead of the step trace.
type liveTrace struct {
	clock clock.Clock
	start time.Time

	mu sync.Mutex
	// ring holds the entries; entry number k is at ring[k%len(ring)],
	// for the last len(ring) numbers below n.
	ring []stepper.Entry
	recs []*controllers.Reconciling // the reconcile of each slot
	n    int
	// open is the entry number of each reconcile still in the ring: its
	// later writes join its entry.
	open map[*controllers.Reconciling]int
	// users are the users' writes by resourceVersion; userOrder is their
	// order, to forget the oldest.
	users     stepper.UserWrites
	userOrder []string
}

func newLiveTrace(c clock.Clock) *liveTrace {
	return &liveTrace{clock: c, start: c.Now(), ring: make([]stepper.Entry, liveTraceEntries),
		recs: make([]*controllers.Reconciling, liveTraceEntries), open: map[*controllers.Reconciling]int{}, users: stepper.UserWrites{}}
}

// add records a component's write, made in reconcile r (nil: outside
// any, then it has no cause).
func (t *liveTrace) add(component string, r *controllers.Reconciling, w stepper.Write) {
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if r != nil {
		if k, ok := t.open[r]; ok {
			e := &t.ring[k%len(t.ring)]
			if len(e.Writes) < liveTraceWrites {
				e.Writes = append(e.Writes, w)
			}
			return
		}
	}
	slot := t.n % len(t.ring)
	if old := t.recs[slot]; old != nil {
		delete(t.open, old)
	}
	e := stepper.Entry{Time: now, Elapsed: now.Sub(t.start), Actor: component, Writes: []stepper.Write{w}}
	if r != nil {
		// The controller's name, as the step trace names the actor.
		e.Actor, e.Key, e.Cause = r.Controller, r.Key, r.Cause.String()
		t.open[r] = t.n
	}
	t.ring[slot], t.recs[slot] = e, r
	t.n++
}

// addUser records a user's write (kubectl's, the page's): from says
// whose.
func (t *liveTrace) addUser(from string, w stepper.Write) {
	if w.ResourceVersion == "" || w.Code >= 300 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.users[w.ResourceVersion]; !ok {
		t.userOrder = append(t.userOrder, w.ResourceVersion)
	}
	t.users[w.ResourceVersion] = stepper.UserWrite{Step: -1, Title: from, Write: w}
	if len(t.userOrder) > liveUserWrites {
		delete(t.users, t.userOrder[0])
		t.userOrder = t.userOrder[1:]
	}
}

// explainObject answers "why does this exist?" from the record.
func (t *liveTrace) explainObject(collection, name string) string {
	t.mu.Lock()
	first := max(0, t.n-len(t.ring))
	entries := make([]stepper.Entry, 0, t.n-first)
	for k := first; k < t.n; k++ {
		e := t.ring[k%len(t.ring)]
		e.Writes = append([]stepper.Write(nil), e.Writes...)
		entries = append(entries, e)
	}
	users := make(stepper.UserWrites, len(t.users))
	for rv, uw := range t.users {
		users[rv] = uw
	}
	t.mu.Unlock()
	return livePhrases().ExplainObject(inRevisionOrder(entries), collection, name, users)
}

// livePhrases are the causality chain's sentences for live mode's record.
// Where the chain runs out they say why as this record can: the users'
// writes are kept from the server's start, the control loops' from the
// first login on and only the latest of them (a ring), so a write the
// record does not hold is a loop's from before the page was first opened
// or from longer ago than the ring reaches (or the API server's own) —
// not the stepper's "before the trace began".
func livePhrases() stepper.Phrases {
	p := stepper.EnglishPhrases()
	p.NotTraced = "  resourceVersion %s is not in the record: a control loop's write from before the page was first opened " +
		"or older than the record keeps, or the API server's own (or a final delete whose answer carries no new version).\n"
	p.NoCreate = "No recorded write created %s in %s: a control loop made it before the page was first opened or longer ago " +
		fmt.Sprintf("than the record keeps (the loops' last %d reconciles; your writes since the server started), or the API server did.\n", liveTraceEntries)
	return p
}

// inRevisionOrder puts the record's entries in the order the store made
// their writes. The record holds them in the order the components heard
// their answers, and that is not the same: the store publishes a write's
// watch event before it answers the writer, so the ReplicaSet controller
// can see a new ReplicaSet, create its pods and hear back before the
// deployment controller has heard that its create of that ReplicaSet went
// through. The chain (stepper.ExplainWrite) looks for the write behind a
// watch event among the entries before the one it explains, as the step
// trace, written by one goroutine, is in order; in the order heard it
// missed the ReplicaSet's create.
//
// An entry sorts by the lowest revision it wrote (its reconcile's writes
// all join it). Every write of a reconcile comes after the event that
// queued it, so after the write that made that event's revision, and the
// entry holding that write sorts first. An entry that wrote no revision
// (its writes failed) keeps its place after the entry it followed.
func inRevisionOrder(entries []stepper.Entry) []stepper.Entry {
	type keyed struct {
		rv    uint64
		entry stepper.Entry
	}
	sorted := make([]keyed, len(entries))
	var last uint64
	for i, e := range entries {
		lowest := uint64(0)
		for _, w := range e.Writes {
			if rv, err := strconv.ParseUint(w.ResourceVersion, 10, 64); err == nil && (lowest == 0 || rv < lowest) {
				lowest = rv
			}
		}
		if lowest != 0 {
			last = lowest
		}
		sorted[i] = keyed{last, e}
	}
	slices.SortStableFunc(sorted, func(a, b keyed) int { return cmp.Compare(a.rv, b.rv) })
	out := make([]stepper.Entry, len(sorted))
	for i, k := range sorted {
		out[i] = k.entry
	}
	return out
}
