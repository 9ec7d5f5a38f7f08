package store

import (
	"fmt"
	"slices"
	"strings"
)

// ListAt serves a List at the past revision opts.Revision for a backend
// that keeps only the latest value of each key (boltstore): it reads the
// keys as they are now with list and undoes, from the Broadcaster's window
// of events, every change under prefix made after opts.Revision. The
// window is the store's history: a revision whose later events have left
// it (compacted, or pushed out by newer ones) fails with an ExpiredError,
// as etcd fails a range read at a compacted revision.
//
// etcd keeps every revision of a key until compaction and reads one with
// WithRev; this is the same answer from the events the watch cache keeps
// anyway, at the price of reading a few keys more than the page holds.
func ListAt(hub *Broadcaster, prefix string, opts ListOptions, list func(ListOptions) (ListResult, error)) (ListResult, error) {
	want := opts.Revision
	opts.Revision = 0
	var changed map[string]Event
	for {
		// Each key changed since want may hide one key of the page read
		// now (it did not exist then): read that many more, plus one to
		// know whether the page at want is full.
		now := opts
		if opts.Limit > 0 {
			now.Limit = opts.Limit + int64(len(changed)) + 1
		}
		cur, err := list(now)
		if err != nil {
			return ListResult{}, err
		}
		if want > cur.Revision {
			return ListResult{}, fmt.Errorf("list at revision %d, the store is at %d: %w", want, cur.Revision, ErrFutureRevision)
		}
		events, err := hub.Since(prefix, want, cur.Revision)
		if err != nil {
			return ListResult{}, err
		}
		before := len(changed)
		changed = firstChanges(events, opts.StartAfter)
		if opts.Limit == 0 || !cur.More || len(changed) <= before {
			return rollBack(cur, changed, want, opts.Limit), nil
		}
		// More keys changed while the page was read than it allowed for:
		// read again with room for them.
	}
}

// firstChanges is, for each key after startAfter, the first of events (in
// revision order) that changed it: the one whose PrevValue is the key's
// value before them all.
func firstChanges(events []Event, startAfter string) map[string]Event {
	first := map[string]Event{}
	for _, ev := range events {
		if ev.Key <= startAfter {
			continue
		}
		if _, seen := first[ev.Key]; !seen {
			first[ev.Key] = ev
		}
	}
	return first
}

// rollBack turns cur, a page read now, into the page at revision want:
// keys changed since want take their value from before the first change
// (or go, when it created them), and keys deleted since come back. When
// cur was cut short (More), only keys up to its last one are certain.
func rollBack(cur ListResult, changed map[string]Event, want, limit int64) ListResult {
	out := ListResult{Revision: want}
	past := make([]KeyValue, 0, len(changed))
	for _, ev := range changed {
		if ev.Type == Added && ev.PrevModRevision == 0 {
			continue // created after want
		}
		past = append(past, KeyValue{Key: ev.Key, Value: ev.PrevValue, UID: ev.UID,
			CreateRevision: ev.CreateRevision, ModRevision: ev.PrevModRevision})
	}
	slices.SortFunc(past, func(a, b KeyValue) int { return strings.Compare(a.Key, b.Key) })
	last := ""
	if cur.More && len(cur.Items) > 0 {
		last = cur.Items[len(cur.Items)-1].Key
	}
	add := func(kv KeyValue) bool {
		if limit > 0 && int64(len(out.Items)) == limit {
			out.More = true
			return false
		}
		out.Items = append(out.Items, kv)
		return true
	}
	i := 0
	for _, kv := range cur.Items {
		for i < len(past) && past[i].Key < kv.Key {
			if !add(past[i]) {
				return out
			}
			i++
		}
		if _, ok := changed[kv.Key]; ok {
			continue // its value at want is in past, or it did not exist
		}
		if !add(kv) {
			return out
		}
	}
	for ; i < len(past); i++ {
		if last != "" && past[i].Key > last {
			// Keys after what was read now: the next page reads them.
			out.More = true
			break
		}
		if !add(past[i]) {
			return out
		}
	}
	if cur.More {
		out.More = true
	}
	return out
}
