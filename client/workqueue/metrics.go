package workqueue

import (
	"time"

	"github.com/kubesim/kubesim/clock"
)

// GaugeMetric is a value that goes up and down (a queue's depth).
type GaugeMetric interface {
	Inc()
	Dec()
	// Add adds v (negative: takes away).
	Add(v float64)
}

// CounterMetric is a count that only grows.
type CounterMetric interface {
	Inc()
}

// HistogramMetric observes durations, in seconds.
type HistogramMetric interface {
	Observe(seconds float64)
}

// MetricsProvider makes the metrics of a queue, by the queue's name
// (client-go's workqueue.MetricsProvider, which
// k8s.io/component-base/metrics/prometheus/workqueue implements; here
// controllers/workqueuemetrics). A queue without one measures
// nothing, so step mode and tests need none.
type MetricsProvider interface {
	NewDepthMetric(name string) GaugeMetric
	NewAddsMetric(name string) CounterMetric
	NewLatencyMetric(name string) HistogramMetric
	NewWorkDurationMetric(name string) HistogramMetric
	NewRetriesMetric(name string) CounterMetric
	// NewUnfinishedWorkMetric registers read, which the provider calls
	// whenever the metrics are gathered: the seconds of work in progress
	// and the longest any key has been processed. client-go sets two
	// gauges from a goroutine every half second instead; reading them
	// when asked needs no goroutine and no ticking clock, which step mode
	// could not have. The returned func unregisters read.
	NewUnfinishedWorkMetric(name string, read func() (unfinished, longest float64)) (unregister func())
}

// metrics are one queue's metrics (nil: none). Every method runs under
// the queue's lock.
type metrics struct {
	clock        clock.Clock
	depth        GaugeMetric
	adds         CounterMetric
	latency      HistogramMetric
	workDuration HistogramMetric
	retries      CounterMetric
	unregister   func()
	// queued is this queue's share of depth, taken back at ShutDown: a
	// controller switched off and on again gets a new queue under the
	// same name, whose depth must start where the old one's left it.
	queued int
	// addTimes are when each key waiting to be processed was added;
	// started when each key being processed was handed out.
	addTimes map[string]time.Time
	started  map[string]time.Time
}

func (m *metrics) add(key string) {
	if m == nil {
		return
	}
	m.adds.Inc()
	m.depth.Inc()
	m.queued++
	if _, ok := m.addTimes[key]; !ok {
		m.addTimes[key] = m.clock.Now()
	}
}

func (m *metrics) get(key string) {
	if m == nil {
		return
	}
	now := m.clock.Now()
	m.depth.Dec()
	m.queued--
	if at, ok := m.addTimes[key]; ok {
		m.latency.Observe(now.Sub(at).Seconds())
		delete(m.addTimes, key)
	}
	m.started[key] = now
}

func (m *metrics) done(key string) {
	if m == nil {
		return
	}
	if at, ok := m.started[key]; ok {
		m.workDuration.Observe(m.clock.Now().Sub(at).Seconds())
		delete(m.started, key)
	}
}

func (m *metrics) retry() {
	if m != nil {
		m.retries.Inc()
	}
}

// unfinished is the work in progress: its total seconds and the longest.
func (m *metrics) unfinished() (total, longest float64) {
	now := m.clock.Now()
	for _, at := range m.started {
		d := now.Sub(at).Seconds()
		total += d
		longest = max(longest, d)
	}
	return total, longest
}

func (m *metrics) shutDown() {
	if m == nil {
		return
	}
	m.depth.Add(-float64(m.queued))
	m.queued = 0
	m.unregister()
}

// SetMetricsProvider measures the queue under name from now on, with the
// metrics p makes. A queue is measured by one provider, once: a second
// call, a nil p or a queue shut down changes nothing. The keys queued
// already count in the depth from now. Config.MetricsProvider does the
// same from the start.
func (q *Queue) SetMetricsProvider(name string, p MetricsProvider) {
	if p == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.metrics != nil || q.shutdown {
		return
	}
	m := &metrics{clock: q.cfg.Clock, depth: p.NewDepthMetric(name), adds: p.NewAddsMetric(name),
		latency: p.NewLatencyMetric(name), workDuration: p.NewWorkDurationMetric(name), retries: p.NewRetriesMetric(name),
		addTimes: map[string]time.Time{}, started: map[string]time.Time{}}
	m.unregister = p.NewUnfinishedWorkMetric(name, func() (float64, float64) {
		q.mu.Lock()
		defer q.mu.Unlock()
		return m.unfinished()
	})
	for key := range q.dirty {
		m.add(key)
	}
	now := m.clock.Now()
	for key := range q.processing {
		m.started[key] = now
	}
	q.metrics = m
}
