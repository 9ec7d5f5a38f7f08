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
	mu          sync.Mutex
	steps       []Step
	warnings    []string
	annotations map[string]string
}

type recordKey struct{}

// WithRecord returns ctx carrying a new Record.
func WithRecord(ctx context.Context) (context.Context, *Record) {
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

func recording(ctx context.Context) bool {
	_, ok := ctx.Value(recordKey{}).(*Record)
	return ok
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
