package cluster

import (
	"flag"
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// The live benchmarks' watchdog: a run that goes wrong at 100,000 pods can
// take the whole machine with it (one did: 24 GB in 38 minutes, nothing
// left to look at). With -watchdog-heap-mib the benchmark prints a line of
// progress every -watchdog-every, and when the live heap passes the limit it
// writes a heap profile and every goroutine's stack beside the path given by
// -watchdog-dump and ends the process, so the evidence survives:
//
//	go test -run '^$' -bench 'Live.*100000' -benchtime 1x ./cluster/ \
//	    -watchdog-heap-mib 6144 -watchdog-dump /tmp/runaway
var (
	watchdogHeapMiB = flag.Int("watchdog-heap-mib", 0, "end a live benchmark, leaving profiles, when its live heap passes this many MiB (0: no watchdog)")
	watchdogDump    = flag.String("watchdog-dump", os.TempDir()+"/kubesim-watchdog", "where the watchdog writes .heap.pprof and .goroutines.txt")
	watchdogEvery   = flag.Duration("watchdog-every", 5*time.Second, "how often the watchdog prints progress")
)

// startWatchdog starts the watchdog when -watchdog-heap-mib is set; progress
// reports the run's counts for its lines. Closing the returned channel stops
// it.
func startWatchdog(progress func() string) (stop chan struct{}) {
	stop = make(chan struct{})
	if *watchdogHeapMiB <= 0 {
		return stop
	}
	go func() {
		start := time.Now()
		sample := []metrics.Sample{
			{Name: "/memory/classes/heap/objects:bytes"},
			{Name: "/memory/classes/total:bytes"},
			{Name: "/sched/goroutines:goroutines"},
		}
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		var last time.Time
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				metrics.Read(sample)
				heap := sample[0].Value.Uint64() >> 20
				line := fmt.Sprintf("watchdog %6.1fs heap %d MiB, from the OS %d MiB, %d goroutines, %s",
					now.Sub(start).Seconds(), heap, sample[1].Value.Uint64()>>20, sample[2].Value.Uint64(), progress())
				if heap > uint64(*watchdogHeapMiB) {
					fmt.Fprintln(os.Stderr, line, "— over the limit, dumping and ending")
					watchdogDumpAndExit()
				}
				if now.Sub(last) >= *watchdogEvery {
					fmt.Fprintln(os.Stderr, line)
					last = now
				}
			}
		}
	}()
	return stop
}

// watchdogDumpAndExit writes every goroutine's stack and the heap profile
// (without a GC first: the garbage may be the story), then ends the
// process. The heap profile of a process growing by gigabytes a second did
// not finish (the machine ran out of memory first), so the
// goroutines come first and the process ends after watchdogGrace whatever
// the heap profile's state.
func watchdogDumpAndExit() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, p := range []struct{ file, profile string }{{"goroutines.txt", "goroutine"}, {"heap.pprof", "heap"}} {
			f, err := os.Create(*watchdogDump + "." + p.file)
			if err != nil {
				fmt.Fprintln(os.Stderr, "watchdog:", err)
				continue
			}
			debug := 0
			if p.profile == "goroutine" {
				debug = 1
			}
			if err := pprof.Lookup(p.profile).WriteTo(f, debug); err != nil {
				fmt.Fprintln(os.Stderr, "watchdog:", err)
			}
			f.Close()
			fmt.Fprintf(os.Stderr, "watchdog: wrote %s.%s\n", *watchdogDump, p.file)
		}
	}()
	select {
	case <-done:
	case <-time.After(watchdogGrace):
		fmt.Fprintln(os.Stderr, "watchdog: the dump did not finish in", watchdogGrace, "— ending anyway")
	}
	os.Exit(3)
}

// watchdogGrace is how long the dump may take.
const watchdogGrace = 20 * time.Second
