package clock

import (
	"context"
	"time"
)

// WithTimeout is context.WithTimeout on c: the context ends with cause
// once d has passed on c. A deadline of the context package uses the
// wall clock, which step mode and the tests do not move; a call made
// under this one times out when the injected clock says so.
func WithTimeout(ctx context.Context, c Clock, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	timer := c.NewTimer(d)
	go func() {
		defer timer.Stop()
		select {
		case <-timer.C():
			cancel(cause)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}
