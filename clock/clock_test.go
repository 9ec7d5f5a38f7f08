package clock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestFakeFiresTimersInOrderWhenStepped(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := NewFake(start)
	a := f.NewTimer(2 * time.Second)
	b := f.After(time.Second)
	stopped := f.NewTimer(3 * time.Second)
	next, ok := f.NextDeadline()
	assert.True(t, ok)
	assert.Equal(t, start.Add(time.Second), next)
	assert.True(t, stopped.Stop())
	assert.False(t, stopped.Stop())

	f.Step(time.Second)
	select {
	case got := <-b:
		assert.Equal(t, start.Add(time.Second), got)
	default:
		t.Fatal("1s timer did not fire")
	}
	select {
	case <-a.C():
		t.Fatal("2s timer fired early")
	default:
	}
	f.Step(5 * time.Second)
	<-a.C()
	select {
	case <-stopped.C():
		t.Fatal("a stopped timer fired")
	default:
	}
	_, ok = f.NextDeadline()
	assert.False(t, ok)
	assert.Equal(t, start.Add(6*time.Second), f.Now())
	f.SetTime(start)
	assert.Equal(t, start.Add(6*time.Second), f.Now(), "never backwards")
	<-f.After(0)
}
