package cluster

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/kubesim/kubesim/controllers/workqueuemetrics"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/scheduler"
)

// newMetrics makes the cluster's Prometheus registry, which the API
// server serves at /metrics: one per cluster (never the default
// registerer, so that the clusters of one process — tests, the demo —
// keep their own counts), with the process's and the Go runtime's
// collectors as every Kubernetes component has, and the work queue
// provider every controller's queue is measured with, and the
// scheduler's metrics (made once: a scheduler switched off and on counts
// on).
func (c *Cluster) newMetrics() error {
	reg := prometheus.NewRegistry()
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return err
	}
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return err
	}
	queues, err := workqueuemetrics.New(reg)
	if err != nil {
		return err
	}
	sched, err := scheduler.NewMetrics(reg)
	if err != nil {
		return err
	}
	c.metrics, c.queueMetrics, c.schedulerMetrics = reg, queues, sched
	return nil
}

// Metrics is the cluster's registry: what the API server's /metrics
// serves. A component outside the cluster that serves with it (the
// max-in-flight filter of `kubesim serve`) registers its collectors here.
func (c *Cluster) Metrics() *prometheus.Registry { return c.metrics }

// instrument measures the queues of a component the cluster built, under
// each controller's name. A kubelet's loops are not measured here: their
// names carry the node's, so a cluster of many nodes would make a series
// per node; the kubelet has metrics of its own.
func (c *Cluster) instrument(comp Component) {
	if _, ok := comp.(*kubelet.Kubelet); ok {
		return
	}
	for _, ctrl := range comp.Controllers() {
		ctrl.SetQueueMetrics(c.queueMetrics)
	}
}
