// Package workqueuemetrics measures work queues in Prometheus: a
// workqueue.MetricsProvider whose collectors — workqueue_depth,
// workqueue_adds_total, workqueue_queue_duration_seconds,
// workqueue_work_duration_seconds, workqueue_retries_total,
// workqueue_unfinished_work_seconds and
// workqueue_longest_running_processor_seconds, each labelled name=the
// queue's name — are registered once on the registry it is given, and
// shared by every queue measured through it.
//
// It simulates k8s.io/component-base/metrics/prometheus/workqueue, with
// its names, help and buckets (10 ns to 10 s in tenfold steps, then +Inf).
// Queues of the same name share their series, as there; the name is the
// controller's, a fixed set, never an object's. Left out: nothing of the
// metrics; the two gauges of work in progress are computed when gathered
// (workqueue.MetricsProvider says why).
package workqueuemetrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubesim/kubesim/client/workqueue"
)

// durationBuckets are upstream's: 10 ns, 100 ns, ... 10 s.
var durationBuckets = prometheus.ExponentialBuckets(10e-9, 10, 10)

// Provider is a workqueue.MetricsProvider on one registry.
type Provider struct {
	depth        *prometheus.GaugeVec
	adds         *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	workDuration *prometheus.HistogramVec
	retries      *prometheus.CounterVec
	unfinished   *unfinishedCollector
}

// New registers the work queue collectors on reg, once: make one Provider
// per registry and give it to every queue.
func New(reg prometheus.Registerer) (*Provider, error) {
	p := &Provider{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "depth",
			Help: "Current depth of workqueue"}, []string{"name"}),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "adds_total",
			Help: "Total number of adds handled by workqueue"}, []string{"name"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "queue_duration_seconds",
			Help: "How long in seconds an item stays in workqueue before being requested.", Buckets: durationBuckets}, []string{"name"}),
		workDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "work_duration_seconds",
			Help: "How long in seconds processing an item from workqueue takes.", Buckets: durationBuckets}, []string{"name"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "retries_total",
			Help: "Total number of retries handled by workqueue"}, []string{"name"}),
		unfinished: &unfinishedCollector{reads: map[string]*read{},
			unfinished: prometheus.NewDesc("workqueue_unfinished_work_seconds", "How many seconds of work has done that "+
				"is in progress and hasn't been observed by work_duration. Large "+
				"values indicate stuck threads. One can deduce the number of stuck "+
				"threads by observing the rate at which this increases.", []string{"name"}, nil),
			longest: prometheus.NewDesc("workqueue_longest_running_processor_seconds", "How many seconds has the longest running "+
				"processor for workqueue been running.", []string{"name"}, nil)},
	}
	for _, c := range []prometheus.Collector{p.depth, p.adds, p.latency, p.workDuration, p.retries, p.unfinished} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// NewDepthMetric implements workqueue.MetricsProvider.
func (p *Provider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return p.depth.WithLabelValues(name)
}

// NewAddsMetric implements workqueue.MetricsProvider.
func (p *Provider) NewAddsMetric(name string) workqueue.CounterMetric {
	return p.adds.WithLabelValues(name)
}

// NewLatencyMetric implements workqueue.MetricsProvider.
func (p *Provider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return p.latency.WithLabelValues(name)
}

// NewWorkDurationMetric implements workqueue.MetricsProvider.
func (p *Provider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return p.workDuration.WithLabelValues(name)
}

// NewRetriesMetric implements workqueue.MetricsProvider.
func (p *Provider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return p.retries.WithLabelValues(name)
}

// NewUnfinishedWorkMetric implements workqueue.MetricsProvider.
func (p *Provider) NewUnfinishedWorkMetric(name string, fn func() (unfinished, longest float64)) func() {
	return p.unfinished.add(name, fn)
}

// unfinishedCollector asks every queue for its work in progress when
// gathered. The latest queue of a name is the one read: a controller
// built again replaces its old queue.
type unfinishedCollector struct {
	unfinished, longest *prometheus.Desc
	mu                  sync.Mutex
	reads               map[string]*read
}

// read is one queue's reader; its address tells it from a later queue's.
type read struct{ fn func() (float64, float64) }

func (c *unfinishedCollector) add(name string, fn func() (float64, float64)) func() {
	r := &read{fn: fn}
	c.mu.Lock()
	c.reads[name] = r
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.reads[name] == r {
			delete(c.reads, name)
		}
	}
}

func (c *unfinishedCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.unfinished
	ch <- c.longest
}

func (c *unfinishedCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	reads := make(map[string]*read, len(c.reads))
	for name, r := range c.reads {
		reads[name] = r
	}
	c.mu.Unlock()
	for name, r := range reads {
		unfinished, longest := r.fn()
		ch <- prometheus.MustNewConstMetric(c.unfinished, prometheus.GaugeValue, unfinished, name)
		ch <- prometheus.MustNewConstMetric(c.longest, prometheus.GaugeValue, longest, name)
	}
}
