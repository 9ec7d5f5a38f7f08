package workqueuemetrics_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/metrics/metricstest"
	"github.com/kubesim/kubesim/client/workqueue"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers/workqueuemetrics"
	"github.com/kubesim/kubesim/runmode"
)

// gather reads the registry as a scrape would, through the text format.
func gather(t *testing.T, reg *prometheus.Registry) metricstest.Families {
	t.Helper()
	f, err := metricstest.Gather(reg)
	require.NoError(t, err)
	return f
}

func TestQueueMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	p, err := workqueuemetrics.New(reg)
	require.NoError(t, err)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q := workqueue.New(workqueue.Config{Clock: clk, Mode: runmode.Step, Name: "replicaset", MetricsProvider: p})
	name := map[string]string{"name": "replicaset"}

	q.Add("a")
	q.Add("b")
	q.Add("a") // already queued: not an add
	f := gather(t, reg)
	assert.Equal(t, 2.0, f.Sum("workqueue_depth", name))
	assert.Equal(t, 2.0, f.Sum("workqueue_adds_total", name))

	clk.Step(3 * time.Second)
	k, ok := q.TryGet()
	require.True(t, ok)
	clk.Step(2 * time.Second)
	f = gather(t, reg)
	assert.Equal(t, 1.0, f.Sum("workqueue_depth", name))
	assert.Equal(t, 1.0, f.Sum("workqueue_queue_duration_seconds", name), "one key waited")
	assert.Equal(t, 2.0, f.Sum("workqueue_unfinished_work_seconds", name), "a has been worked on for 2s")
	assert.Equal(t, 2.0, f.Sum("workqueue_longest_running_processor_seconds", name))

	q.AddRateLimited(k) // it failed: retried later
	q.Done(k)
	f = gather(t, reg)
	assert.Equal(t, 1.0, f.Sum("workqueue_retries_total", name))
	assert.Equal(t, 1.0, f.Sum("workqueue_work_duration_seconds", name))
	assert.Equal(t, 0.0, f.Sum("workqueue_unfinished_work_seconds", name))
	// The histograms are upstream's: 10ns to 10s, tenfold, and +Inf.
	buckets := f["workqueue_work_duration_seconds"].GetMetric()[0].GetHistogram().GetBucket()
	require.Len(t, buckets, 11)
	assert.InDelta(t, 1e-8, buckets[0].GetUpperBound(), 1e-20)
	assert.InDelta(t, 10.0, buckets[9].GetUpperBound(), 1e-9)

	// A queue shut down takes its keys out of the depth, so that a new
	// queue of the same name (a controller switched off and on) starts
	// from the truth.
	q.ShutDown()
	q2 := workqueue.New(workqueue.Config{Clock: clk, Mode: runmode.Step, Name: "replicaset", MetricsProvider: p})
	q2.Add("c")
	f = gather(t, reg)
	assert.Equal(t, 1.0, f.Sum("workqueue_depth", name))
	assert.Equal(t, 3.0, f.Sum("workqueue_adds_total", name))
}

// A queue instrumented after keys were queued counts them from then on,
// so its depth never goes below zero.
func TestSetMetricsProviderLate(t *testing.T) {
	reg := prometheus.NewRegistry()
	p, err := workqueuemetrics.New(reg)
	require.NoError(t, err)
	q := workqueue.New(workqueue.Config{Clock: clock.Real{}, Mode: runmode.Step})
	q.Add("x")
	q.Add("y")
	_, _ = q.TryGet()
	q.SetMetricsProvider("late", p)
	q.SetMetricsProvider("late", p) // once
	_, _ = q.TryGet()
	f := gather(t, reg)
	assert.Equal(t, 0.0, f.Sum("workqueue_depth", map[string]string{"name": "late"}))
	assert.Equal(t, 1.0, f.Sum("workqueue_queue_duration_seconds", map[string]string{"name": "late"}))

	// Two providers on one registry collide: one per registry.
	_, err = workqueuemetrics.New(reg)
	assert.Error(t, err)
}
