package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api/field"
)

var (
	podsGR        = schema.GroupResource{Resource: "pods"}
	replicaSetsGR = schema.GroupResource{Group: "apps", Resource: "replicasets"}
)

func TestErrorWording(t *testing.T) {
	tests := []struct {
		name   string
		err    *StatusError
		msg    string
		code   int32
		reason metav1.StatusReason
	}{
		{"not found", NewNotFound(podsGR, "x"), `pods "x" not found`, 404, metav1.StatusReasonNotFound},
		{"not found in group", NewNotFound(replicaSetsGR, "web"), `replicasets.apps "web" not found`, 404, metav1.StatusReasonNotFound},
		{"already exists", NewAlreadyExists(podsGR, "x"), `pods "x" already exists`, 409, metav1.StatusReasonAlreadyExists},
		{"generate name conflict", NewGenerateNameConflict(podsGR, "web-abcde", 1), `pods "web-abcde" already exists, the server was not able to generate a unique name for the object`, 409, metav1.StatusReasonAlreadyExists},
		{"conflict", NewConflict(podsGR, "web", errors.New(OptimisticLockErrorMsg)), `Operation cannot be fulfilled on pods "web": the object has been modified; please apply your changes to the latest version and try again`, 409, metav1.StatusReasonConflict},
		{"optimistic lock", NewOptimisticLockConflict(replicaSetsGR, "web"), `Operation cannot be fulfilled on replicasets.apps "web": the object has been modified; please apply your changes to the latest version and try again`, 409, metav1.StatusReasonConflict},
		{"invalid one", NewInvalid(schema.GroupKind{Kind: "Pod"}, "x", field.ErrorList{field.Required(field.NewPath("spec", "containers"), "")}), `Pod "x" is invalid: spec.containers: Required value`, 422, metav1.StatusReasonInvalid},
		{"invalid several", NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", field.ErrorList{
			field.Required(field.NewPath("spec", "selector"), ""),
			field.Invalid(field.NewPath("spec", "replicas"), -1, "must be greater than or equal to 0"),
		}), `Deployment.apps "web" is invalid: [spec.selector: Required value, spec.replicas: Invalid value: -1: must be greater than or equal to 0]`, 422, metav1.StatusReasonInvalid},
		{"invalid none", NewInvalid(schema.GroupKind{Kind: "Pod"}, "x", nil), `Pod "x" is invalid`, 422, metav1.StatusReasonInvalid},
		{"bad request", NewBadRequest("the server rejected our request"), "the server rejected our request", 400, metav1.StatusReasonBadRequest},
		{"method", NewMethodNotSupported(podsGR, "deletecollection"), `deletecollection is not supported on resources of kind "pods"`, 405, metav1.StatusReasonMethodNotAllowed},
		{"gone", NewGone("too old resource version: 1 (20)"), "too old resource version: 1 (20)", 410, metav1.StatusReasonGone},
		{"expired", NewResourceExpired("too old resource version: 1 (20)"), "too old resource version: 1 (20)", 410, metav1.StatusReasonExpired},
		{"unauthorized", NewUnauthorized(""), "not authorized", 401, metav1.StatusReasonUnauthorized},
		{"unauthorized reason", NewUnauthorized("Unauthorized"), "Unauthorized", 401, metav1.StatusReasonUnauthorized},
		{"forbidden", NewForbidden(podsGR, "x", errors.New(`User "bob" cannot get resource "pods"`)), `pods "x" is forbidden: User "bob" cannot get resource "pods"`, 403, metav1.StatusReasonForbidden},
		{"forbidden no name", NewForbidden(podsGR, "", errors.New("nope")), `pods is forbidden: nope`, 403, metav1.StatusReasonForbidden},
		{"forbidden no resource", NewForbidden(schema.GroupResource{}, "", errors.New("nope")), `forbidden: nope`, 403, metav1.StatusReasonForbidden},
		{"timeout", NewTimeoutError("request did not complete within requested timeout - context deadline exceeded", 0), "Timeout: request did not complete within requested timeout - context deadline exceeded", 504, metav1.StatusReasonTimeout},
		{"server timeout", NewServerTimeout(podsGR, "get", 2), "The get operation against pods could not be completed at this time, please try again.", 500, metav1.StatusReasonServerTimeout},
		{"internal", NewInternalError(errors.New("boom")), "Internal error occurred: boom", 500, metav1.StatusReasonInternalError},
		{"unavailable", NewServiceUnavailable("service unavailable"), "service unavailable", 503, metav1.StatusReasonServiceUnavailable},
		{"too large", NewRequestEntityTooLargeError("limit is 3145728"), "Request entity too large: limit is 3145728", 413, metav1.StatusReasonRequestEntityTooLarge},
		{"too many", NewTooManyRequestsError("slow down"), "Too many requests: slow down", 429, metav1.StatusReasonTooManyRequests},
		{"too many hint", NewTooManyRequests("slow down", 3), "slow down", 429, metav1.StatusReasonTooManyRequests},
		{"media type", NewUnsupportedMediaType("application/json", "application/yaml"), "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml", 415, metav1.StatusReasonUnsupportedMediaType},
		{"not acceptable", NewNotAcceptable("application/json"), "only the following media types are accepted: application/json", 406, metav1.StatusReasonNotAcceptable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.msg, tt.err.Error())
			s := tt.err.Status()
			assert.Equal(t, tt.code, s.Code)
			assert.Equal(t, tt.reason, s.Reason)
			assert.Equal(t, metav1.StatusFailure, s.Status)
			assert.Equal(t, "Status", s.Kind)
			assert.Equal(t, "v1", s.APIVersion)
			assert.Equal(t, tt.reason, ReasonForError(fmt.Errorf("wrapped: %w", tt.err)))
		})
	}
}

func TestInvalidDetails(t *testing.T) {
	err := NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", field.ErrorList{
		field.Required(field.NewPath("spec", "template", "spec", "containers").Index(0).Child("image"), ""),
		field.NotSupported(field.NewPath("spec", "strategy", "type"), "Fast", []string{"Recreate", "RollingUpdate"}),
	})
	b, jerr := json.Marshal(err.Status())
	require.NoError(t, jerr)
	assert.JSONEq(t, `{
		"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
		"message": "Deployment.apps \"web\" is invalid: [spec.template.spec.containers[0].image: Required value, spec.strategy.type: Unsupported value: \"Fast\": supported values: \"Recreate\", \"RollingUpdate\"]",
		"reason": "Invalid",
		"details": {"name": "web", "group": "apps", "kind": "Deployment", "causes": [
			{"reason": "FieldValueRequired", "message": "Required value", "field": "spec.template.spec.containers[0].image"},
			{"reason": "FieldValueNotSupported", "message": "Unsupported value: \"Fast\": supported values: \"Recreate\", \"RollingUpdate\"", "field": "spec.strategy.type"}
		]},
		"code": 422}`, string(b))

	nf := NewNotFound(replicaSetsGR, "web").Status()
	assert.Equal(t, &metav1.StatusDetails{Group: "apps", Kind: "replicasets", Name: "web"}, nf.Details)
}

func TestPredicates(t *testing.T) {
	preds := map[string]func(error) bool{
		"IsNotFound": IsNotFound, "IsAlreadyExists": IsAlreadyExists, "IsConflict": IsConflict,
		"IsInvalid": IsInvalid, "IsBadRequest": IsBadRequest, "IsGone": IsGone,
		"IsResourceExpired": IsResourceExpired, "IsForbidden": IsForbidden, "IsUnauthorized": IsUnauthorized,
		"IsMethodNotSupported": IsMethodNotSupported, "IsTimeout": IsTimeout, "IsServerTimeout": IsServerTimeout,
		"IsInternalError": IsInternalError, "IsServiceUnavailable": IsServiceUnavailable,
		"IsTooManyRequests": IsTooManyRequests, "IsRequestEntityTooLargeError": IsRequestEntityTooLargeError,
		"IsUnsupportedMediaType": IsUnsupportedMediaType, "IsNotAcceptable": IsNotAcceptable,
	}
	tests := []struct {
		err  error
		true string
	}{
		{NewNotFound(podsGR, "x"), "IsNotFound"},
		{NewAlreadyExists(podsGR, "x"), "IsAlreadyExists"},
		{NewConflict(podsGR, "x", errors.New("e")), "IsConflict"},
		{NewInvalid(schema.GroupKind{Kind: "Pod"}, "x", nil), "IsInvalid"},
		{NewBadRequest("x"), "IsBadRequest"},
		{NewGone("x"), "IsGone"},
		{NewResourceExpired("x"), "IsResourceExpired"},
		{NewForbidden(podsGR, "x", errors.New("e")), "IsForbidden"},
		{NewUnauthorized(""), "IsUnauthorized"},
		{NewMethodNotSupported(podsGR, "x"), "IsMethodNotSupported"},
		{NewTimeoutError("x", 1), "IsTimeout"},
		{NewServerTimeout(podsGR, "get", 1), "IsServerTimeout"},
		{NewInternalError(errors.New("e")), "IsInternalError"},
		{NewServiceUnavailable("x"), "IsServiceUnavailable"},
		{NewTooManyRequestsError("x"), "IsTooManyRequests"},
		{NewRequestEntityTooLargeError("x"), "IsRequestEntityTooLargeError"},
		{NewUnsupportedMediaType("a"), "IsUnsupportedMediaType"},
		{NewNotAcceptable("a"), "IsNotAcceptable"},
	}
	for _, tt := range tests {
		t.Run(tt.true, func(t *testing.T) {
			for _, err := range []error{tt.err, fmt.Errorf("default/x: %w", tt.err), fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", tt.err))} {
				for name, p := range preds {
					assert.Equal(t, name == tt.true, p(err), "%s(%v)", name, err)
				}
			}
		})
	}
	for name, p := range preds {
		assert.False(t, p(nil), name)
		assert.False(t, p(errors.New("plain")), name)
	}
	assert.Equal(t, metav1.StatusReasonUnknown, ReasonForError(errors.New("plain")))
}

func TestPredicatesFallBackToCode(t *testing.T) {
	// A server that sends only a code (reason unknown) still matches.
	bare := FromObject(&metav1.Status{Status: metav1.StatusFailure, Code: 404, Message: "the server could not find the requested resource"})
	assert.True(t, IsNotFound(bare))
	assert.False(t, IsAlreadyExists(bare))
	// A known reason wins over the code.
	odd := FromObject(&metav1.Status{Status: metav1.StatusFailure, Code: 404, Reason: metav1.StatusReasonForbidden})
	assert.False(t, IsNotFound(odd))
	assert.True(t, IsForbidden(odd))
	assert.Equal(t, NewNotFound(podsGR, "x").Error(), FromObject(&NewNotFound(podsGR, "x").ErrStatus).Error())
	assert.Nil(t, FromObject(nil))

	// A Status decoded from a response body becomes an error again.
	body, err := json.Marshal(NewConflict(podsGR, "web", errors.New(OptimisticLockErrorMsg)).Status())
	require.NoError(t, err)
	var s metav1.Status
	require.NoError(t, json.Unmarshal(body, &s))
	back := FromObject(&s)
	assert.True(t, IsConflict(back))
	assert.Equal(t, `Operation cannot be fulfilled on pods "web": `+OptimisticLockErrorMsg, back.Error())
}

func TestSuggestsClientDelay(t *testing.T) {
	d, ok := SuggestsClientDelay(NewServerTimeout(podsGR, "get", 2))
	assert.True(t, ok)
	assert.Equal(t, 2, d)
	d, ok = SuggestsClientDelay(fmt.Errorf("w: %w", NewTooManyRequests("slow", 5)))
	assert.True(t, ok)
	assert.Equal(t, 5, d)
	_, ok = SuggestsClientDelay(NewNotFound(podsGR, "x"))
	assert.False(t, ok)
	_, ok = SuggestsClientDelay(errors.New("plain"))
	assert.False(t, ok)
}
