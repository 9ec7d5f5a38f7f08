package kubelet

import (
	"github.com/prometheus/client_golang/prometheus"
)

// podStartDurationBuckets are the kubelet's pod start buckets: half a
// second to an hour.
var podStartDurationBuckets = []float64{0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600,
	900, 1200, 1800, 2700, 3600}

// metrics are one kubelet's, on its own registry (Config.Metrics), as
// each real kubelet serves its own /metrics: kubelet_node_name,
// kubelet_running_pods and kubelet_running_containers (counted when
// gathered, from the simulated sandboxes), and
// kubelet_pod_start_duration_seconds. nil measures nothing.
type metrics struct {
	podStart prometheus.Histogram
}

// newMetrics registers the kubelet's collectors on reg (nil: none).
func (k *Kubelet) newMetrics(reg prometheus.Registerer) (*metrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &metrics{podStart: prometheus.NewHistogram(prometheus.HistogramOpts{Subsystem: "kubelet", Name: "pod_start_duration_seconds",
		Help:    "Duration in seconds from kubelet seeing a pod for the first time to the pod starting to run",
		Buckets: podStartDurationBuckets})}
	nodeName := prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "kubelet", Name: "node_name",
		Help: "The node's name. The count is always 1."}, []string{"node"})
	nodeName.WithLabelValues(k.cfg.NodeName).Set(1)
	running := &runningCollector{k: k,
		pods: prometheus.NewDesc("kubelet_running_pods", "Number of pods that have a running pod sandbox", nil, nil),
		containers: prometheus.NewDesc("kubelet_running_containers", "Number of containers currently running",
			[]string{"container_state"}, nil)}
	for _, c := range []prometheus.Collector{m.podStart, nodeName, running} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// podStarted observes a pod whose containers started, seconds after the
// kubelet first saw it.
func (m *metrics) podStarted(seconds float64) {
	if m != nil {
		m.podStart.Observe(seconds)
	}
}

// runningCollector counts the sandboxes and containers when gathered,
// as the real kubelet's collector asks its runtime cache.
type runningCollector struct {
	k                *Kubelet
	pods, containers *prometheus.Desc
}

func (c *runningCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.pods
	ch <- c.containers
}

// The container states kubelet_running_containers reports, as the
// runtime names them.
const (
	containerStateCreated = "created"
	containerStateRunning = "running"
	containerStateExited  = "exited"
)

func (c *runningCollector) Collect(ch chan<- prometheus.Metric) {
	pods := 0
	states := map[string]int{containerStateCreated: 0, containerStateRunning: 0, containerStateExited: 0}
	c.k.stateMu.Lock()
	for _, rt := range c.k.runtimes {
		if rt.stage != stageStarted {
			continue // no sandbox yet (ContainerCreating), or torn down
		}
		pods++
		for _, ctr := range rt.containers {
			switch {
			case ctr.state == containerRunning:
				states[containerStateRunning]++
			case ctr.state == containerTerminated || ctr.everStarted:
				states[containerStateExited]++ // exited, or waiting in back-off to restart
			default:
				states[containerStateCreated]++
			}
		}
	}
	c.k.stateMu.Unlock()
	ch <- prometheus.MustNewConstMetric(c.pods, prometheus.GaugeValue, float64(pods))
	for s, n := range states {
		ch <- prometheus.MustNewConstMetric(c.containers, prometheus.GaugeValue, float64(n), s)
	}
}

// Metrics is the kubelet's registry, which its API serves at /metrics
// (nil when Config.Metrics is).
func (k *Kubelet) Metrics() prometheus.Gatherer {
	if k.cfg.Metrics == nil {
		return nil
	}
	return k.cfg.Metrics
}
