// Package workqueue is the queue every control loop pulls keys from: a key
// is queued at most once however many events mention it, a key being
// processed is not handed to a second worker, failed keys come back after an
// exponentially growing delay, and delayed adds wait on the injected clock.
//
// It simulates k8s.io/client-go/util/workqueue (Type, DelayingInterface,
// RateLimitingInterface with the per-item exponential limiter), with its
// metrics (metrics.go: client-go's MetricsProvider, measured on the
// queue's clock; the work in progress is read when the metrics are
// gathered rather than every half second). Left out: the overall
// token-bucket limiter.
//
// Two ways to use it, as Config.Mode says: Get blocks until a key is ready
// and a timer goroutine promotes delayed keys (live mode); TryGet returns at
// once and promotes the delayed keys that are due itself (step mode, where
// the stepper decides who runs and when time moves).
package workqueue
