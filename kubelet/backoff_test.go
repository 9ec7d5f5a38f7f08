package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A container that keeps exiting is started again at once the first
// time, then after 10s, 20s, 40s… at most 5 minutes; a run long enough
// for the entry to go stale starts the count over, at once again.
func TestBackOffAfterExits(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var e backOffEntry
	now := t0
	var waits []time.Duration
	for range 8 {
		until, atOnce := e.restartAfterExit(now)
		if atOnce {
			waits = append(waits, 0)
		} else {
			waits = append(waits, until.Sub(now))
			e.next(now, until) // it starts when the wait is over
			now = until
		}
		now = now.Add(5 * time.Second) // and runs 5 seconds
	}
	assert.Equal(t, []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
		160 * time.Second, 5 * time.Minute, 5 * time.Minute}, waits)

	now = now.Add(11 * time.Minute) // a long run
	_, atOnce := e.restartAfterExit(now)
	assert.True(t, atOnce, "a stale entry starts over")
	until, atOnce := e.restartAfterExit(now.Add(time.Second))
	assert.False(t, atOnce)
	assert.Equal(t, 10*time.Second, until.Sub(now.Add(time.Second)))
}

// A container its liveness probe kills is judged by its previous death:
// the first kill restarts it at once, and so do later ones while it lives
// longer than the period; once the period outgrows its life, it waits.
func TestBackOffAfterLivenessKills(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var e backOffEntry
	life := 45 * time.Second
	now := t0.Add(life)
	var prev time.Time
	had := false
	var waits []time.Duration
	for range 7 {
		until, atOnce := e.restartAfterKill(prev, had, now)
		prev, had = now, true
		if atOnce {
			waits = append(waits, 0)
		} else {
			waits = append(waits, until.Sub(now))
			e.next(prev, until)
			now = until
		}
		now = now.Add(life)
	}
	// Kills 1-5 restart at once (no previous death; no entry; then 10s,
	// 20s and 40s < 45s of life); the sixth finds 80s > 45s and waits 80s
	// from the kill.
	assert.Equal(t, []time.Duration{0, 0, 0, 0, 0, 80 * time.Second, 160 * time.Second}, waits)
}
