// Package clock is the time source every kubesim component is given instead
// of calling time.Now: the real clock in live mode, and a fake one in step
// mode, where time moves only when the stepper says so (to the next timer),
// so that a scenario gives the same trace every run.
//
// It simulates k8s.io/utils/clock (Clock, and testing.FakeClock). Left out:
// tickers with catch-up semantics and the "waiters" introspection beyond
// what the stepper needs.
package clock
