package handoff

import (
	"context"
	"reflect"
	"sync/atomic"

	"github.com/kubesim/kubesim/api"
)

// Answer is the side channel of one write request (create, update,
// patch): the server may hand over the object it stored, decoded from the
// bytes it stored, instead of the answer's JSON, which the client would
// decode into exactly that object. The object is the client's own: the
// server keeps no reference to it.
type Answer struct {
	want reflect.Type
	obj  atomic.Pointer[api.Object]
}

// NewAnswer returns the side channel of a write whose client decodes the
// answer into objects like sample (a *api.Pod, an *unstructured.Unstructured).
func NewAnswer(sample api.Object) *Answer {
	return &Answer{want: reflect.TypeOf(sample)}
}

type answerKey struct{}

// WithAnswer returns ctx carrying a: the write made with it may be
// answered through a.
func WithAnswer(ctx context.Context, a *Answer) context.Context {
	return context.WithValue(ctx, answerKey{}, a)
}

// WithoutAnswer returns ctx carrying no Answer: a wrapper of the
// transport that reads the answer's body (the stepper's recorder) wants
// the JSON.
func WithoutAnswer(ctx context.Context) context.Context {
	if AnswerFromContext(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, answerKey{}, (*Answer)(nil))
}

// AnswerFromContext is the Answer a request carries, or nil.
func AnswerFromContext(ctx context.Context) *Answer {
	a, _ := ctx.Value(answerKey{}).(*Answer)
	return a
}

// Hand is the server's: it hands obj over when it is of the type the
// client decodes into and nothing was handed over before (a request
// proxied on in process must not be answered twice), and reports whether
// it did; if not, the server writes the JSON answer.
func (a *Answer) Hand(obj api.Object) bool {
	if obj == nil || reflect.TypeOf(obj) != a.want {
		return false
	}
	return a.obj.CompareAndSwap(nil, &obj)
}

// Object is the client's: the object handed over, or nil when the
// answer is in the response body.
func (a *Answer) Object() api.Object {
	if p := a.obj.Load(); p != nil {
		return *p
	}
	return nil
}
