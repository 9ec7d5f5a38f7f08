package record

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The correlator's defaults, client-go's (tools/record/events_cache.go).
const (
	// lruCacheEntries bounds each of the correlator's three caches.
	lruCacheEntries = 4096
	// aggregateMaxEvents similar events (same source, object, type and
	// reason; any message) within aggregateInterval of each other are
	// folded into one event "(combined from similar events): ...".
	aggregateMaxEvents = 10
	aggregateInterval  = 10 * time.Minute
	// A source may record spamBurst events about one object, then one
	// more every spamRefill: the long tail of something always unhealthy
	// costs the API server almost nothing.
	spamBurst  = 25
	spamRefill = 5 * time.Minute
)

// combinedPrefix starts the message of an aggregate event, as client-go
// words it (EventAggregatorByReasonMessageFunc).
const combinedPrefix = "(combined from similar events): "

// correlator decides, before anything is written, what an event becomes
// (EventCorrelator): a new Event, a PATCH raising the count of the one
// recorded earlier, or nothing at all. In that order it aggregates
// similar events, counts identical ones and drops what the spam filter
// refuses; its time is the recorder's clock, so step mode stays
// deterministic.
type correlator struct {
	aggregates *lru[*aggregateRecord]
	observed   *lru[observation]
	spam       *lru[*tokenBucket]
}

func newCorrelator() *correlator {
	return &correlator{aggregates: newLRU[*aggregateRecord](lruCacheEntries),
		observed: newLRU[observation](lruCacheEntries), spam: newLRU[*tokenBucket](lruCacheEntries)}
}

// aggregateRecord is what the aggregator knows of one group of similar
// events: the distinct messages seen (their digests, in the order seen,
// so that which one is forgotten does not depend on map order) and when
// the last came.
type aggregateRecord struct {
	messages []digest
	last     time.Time
}

// observation is what the correlator remembers of an event it sent: how
// often it happened, since when, and the name of the Event holding it.
type observation struct {
	count int32
	first metav1.Time
	name  string
}

// correlation is the correlator's verdict on one event.
type correlation struct {
	// event is what to write: create it, or, with patch, raise the count
	// of the Event of the same name.
	event *corev1.Event
	patch bool
	// skip: the spam filter refused it; nothing is written.
	skip bool
	// key is where the observation is kept, to be refreshed from what
	// the server answers.
	key digest
}

// digest is a 128-bit digest of the fields that make an event one of a
// kind: the key of the correlator's caches, and what its aggregator
// remembers of each message. client-go keys its caches by the fields
// joined into one string, a few hundred bytes each, three keys an event,
// held by every recorder for 4,096 events: with a hundred thousand pods
// that was ~3 KB a pod. Sixteen bytes say the same: two keys are equal
// when their fields are (each field is hashed after its length, so no
// two lists of fields make the same input), and SHA-256 cut to 128 bits
// makes two different lists meeting as good as impossible, even for
// names chosen to collide.
type digest [16]byte

func digestOf(fields ...string) digest {
	var buf [512]byte // on the stack, unless the fields are longer
	b := buf[:0]
	for _, f := range fields {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	sum := sha256.Sum256(b)
	return digest(sum[:16])
}

// eventKey is one identical event: everything but the time
// (getEventKey).
func eventKey(ev *corev1.Event) digest {
	o := ev.InvolvedObject
	return digestOf(ev.Source.Component, ev.Source.Host, o.Kind, o.Namespace, o.Name, o.FieldPath,
		string(o.UID), o.APIVersion, ev.Type, ev.Reason, ev.Message)
}

// aggregateKey is one group of similar events: the message left out
// (EventAggregatorByReasonFunc).
func aggregateKey(ev *corev1.Event) digest {
	o := ev.InvolvedObject
	return digestOf(ev.Source.Component, ev.Source.Host, o.Kind, o.Namespace, o.Name,
		string(o.UID), o.APIVersion, ev.Type, ev.Reason, ev.ReportingController, ev.ReportingInstance)
}

// spamKey is one source talking about one object (getSpamKey): the
// budget is shared by all its reasons.
func spamKey(ev *corev1.Event) digest {
	o := ev.InvolvedObject
	return digestOf(ev.Source.Component, ev.Source.Host, o.Kind, o.Namespace, o.Name,
		string(o.UID), o.APIVersion)
}

// correlate runs ev (named, stamped now, count 1) through the
// aggregator, the observation cache and the spam filter. aggregateName
// names an aggregate event when one is started.
func (c *correlator) correlate(ev *corev1.Event, now time.Time, aggregateName func() string) correlation {
	ev, key := c.aggregate(ev, now, aggregateName)
	out := correlation{event: ev, key: key}
	if prev, ok := c.observed.get(key); ok && prev.count > 0 {
		ev.Name, ev.FirstTimestamp, ev.Count = prev.name, prev.first, prev.count+1
		out.patch = true
	}
	// Observed even when the filter drops it: the next one that gets
	// through carries the whole count.
	c.observed.add(key, observation{count: ev.Count, first: ev.FirstTimestamp, name: ev.Name})
	out.skip = !c.allow(spamKey(ev), now)
	return out
}

// aggregate returns ev itself while its group has seen fewer than
// aggregateMaxEvents distinct messages in the interval, and from then on
// the group's aggregate event, under the group's key.
func (c *correlator) aggregate(ev *corev1.Event, now time.Time, aggregateName func() string) (*corev1.Event, digest) {
	akey := aggregateKey(ev)
	rec, ok := c.aggregates.get(akey)
	if !ok || now.Sub(rec.last) > aggregateInterval {
		rec = &aggregateRecord{}
	}
	if msg := digestOf(ev.Message); !slices.Contains(rec.messages, msg) {
		rec.messages = append(rec.messages, msg)
	}
	rec.last = now
	c.aggregates.add(akey, rec)
	if len(rec.messages) < aggregateMaxEvents {
		return ev, eventKey(ev)
	}
	// Keep the set below the threshold, so every new message is folded
	// in; the oldest is forgotten (client-go pops any one).
	rec.messages = rec.messages[1:]
	agg := *ev
	agg.Name = aggregateName()
	agg.Message = combinedPrefix + ev.Message
	return &agg, akey
}

// observe refreshes the observation under key from the Event the server
// answered (EventCorrelator.UpdateState).
func (c *correlator) observe(key digest, ev *corev1.Event) {
	c.observed.add(key, observation{count: ev.Count, first: ev.FirstTimestamp, name: ev.Name})
}

// allow takes a token from key's bucket (EventSourceObjectSpamFilter).
func (c *correlator) allow(key digest, now time.Time) bool {
	b, ok := c.spam.get(key)
	if !ok {
		b = &tokenBucket{tokens: spamBurst, at: now}
		c.spam.add(key, b)
	}
	return b.take(now)
}

// tokenBucket holds up to spamBurst tokens and gains one every
// spamRefill (flowcontrol's token bucket rate limiter, on the injected
// clock).
type tokenBucket struct {
	tokens float64
	at     time.Time
}

func (b *tokenBucket) take(now time.Time) bool {
	if now.After(b.at) {
		b.tokens = math.Min(spamBurst, b.tokens+float64(now.Sub(b.at))/float64(spamRefill))
		b.at = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
