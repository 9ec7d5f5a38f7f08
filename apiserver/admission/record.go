package admission

import (
	"context"
	"maps"
	"sync"
)

// Record collects the steps of one request, for the trace: the handler
// puts one in the request's context and shows what it holds with the
// answer. Validating webhooks run in parallel, hence the lock.
type Record struct {
	// diffs asks the chain to compare the object before and after each
	// built-in mutating plugin, to show its patch (see WithRecord).
	diffs       bool
	mu          sync.Mutex
	steps       []Step
	warnings    []string
	annotations map[string]string
}

type recordKey struct{}

// WithRecord returns ctx carrying a new Record that shows every step,
// including the patch of each built-in mutating plugin: the chain
// encodes the object before and after each such plugin and diffs the
// two, which costs more than the plugins themselves — so only a request
// whose answer someone reads for its steps (the stepper's trace) asks
// for it.
func WithRecord(ctx context.Context) (context.Context, *Record) {
	r := &Record{diffs: true}
	return context.WithValue(ctx, recordKey{}, r), r
}

// WithQuietRecord returns ctx carrying a new Record for a request whose
// steps nobody reads: it keeps the warnings, the audit annotations and
// the steps that plugins report themselves (webhooks, refusals), but
// the chain does not diff the object around each built-in plugin.
func WithQuietRecord(ctx context.Context) (context.Context, *Record) {
	r := &Record{}
	return context.WithValue(ctx, recordKey{}, r), r
}

// RecordStep adds s to the Record of ctx, if there is one.
func RecordStep(ctx context.Context, s Step) {
	r, ok := ctx.Value(recordKey{}).(*Record)
	if !ok {
		return
	}
	r.mu.Lock()
	r.steps = append(r.steps, s)
	r.mu.Unlock()
}

// recording says whether the request's Record wants the built-in
// plugins' patches.
func recording(ctx context.Context) bool {
	r, ok := ctx.Value(recordKey{}).(*Record)
	return ok && r.diffs
}

// Steps returns the steps recorded so far, in order.
func (r *Record) Steps() []Step {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Step(nil), r.steps...)
}

// AddWarning adds a warning for the client (a webhook's
// response.warnings), sent as a Warning header with the answer.
func AddWarning(ctx context.Context, msg string) {
	r, ok := ctx.Value(recordKey{}).(*Record)
	if !ok {
		return
	}
	r.mu.Lock()
	r.warnings = append(r.warnings, msg)
	r.mu.Unlock()
}

// AddAuditAnnotation keeps a webhook's auditAnnotations entry, prefixed
// with the webhook's name as Kubernetes prefixes it.
func AddAuditAnnotation(ctx context.Context, key, value string) {
	r, ok := ctx.Value(recordKey{}).(*Record)
	if !ok {
		return
	}
	r.mu.Lock()
	if r.annotations == nil {
		r.annotations = map[string]string{}
	}
	r.annotations[key] = value
	r.mu.Unlock()
}

// Warnings returns the warnings recorded so far.
func (r *Record) Warnings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.warnings...)
}

// AuditAnnotations returns the audit annotations recorded so far.
func (r *Record) AuditAnnotations() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.annotations)
}
