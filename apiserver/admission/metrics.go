package admission

import (
	"context"
	"time"
)

// The step types of the admission metrics: the mutating and the
// validating half of the chain, as upstream's "admit" and "validate".
const (
	StepAdmit    = "admit"
	StepValidate = "validate"
)

// Metrics times the chain's steps, plugin calls and webhook calls
// (apiserver_admission_step_admission_duration_seconds,
// apiserver_admission_controller_admission_duration_seconds and
// apiserver_admission_webhook_admission_duration_seconds; the API server's
// metrics package implements it). The API server puts it in a write's
// context (WithMetrics); a write without it is not timed.
type Metrics interface {
	// Now is the metrics' clock.
	Now() time.Time
	// ObserveStep records one half of the chain (StepAdmit or
	// StepValidate) that began at start and ended at end (read from Now
	// and ObservePlugin: the chain reads no clock of its own).
	ObserveStep(step string, op Operation, rejected bool, start, end time.Time)
	// ObservePlugin records one call of the plugin name in step, begun at
	// start, and returns when it ended (the chain times the next call
	// from there).
	ObservePlugin(name, step string, op Operation, rejected bool, start time.Time) (end time.Time)
	// ObserveWebhook records one call of the webhook name, begun at start.
	ObserveWebhook(name, step string, op Operation, rejected bool, start time.Time)
}

type metricsKey struct{}

// WithMetrics returns ctx carrying m for the chain and its webhooks.
func WithMetrics(ctx context.Context, m Metrics) context.Context {
	return context.WithValue(ctx, metricsKey{}, m)
}

// MetricsFrom returns the Metrics of ctx, or nil.
func MetricsFrom(ctx context.Context) Metrics {
	m, _ := ctx.Value(metricsKey{}).(Metrics)
	return m
}
