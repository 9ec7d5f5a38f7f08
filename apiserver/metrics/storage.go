package metrics

import (
	"context"
	"sync"
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
	t := &timedStorage{Interface: st, clock: m.clock}
	for i, name := range storageOps {
		t.ops[i] = lazyObserver{vec: m.storage.durations, labels: []string{name, gr.Group, gr.Resource}}
	}
	return t
}

// The storage operations timed, in timedStorage.ops' order.
var storageOps = [...]string{"get", "create", "update", "delete", "list"}

const (
	opGet = iota
	opCreate
	opUpdate
	opDelete
	opList
)

// lazyObserver is one series of the histogram, made at its first
// observation: a resource nobody deletes shows no delete series, as
// upstream, rather than thousands of empty ones in every scrape.
type lazyObserver struct {
	once   sync.Once
	vec    *prometheus.HistogramVec
	labels []string
	obs    prometheus.Observer
}

func (l *lazyObserver) observe(seconds float64) {
	l.once.Do(func() { l.obs = l.vec.WithLabelValues(l.labels...) })
	l.obs.Observe(seconds)
}

// timedStorage is a store.Interface whose calls are timed; each series is
// resolved once, so a call costs two clock reads and an observation.
type timedStorage struct {
	store.Interface
	clock clock.Clock
	ops   [len(storageOps)]lazyObserver
}

func (t *timedStorage) since(op int, start time.Time) {
	t.ops[op].observe(t.clock.Now().Sub(start).Seconds())
}

func (t *timedStorage) Create(ctx context.Context, key string, value []byte, opts store.CreateOptions) (store.KeyValue, error) {
	defer t.since(opCreate, t.clock.Now())
	return t.Interface.Create(ctx, key, value, opts)
}

func (t *timedStorage) Get(ctx context.Context, key string) (store.KeyValue, error) {
	defer t.since(opGet, t.clock.Now())
	return t.Interface.Get(ctx, key)
}

func (t *timedStorage) Update(ctx context.Context, key string, value []byte, pre store.Preconditions) (store.KeyValue, error) {
	defer t.since(opUpdate, t.clock.Now())
	return t.Interface.Update(ctx, key, value, pre)
}

func (t *timedStorage) Delete(ctx context.Context, key string, pre store.Preconditions) (store.KeyValue, error) {
	defer t.since(opDelete, t.clock.Now())
	return t.Interface.Delete(ctx, key, pre)
}

func (t *timedStorage) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	defer t.since(opList, t.clock.Now())
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
