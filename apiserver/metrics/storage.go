package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
)

// storageMetrics are the storage layer's (k8s.io/apiserver's
// pkg/storage/etcd3/metrics): etcd_request_duration_seconds by operation,
// group and resource, whatever the backend (bbolt or etcd), and
// apiserver_storage_size_bytes when the backend can tell its size.
type storageMetrics struct {
	durations *prometheus.HistogramVec
}

func newStorageMetrics(reg prometheus.Registerer, clk clock.Clock, sizer store.Sizer) (*storageMetrics, error) {
	m := &storageMetrics{durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "etcd_request_duration_seconds",
		Help:    "Etcd request latency in seconds for each operation and object type.",
		Buckets: requestDurationBuckets, // the same as the requests', upstream's choice
	}, []string{"operation", "group", "resource"})}
	cs := []prometheus.Collector{m.durations}
	if sizer != nil {
		cs = append(cs, &sizeCollector{sizer: sizer, desc: prometheus.NewDesc("apiserver_storage_size_bytes",
			"Size of the storage database file physically allocated in bytes.", []string{"storage_cluster_id"}, nil)})
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// InstrumentStorage times st's calls for resource gr
// (etcd_request_duration_seconds{operation,group,resource}): get, create,
// update, delete and list, as the storage layer names them. Watches are
// not timed (upstream times only their initial list). A nil m returns st.
func (m *Metrics) InstrumentStorage(st store.Interface, gr schema.GroupResource) store.Interface {
	if m == nil {
		return st
	}
	op := func(name string) prometheus.Observer {
		return m.storage.durations.WithLabelValues(name, gr.Group, gr.Resource)
	}
	return &timedStorage{Interface: st, clock: m.clock,
		get: op("get"), create: op("create"), update: op("update"), delete: op("delete"), list: op("list")}
}

// timedStorage is a store.Interface whose calls are timed; its series
// are resolved once, so a call costs two clock reads and an observation.
type timedStorage struct {
	store.Interface
	clock                             clock.Clock
	get, create, update, delete, list prometheus.Observer
}

func (t *timedStorage) since(o prometheus.Observer, start time.Time) {
	o.Observe(t.clock.Now().Sub(start).Seconds())
}

func (t *timedStorage) Create(ctx context.Context, key string, value []byte, opts store.CreateOptions) (store.KeyValue, error) {
	defer t.since(t.create, t.clock.Now())
	return t.Interface.Create(ctx, key, value, opts)
}

func (t *timedStorage) Get(ctx context.Context, key string) (store.KeyValue, error) {
	defer t.since(t.get, t.clock.Now())
	return t.Interface.Get(ctx, key)
}

func (t *timedStorage) Update(ctx context.Context, key string, value []byte, pre store.Preconditions) (store.KeyValue, error) {
	defer t.since(t.update, t.clock.Now())
	return t.Interface.Update(ctx, key, value, pre)
}

func (t *timedStorage) Delete(ctx context.Context, key string, pre store.Preconditions) (store.KeyValue, error) {
	defer t.since(t.delete, t.clock.Now())
	return t.Interface.Delete(ctx, key, pre)
}

func (t *timedStorage) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	defer t.since(t.list, t.clock.Now())
	return t.Interface.List(ctx, prefix, opts)
}

// sizeCollector asks the store its size when gathered.
type sizeCollector struct {
	sizer store.Sizer
	desc  *prometheus.Desc
}

func (c *sizeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *sizeCollector) Collect(ch chan<- prometheus.Metric) {
	size, id, err := c.sizer.DBSize(context.Background())
	if err != nil {
		size = -1 // as upstream reports a failed check
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(size), id)
}
