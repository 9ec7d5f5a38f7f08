package scenario

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/stepper"
)

// causeRe reads a watch-event cause: "DELETED Pod default/web-x@42".
var causeRe = regexp.MustCompile(`^(ADDED|MODIFIED|DELETED|BOOKMARK) (\S+) (\S+)@(\d+)$`)

// Explain answers "why did this happen?" for the last write in the trace:
// the actor that made it, the key it was reconciling, the watch event
// that queued that key, then — following the resourceVersion of each event
// back to the write that produced it — the chain of reconciles, back to
// the user's step where it can be followed.
func (r *Runner) Explain() string {
	trace := r.c.Trace()
	for i := len(trace) - 1; i >= 0; i-- {
		if len(trace[i].Writes) > 0 {
			return r.explainWrite(trace, i, lastInterestingWrite(trace[i].Writes), "The last write")
		}
	}
	return "No control loop has written anything yet: press Enter to run the next unit of work."
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

func (r *Runner) explainWrite(trace []stepper.Entry, idx int, w stepper.Write, lead string) string {
	var b strings.Builder
	e := trace[idx]
	fmt.Fprintf(&b, "%s: %s\n", lead, w)
	fmt.Fprintf(&b, "  made by %s at %s while reconciling %s\n", e.Actor, formatElapsed(e.Elapsed), e.Key)
	visited := map[int]bool{}
	for depth := 0; depth < 25; depth++ {
		if visited[idx] {
			break
		}
		visited[idx] = true
		e = trace[idx]
		m := causeRe.FindStringSubmatch(e.Cause)
		if m == nil {
			if e.Cause == "" {
				fmt.Fprintf(&b, "  %s had no recorded cause.\n", e.Actor)
				break
			}
			// A timer or a requeue: an earlier reconcile of the same key
			// asked for it; follow that one.
			prev := -1
			for j := idx - 1; j >= 0; j-- {
				if trace[j].Actor == e.Actor && trace[j].Key == e.Key {
					prev = j
					break
				}
			}
			if prev < 0 {
				fmt.Fprintf(&b, "  %s worked on %s because of %q (its own start or a timer), not a watch event.\n", e.Actor, e.Key, e.Cause)
				break
			}
			fmt.Fprintf(&b, "  %s was queued by %q, set by %s's earlier reconcile of %s at %s\n",
				e.Key, e.Cause, e.Actor, e.Key, formatElapsed(trace[prev].Elapsed))
			idx = prev
			continue
		}
		event, kind, name, rv := m[1], m[2], m[3], m[4]
		fmt.Fprintf(&b, "  because %s saw the %s event of %s %s at resourceVersion %s\n", e.Actor, event, kind, name, rv)
		r.mu.Lock()
		uw, byUser := r.userWrites[rv]
		r.mu.Unlock()
		if byUser {
			if uw.step < 0 {
				fmt.Fprintf(&b, "  resourceVersion %s was written by you: %s: %s\n", rv, uw.title, uw.write)
			} else {
				fmt.Fprintf(&b, "  resourceVersion %s was written by you: step %d (%s): %s\n", rv, uw.step+1, uw.title, uw.write)
			}
			return b.String()
		}
		producer := -1
		for j := idx; j >= 0 && producer < 0; j-- {
			for _, pw := range trace[j].Writes {
				if pw.ResourceVersion == rv {
					producer = j
					break
				}
			}
		}
		if producer < 0 {
			fmt.Fprintf(&b, "  resourceVersion %s was not written by a traced step (the API server itself, or a final delete whose answer carries no new version).\n", rv)
			return b.String()
		}
		pe := trace[producer]
		var pw stepper.Write
		for _, x := range pe.Writes {
			if x.ResourceVersion == rv {
				pw = x
			}
		}
		fmt.Fprintf(&b, "  resourceVersion %s was written by %s at %s (%s) while reconciling %s\n", rv, pe.Actor, formatElapsed(pe.Elapsed), pw, pe.Key)
		idx = producer
	}
	return b.String()
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
	r.userWrites[w.ResourceVersion] = userWrite{step: -1, title: from, write: w}
}

// ExplainObject answers "why does this exist?" for an object: the chain
// behind the write that created it, found by its collection path
// (/api/v1/namespaces/default/pods) and name; the latest create wins, as
// a name can be reused.
func (r *Runner) ExplainObject(collection, name string) string {
	trace := r.c.Trace()
	for i := len(trace) - 1; i >= 0; i-- {
		for _, w := range trace[i].Writes {
			if w.Verb == "create" && w.Path == collection && w.Name == name && w.Code < 300 {
				return r.explainWrite(trace, i, w, "It was created by")
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var first *userWrite
	for _, uw := range r.userWrites {
		created := uw.write.Verb == "create" && uw.write.Path == collection && uw.write.Name == name
		// A server-side apply creates with a PATCH to the object's own path.
		applied := uw.write.Verb == "patch" && uw.write.Path == collection+"/"+name && uw.write.Code == 201
		if (created || applied) && (first == nil || rvLess(uw.write.ResourceVersion, first.write.ResourceVersion)) {
			first = &uw
		}
	}
	if first != nil {
		if first.step < 0 {
			return fmt.Sprintf("You created it: %s: %s\n", first.title, first.write)
		}
		return fmt.Sprintf("You created it: step %d (%s): %s\n", first.step+1, first.title, first.write)
	}
	return fmt.Sprintf("No traced write created %s in %s: it was made before the trace began, or by the API server itself.\n", name, collection)
}

// rvLess orders resourceVersions, which kubesim's store counts up.
func rvLess(a, b string) bool {
	x, _ := strconv.ParseUint(a, 10, 64)
	y, _ := strconv.ParseUint(b, 10, 64)
	return x < y
}
