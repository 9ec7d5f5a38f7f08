package stepper

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The causality chain ("why did this happen?") over a trace: the step
// mode's trace, or the web page's record of a live cluster's writes
// (ui/livetrace.go), which keeps the same entries for it.

// causeRe reads a watch-event cause: "DELETED Pod default/web-x@42".
var causeRe = regexp.MustCompile(`^(ADDED|MODIFIED|DELETED|BOOKMARK) (\S+) (\S+)@(\d+)$`)

// UserWrite is a write a user made, where a causality chain ends: a
// scenario step's (Step from 0) or one made outside the steps (Step -1:
// the web page, kubectl), Title saying which.
type UserWrite struct {
	Step  int
	Title string
	Write Write
}

// UserWrites are the users' writes by the resourceVersion they made.
type UserWrites map[string]UserWrite

// Phrases are the sentences of a causality chain, in one language: each
// a fmt format of the arguments its comment names, in that order (a
// translation may reorder them with %[n]s). The trace's own words — the
// actors, keys, events and writes — are the API's and are never
// translated.
type Phrases struct {
	// Lead: the write's name (LastWrite or CreatedBy), the write.
	Lead string
	// LastWrite names the last write of a trace, CreatedBy the write
	// that created an object.
	LastWrite, CreatedBy string
	// MadeBy: the actor, the time, the key it was reconciling.
	MadeBy string
	// NoCause: the actor.
	NoCause string
	// NotAnEvent: the actor, the key, the cause (a timer, its own start).
	NotAnEvent string
	// Requeued: the key, the cause, the actor, the key again, the time of
	// the earlier reconcile.
	Requeued string
	// SawEvent: the actor, the event, the kind, the object, the
	// resourceVersion.
	SawEvent string
	// ByYou: the resourceVersion, where the write came from, the write;
	// ByYouInStep: the resourceVersion, the step's number and title, the
	// write.
	ByYou, ByYouInStep string
	// NotTraced: the resourceVersion.
	NotTraced string
	// WrittenBy: the resourceVersion, the actor, the time, the write, the
	// key it was reconciling.
	WrittenBy string
	// YouCreated: where it came from, the write; YouCreatedInStep: the
	// step's number and title, the write.
	YouCreated, YouCreatedInStep string
	// NoCreate: the name, the collection.
	NoCreate string
	// NothingYet answers "why?" before any loop has written.
	NothingYet string
}

// EnglishPhrases are the causality chain's sentences in English.
func EnglishPhrases() Phrases {
	return Phrases{
		Lead:             "%s: %s\n",
		LastWrite:        "The last write",
		CreatedBy:        "It was created by",
		MadeBy:           "  made by %s at %s while reconciling %s\n",
		NoCause:          "  %s had no recorded cause.\n",
		NotAnEvent:       "  %s worked on %s because of %q (its own start or a timer), not a watch event.\n",
		Requeued:         "  %s was queued by %q, set by %s's earlier reconcile of %s at %s\n",
		SawEvent:         "  because %s saw the %s event of %s %s at resourceVersion %s\n",
		ByYou:            "  resourceVersion %s was written by you: %s: %s\n",
		ByYouInStep:      "  resourceVersion %s was written by you: step %d (%s): %s\n",
		NotTraced:        "  resourceVersion %s was not written by a traced step (the API server itself, or a final delete whose answer carries no new version).\n",
		WrittenBy:        "  resourceVersion %s was written by %s at %s (%s) while reconciling %s\n",
		YouCreated:       "You created it: %s: %s\n",
		YouCreatedInStep: "You created it: step %d (%s): %s\n",
		NoCreate:         "No traced write created %s in %s: it was made before the trace began, or by the API server itself.\n",
		NothingYet:       "No control loop has written anything yet: press Enter to run the next unit of work.\n",
	}
}

// ExplainWrite follows write w of trace entry idx back to its cause, in
// English (Phrases.ExplainWrite).
func ExplainWrite(trace []Entry, idx int, w Write, users UserWrites) string {
	return EnglishPhrases().ExplainWrite(trace, idx, w, users)
}

// ExplainObject answers "why does this exist?" for an object, in English
// (Phrases.ExplainObject).
func ExplainObject(trace []Entry, collection, name string, users UserWrites) string {
	return EnglishPhrases().ExplainObject(trace, collection, name, users)
}

// ExplainWrite follows write w of trace entry idx back to its cause: the
// actor that made it, the key it was reconciling, the watch event that
// queued that key, then — following the resourceVersion of each event
// back to the write that produced it — the chain of reconciles, back to
// the user's write where it can be followed.
func (p Phrases) ExplainWrite(trace []Entry, idx int, w Write, users UserWrites) string {
	return p.explainWrite(trace, idx, w, p.LastWrite, users)
}

// explainWrite is ExplainWrite with the write's name, lead.
func (p Phrases) explainWrite(trace []Entry, idx int, w Write, lead string, users UserWrites) string {
	var b strings.Builder
	e := trace[idx]
	fmt.Fprintf(&b, p.Lead, lead, w)
	fmt.Fprintf(&b, p.MadeBy, e.Actor, elapsedText(e.Elapsed), e.Key)
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
				fmt.Fprintf(&b, p.NoCause, e.Actor)
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
				fmt.Fprintf(&b, p.NotAnEvent, e.Actor, e.Key, e.Cause)
				break
			}
			fmt.Fprintf(&b, p.Requeued, e.Key, e.Cause, e.Actor, e.Key, elapsedText(trace[prev].Elapsed))
			idx = prev
			continue
		}
		event, kind, name, rv := m[1], m[2], m[3], m[4]
		fmt.Fprintf(&b, p.SawEvent, e.Actor, event, kind, name, rv)
		if uw, byUser := users[rv]; byUser {
			if uw.Step < 0 {
				fmt.Fprintf(&b, p.ByYou, rv, uw.Title, uw.Write)
			} else {
				fmt.Fprintf(&b, p.ByYouInStep, rv, uw.Step+1, uw.Title, uw.Write)
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
			fmt.Fprintf(&b, p.NotTraced, rv)
			return b.String()
		}
		pe := trace[producer]
		var pw Write
		for _, x := range pe.Writes {
			if x.ResourceVersion == rv {
				pw = x
			}
		}
		fmt.Fprintf(&b, p.WrittenBy, rv, pe.Actor, elapsedText(pe.Elapsed), pw, pe.Key)
		idx = producer
	}
	return b.String()
}

// ExplainObject answers "why does this exist?" for an object: the chain
// behind the write that created it, found by its collection path
// (/api/v1/namespaces/default/pods) and name; the latest create wins, as
// a name can be reused. An object a user created says so.
func (p Phrases) ExplainObject(trace []Entry, collection, name string, users UserWrites) string {
	for i := len(trace) - 1; i >= 0; i-- {
		for _, w := range trace[i].Writes {
			if w.Verb == "create" && w.Path == collection && w.Name == name && w.Code < 300 {
				return p.explainWrite(trace, i, w, p.CreatedBy, users)
			}
		}
	}
	var first *UserWrite
	for _, uw := range users {
		created := uw.Write.Verb == "create" && uw.Write.Path == collection && uw.Write.Name == name
		// A server-side apply creates with a PATCH to the object's own path.
		applied := uw.Write.Verb == "patch" && uw.Write.Path == collection+"/"+name && uw.Write.Code == 201
		if (created || applied) && (first == nil || rvLess(uw.Write.ResourceVersion, first.Write.ResourceVersion)) {
			first = &uw
		}
	}
	if first != nil {
		if first.Step < 0 {
			return fmt.Sprintf(p.YouCreated, first.Title, first.Write)
		}
		return fmt.Sprintf(p.YouCreatedInStep, first.Step+1, first.Title, first.Write)
	}
	return fmt.Sprintf(p.NoCreate, name, collection)
}

// rvLess orders resourceVersions, which kubesim's store counts up.
func rvLess(a, b string) bool {
	x, _ := strconv.ParseUint(a, 10, 64)
	y, _ := strconv.ParseUint(b, 10, 64)
	return x < y
}

// elapsedText is a time since the start as a causality chain says it:
// 12.345s.
func elapsedText(d time.Duration) string {
	ms := d.Milliseconds()
	return fmt.Sprintf("%d.%03ds", ms/1000, ms%1000)
}
