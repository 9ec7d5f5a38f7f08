package metrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
)

// The cost the metrics add to one request, measured piece by piece: the
// request's own counting (labels, the counter, the histogram, the writer
// that notes the code), one timed storage call, and the admission chain's
// two steps. A pod create makes one of the first, about six of the second
// (a get, a create and four lists of the admission plugins) and one of
// the third; docs/performance.md adds them up against the create's CPU.

func newBenchMetrics(b *testing.B) *Metrics {
	m, err := New(Config{Registry: prometheus.NewRegistry(), Clock: clock.Real{}})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkMonitorRequest is MonitorRequest around a handler that only
// answers 201; the "bare" case calls the handler alone.
func BenchmarkMonitorRequest(b *testing.B) {
	r := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/pods", nil)
	info := request.Parse(r)
	w := httptest.NewRecorder()
	h := func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) }
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			h(w, r)
		}
	})
	b.Run("measured", func(b *testing.B) {
		m := newBenchMetrics(b)
		b.ReportAllocs()
		for range b.N {
			m.MonitorRequest(w, r, info, "", h)
		}
	})
}

// nopStore answers every call at once.
type nopStore struct{ store.Interface }

func (nopStore) Get(context.Context, string) (store.KeyValue, error) { return store.KeyValue{}, nil }

// BenchmarkTimedStorageCall is one storage call through InstrumentStorage
// (etcd_request_duration_seconds), against the same call bare.
func BenchmarkTimedStorageCall(b *testing.B) {
	ctx := context.Background()
	b.Run("bare", func(b *testing.B) {
		var st store.Interface = nopStore{}
		b.ReportAllocs()
		for range b.N {
			_, _ = st.Get(ctx, "/registry/pods/default/p")
		}
	})
	b.Run("measured", func(b *testing.B) {
		st := newBenchMetrics(b).InstrumentStorage(nopStore{}, schema.GroupResource{Resource: "pods"})
		b.ReportAllocs()
		for range b.N {
			_, _ = st.Get(ctx, "/registry/pods/default/p")
		}
	})
}

// BenchmarkAdmissionSteps is the timing of an empty admission chain's two
// halves, with the metrics in the context as a write carries them.
func BenchmarkAdmissionSteps(b *testing.B) { benchmarkChain(b, nil) }

// benchmarkChain runs chain's two halves without metrics ("bare") and
// with them, reporting the CPU of each (ns-cpu/op) beside the wall time.
func benchmarkChain(b *testing.B, chain admission.Chain) {
	a := &admission.Attributes{Operation: admission.Create}
	for _, measured := range []bool{false, true} {
		name := "bare"
		if measured {
			name = "measured"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			if measured {
				ctx = admission.WithMetrics(ctx, newBenchMetrics(b).Admission())
			}
			b.ReportAllocs()
			cpu0 := processCPU()
			for range b.N {
				_ = chain.Mutate(ctx, a)
				_ = chain.Validate(ctx, a)
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "ns-cpu/op")
		})
	}
}

// processCPU is the CPU the process used so far: on a loaded machine a
// benchmark's wall time counts the time it waited, its CPU does not.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// noopPlugin admits and validates everything at once; it is named, as
// the built-in plugins are.
type noopPlugin struct{}

func (noopPlugin) PluginName() string { return "Noop" }

func (noopPlugin) Admit(context.Context, *admission.Attributes) error    { return nil }
func (noopPlugin) Validate(context.Context, *admission.Attributes) error { return nil }

// BenchmarkAdmissionPlugins is the chain's halves around eight plugins
// that are both mutating and validating: sixteen plugin calls, about what
// a pod create makes, each timed for
// apiserver_admission_controller_admission_duration_seconds; the "bare"
// case runs them without metrics. Divided by sixteen, the difference
// less BenchmarkAdmissionSteps' is the cost of one plugin call's timing.
func BenchmarkAdmissionPlugins(b *testing.B) {
	chain := make(admission.Chain, 8)
	for i := range chain {
		chain[i] = noopPlugin{}
	}
	benchmarkChain(b, chain)
}
