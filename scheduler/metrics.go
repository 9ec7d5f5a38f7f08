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
			"Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.",
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
func (m *Metrics) readPending(read func() pendingPods) {
	if m == nil {
		return
	}
	m.pending.mu.Lock()
	m.pending.read = read
	m.pending.mu.Unlock()
}

// pendingPods are the pods waiting to be scheduled, by kube-scheduler's
// queues.
type pendingPods struct {
	// active are ready in the queue (activeQ); backoff wait in it for
	// their back-off after an error (backoffQ); unschedulable were
	// tried, nothing fitted, and wait for an event (unschedulablePods);
	// gated were never tried: a scheduling gate holds them (PreEnqueue).
	active, backoff, unschedulable, gated int
}

// pendingCollector reads the queues when gathered.
type pendingCollector struct {
	desc *prometheus.Desc
	mu   sync.Mutex
	read func() pendingPods
}

func (c *pendingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *pendingCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	read := c.read
	c.mu.Unlock()
	if read == nil {
		return
	}
	p := read()
	for _, q := range []struct {
		name string
		n    int
	}{{"active", p.active}, {"backoff", p.backoff}, {"unschedulable", p.unschedulable}, {"gated", p.gated}} {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(q.n), q.name)
	}
}

// pending counts the pods waiting, by queue. The back-off queue is the
// work queue's delayed keys that wait for no event (not unschedulable)
// and no claim (not in PreBind): a pod whose binding failed.
func (s *Scheduler) pending() pendingPods {
	// The queue's lock is taken before the scheduler's, never within.
	active, waiting := s.ctrl.Pending(), s.ctrl.Waiting()
	s.lock() // lock and unlock, not mu: a pod event that came meanwhile is applied, not left waiting
	p := pendingPods{active: active, unschedulable: len(s.unschedulable), gated: len(s.gatedPods)}
	for _, key := range waiting {
		_, unschedulable := s.unschedulable[key]
		_, prebind := s.prebind[key]
		_, gated := s.gatedPods[key]
		_, permit := s.permitWaits[key]
		if !unschedulable && !prebind && !gated && !permit {
			p.backoff++
		}
	}
	s.unlock()
	return p
}
