// Package metricstest reads a Prometheus scrape for tests: the text
// exposition parsed with github.com/prometheus/common/expfmt (the parser
// Prometheus' own tools use), and the value of one series picked by some of
// its labels.
package metricstest

import (
	"bytes"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are a scrape's metric families, by name.
type Families map[string]*dto.MetricFamily

// Parse reads a scrape in the text format.
func Parse(r io.Reader) (Families, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(r)
}

// Gather reads g as a scrape would: written in the text format, then
// parsed.
func Gather(g prometheus.Gatherer) (Families, error) {
	mfs, err := g.Gather()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
			return nil, err
		}
	}
	return Parse(&buf)
}

// ParseString is Parse of a string.
func ParseString(s string) (Families, error) { return Parse(strings.NewReader(s)) }

// Sum adds the values of name's series whose labels include want: a
// counter's or gauge's value, a histogram's or summary's sample count. A
// family that is absent sums to 0.
func (f Families) Sum(name string, want map[string]string) float64 {
	fam, ok := f[name]
	if !ok {
		return 0
	}
	var sum float64
	for _, m := range fam.GetMetric() {
		if !matches(m, want) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		case m.Summary != nil:
			sum += float64(m.Summary.GetSampleCount())
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		}
	}
	return sum
}

// Has reports whether name has a series whose labels include want.
func (f Families) Has(name string, want map[string]string) bool {
	fam, ok := f[name]
	if !ok {
		return false
	}
	return slices.ContainsFunc(fam.GetMetric(), func(m *dto.Metric) bool { return matches(m, want) })
}

// LabelValues are the values label takes among name's series, sorted.
func (f Families) LabelValues(name, label string) []string {
	set := map[string]bool{}
	for _, m := range f[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				set[l.GetValue()] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// Series counts the series of the families whose names start with
// prefix ("" for all): a histogram's series are its buckets, sum and
// count, as Prometheus stores them.
func (f Families) Series(prefix string) int {
	n := 0
	for name, fam := range f {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		for _, m := range fam.GetMetric() {
			switch {
			case m.Histogram != nil:
				n += len(m.Histogram.GetBucket()) + 2 // the buckets (+Inf among them), _sum, _count
			case m.Summary != nil:
				n += len(m.Summary.GetQuantile()) + 2
			default:
				n++
			}
		}
	}
	return n
}

func matches(m *dto.Metric, want map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(want)
}
