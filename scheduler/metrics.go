package scheduler

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The results of a scheduling attempt, as kube-scheduler labels them.
const (
	ResultScheduled     = "scheduled"
	ResultUnschedulable = "unschedulable"
	ResultError         = "error"
)

// Metrics are kube-scheduler's metrics (pkg/scheduler/metrics):
// scheduler_schedule_attempts_total and
// scheduler_scheduling_attempt_duration_seconds by result and profile,
// and scheduler_pending_pods by queue. Make them once per registry
// (NewMetrics) and give them to every Scheduler built there: a scheduler
// switched off and on again is a new Scheduler counting on the same
// series. A nil *Metrics measures nothing.
type Metrics struct {
	attempts *prometheus.CounterVec
	duration *prometheus.HistogramVec
	pending  *pendingCollector
}

// NewMetrics registers the scheduler's collectors on reg, once.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "scheduler", Name: "schedule_attempts_total",
			Help: "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem."},
			[]string{"result", "profile"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "scheduler", Name: "scheduling_attempt_duration_seconds",
			Help:    "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 15)}, []string{"result", "profile"}),
		pending: &pendingCollector{desc: prometheus.NewDesc("scheduler_pending_pods",
			"Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'unschedulable' means number of pods in unschedulablePods.",
			[]string{"queue"}, nil)},
	}
	for _, c := range []prometheus.Collector{m.attempts, m.duration, m.pending} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// attempt records one scheduling attempt of profile begun at start.
func (m *Metrics) attempt(result, profile string, start, now time.Time) {
	if m == nil {
		return
	}
	m.attempts.WithLabelValues(result, profile).Inc()
	m.duration.WithLabelValues(result, profile).Observe(now.Sub(start).Seconds())
}

// readPending makes the latest Scheduler the one scheduler_pending_pods
// reads.
func (m *Metrics) readPending(read func() (active, unschedulable int)) {
	if m == nil {
		return
	}
	m.pending.mu.Lock()
	m.pending.read = read
	m.pending.mu.Unlock()
}

// pendingCollector reads the queues when gathered.
type pendingCollector struct {
	desc *prometheus.Desc
	mu   sync.Mutex
	read func() (active, unschedulable int)
}

func (c *pendingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *pendingCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	read := c.read
	c.mu.Unlock()
	if read == nil {
		return
	}
	active, unschedulable := read()
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(active), "active")
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(unschedulable), "unschedulable")
}

// pending counts the pods waiting: those ready in the queue, and those
// nothing fitted, waiting for an event.
func (s *Scheduler) pending() (active, unschedulable int) {
	s.lock() // lock and unlock, not mu: a pod event that came meanwhile is applied, not left waiting
	unschedulable = len(s.unschedulable)
	s.unlock()
	return s.ctrl.Pending(), unschedulable
}
