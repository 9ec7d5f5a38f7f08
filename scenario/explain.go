package scenario

import (
	"sort"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/stepper"
)

// Explain answers "why did this happen?" for the last write in the trace:
// the actor that made it, the key it was reconciling, the watch event
// that queued that key, then — following the resourceVersion of each event
// back to the write that produced it — the chain of reconciles, back to
// the user's step where it can be followed (stepper.ExplainWrite).
func (r *Runner) Explain() string {
	return r.ExplainIn(stepper.EnglishPhrases())
}

// ExplainIn is Explain in the language of p (the stepper's --lang).
func (r *Runner) ExplainIn(p stepper.Phrases) string {
	trace := r.c.Trace()
	for i := len(trace) - 1; i >= 0; i-- {
		if len(trace[i].Writes) > 0 {
			r.mu.Lock()
			defer r.mu.Unlock()
			return p.ExplainWrite(trace, i, lastInterestingWrite(trace[i].Writes), r.userWrites)
		}
	}
	return p.NothingYet
}

// lastInterestingWrite prefers the last write that is not an Event: the
// event only reports the change that came before it.
func lastInterestingWrite(ws []stepper.Write) stepper.Write {
	for i := len(ws) - 1; i >= 0; i-- {
		if !strings.Contains(ws[i].Path, "/events") {
			return ws[i]
		}
	}
	return ws[len(ws)-1]
}

// RecordUserWrite notes a write a user made outside the scenario's steps
// (the web page's apply, delete or scale), so that a causality chain that
// reaches it ends at the user, as one that reaches a step's write does.
// from says where it came from ("the web page").
func (r *Runner) RecordUserWrite(from string, w stepper.Write) {
	if w.ResourceVersion == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.userWrites[w.ResourceVersion] = stepper.UserWrite{Step: -1, Title: from, Write: w}
}

// ExplainObject answers "why does this exist?" for an object: the chain
// behind the write that created it, found by its collection path
// (/api/v1/namespaces/default/pods) and name (stepper.ExplainObject).
func (r *Runner) ExplainObject(collection, name string) string {
	trace := r.c.Trace()
	r.mu.Lock()
	defer r.mu.Unlock()
	return stepper.ExplainObject(trace, collection, name, r.userWrites)
}

// UserWrites lists the users' writes recorded so far (the steps' and the
// web page's), by resourceVersion: the web page's timeline puts them
// between the trace's entries.
func (r *Runner) UserWrites() []stepper.UserWrite {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]stepper.UserWrite, 0, len(r.userWrites))
	for _, uw := range r.userWrites {
		out = append(out, uw)
	}
	sort.Slice(out, func(i, j int) bool {
		return rvOrder(out[i].Write.ResourceVersion) < rvOrder(out[j].Write.ResourceVersion)
	})
	return out
}

func rvOrder(rv string) uint64 {
	n, _ := strconv.ParseUint(rv, 10, 64)
	return n
}
