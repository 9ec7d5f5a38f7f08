package clock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The context ends with the cause once the fake clock passes the
// timeout, not before; cancel ends it without the cause.
func TestWithTimeoutEndsOnTheInjectedClock(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	late := errors.New("late")
	ctx, cancel := WithTimeout(context.Background(), f, time.Minute, late)
	defer cancel()
	f.Step(59 * time.Second)
	if ctx.Err() != nil {
		t.Fatal("ended before its time")
	}
	f.Step(time.Second)
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), late) {
		t.Fatalf("cause %v, want %v", context.Cause(ctx), late)
	}
	ctx, cancel = WithTimeout(context.Background(), f, time.Minute, late)
	cancel()
	<-ctx.Done()
	if errors.Is(context.Cause(ctx), late) {
		t.Fatal("a cancelled context has the timeout's cause")
	}
}
