package kubelet

import "time"

// The kubelet's container restart back-off (kuberuntime's doBackOff over a
// flowcontrol.Backoff): one entry per container holds the current period
// and when it was last moved on. Its rule, from the finish time ts of the
// container's latest dead instance: while an entry exists, is not stale
// and less than its period has passed since ts, the container waits
// (CrashLoopBackOff); otherwise it starts now and the entry moves on — 10s
// the first time, doubling each time after, at most 5 minutes, and back
// to 10s once ts is more than twice that past the entry's last update.
//
// So a container that exits for the first time is started again at once
// (no entry yet: that restart makes it), and each exit after that waits
// out the period. A container its liveness probe kills is judged by its
// previous death, since the kubelet kills and restarts it in one sync:
// its first kill restarts it at once, and so do the next ones while the
// container lives longer than the period between them.
const (
	// backOffPeriod is the first period (kubelet.go's backOffPeriod).
	backOffPeriod = 10 * time.Second
	// maxContainerBackOff caps it (kubelet.go's MaxContainerBackOff).
	maxContainerBackOff = 5 * time.Minute
)

// backOffEntry is one container's entry; the zero value is none.
type backOffEntry struct {
	period  time.Duration
	updated time.Time
}

// stale is flowcontrol's hasExpired: the entry was last moved on more
// than twice the cap before ts.
func (e backOffEntry) stale(ts time.Time) bool {
	return ts.Sub(e.updated) > 2*maxContainerBackOff
}

// inBackOffSince is IsInBackOffSince: whether a container whose latest
// instance finished at ts must still wait at now.
func (e backOffEntry) inBackOffSince(ts, now time.Time) bool {
	if e.period == 0 || e.stale(ts) {
		return false
	}
	return now.Sub(ts) < e.period
}

// next is Next: the entry moves on at now, for a death at ts.
func (e *backOffEntry) next(ts, now time.Time) {
	if e.period == 0 || e.stale(ts) {
		e.period = backOffPeriod
	} else {
		e.period = min(2*e.period, maxContainerBackOff)
	}
	e.updated = now
}

// restartAfterExit decides for a container that exited at now by itself:
// start it again now (true, and the entry moved on), or wait until the
// returned time.
func (e *backOffEntry) restartAfterExit(now time.Time) (time.Time, bool) {
	if e.inBackOffSince(now, now) {
		return now.Add(e.period), false
	}
	e.next(now, now)
	return now, true
}

// restartAfterKill decides for a container killed at now (its liveness
// probe failed) whose previous instance, if any (hadPrevious), finished
// at prev: start it again now, or wait until the returned time — the
// kubelet's next sync judges by the killed instance itself.
func (e *backOffEntry) restartAfterKill(prev time.Time, hadPrevious bool, now time.Time) (time.Time, bool) {
	if !hadPrevious {
		return now, true
	}
	if e.inBackOffSince(prev, now) {
		return now.Add(e.period), false
	}
	e.next(prev, now)
	return now, true
}
