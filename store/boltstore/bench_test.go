package boltstore

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubesim/kubesim/store"
)

// A pod as the API server stores it is about 1-2 KiB of JSON.
var podValue = make([]byte, 1200)

func benchStore(b *testing.B, cfg Config) *Store {
	cfg.Path = filepath.Join(b.TempDir(), FileName)
	s, err := Open(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// BenchmarkCreateDurable measures acknowledged (fsynced) creates per second
// from 1, 8 and 64 concurrent writers.
func BenchmarkCreateDurable(b *testing.B) {
	for _, writers := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			s := benchStore(b, Config{})
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						if _, err := s.Create(bg, "/registry/pods/default/p"+strconv.FormatInt(i, 10), podValue, store.CreateOptions{}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "creates/s")
		})
	}
}

func BenchmarkGet(b *testing.B) {
	s := benchStore(b, Config{UnsafeNoFsync: true})
	for i := range 1000 {
		if _, err := s.Create(bg, "/registry/pods/default/p"+strconv.Itoa(i), podValue, store.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Get(bg, "/registry/pods/default/p"+strconv.Itoa(i%1000)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList10k lists 10,000 pod-sized values under one prefix.
func BenchmarkList10k(b *testing.B) {
	s := benchStore(b, Config{UnsafeNoFsync: true})
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 10000; i += 16 {
				if _, err := s.Create(bg, fmt.Sprintf("/registry/pods/default/p%05d", i), podValue, store.CreateOptions{}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ResetTimer()
	for range b.N {
		res, err := s.List(bg, "/registry/pods/", store.ListOptions{})
		if err != nil || len(res.Items) != 10000 {
			b.Fatal(err, len(res.Items))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/list")
}

// BenchmarkWatchFanout100 measures the time from a commit to the moment
// all of 100 watchers have the event, and reports p50 and p99. Each watcher
// is one goroutine reading its channel, as an API server watch handler is.
func BenchmarkWatchFanout100(b *testing.B) {
	const watchers = 100
	commits := make([]int64, 0, b.N)
	s := benchStore(b, Config{afterCommit: func() { commits = append(commits, time.Now().UnixNano()) }})
	arrivals := make([][]int64, watchers)
	var wg sync.WaitGroup
	for j := range watchers {
		w, err := s.Watch(bg, "/registry/", 0)
		if err != nil {
			b.Fatal(err)
		}
		defer w.Stop()
		arrivals[j] = make([]int64, 0, b.N)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range w.ResultChan() {
				arrivals[j] = append(arrivals[j], time.Now().UnixNano())
				if len(arrivals[j]) == b.N {
					return
				}
			}
		}()
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Create(bg, "/registry/x/"+strconv.Itoa(i), podValue, store.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
	b.StopTimer()
	lat := make([]time.Duration, b.N)
	for i := range b.N {
		var last int64
		for j := range watchers {
			last = max(last, arrivals[j][i])
		}
		lat[i] = time.Duration(last - commits[i])
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
