package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/kubesim/kubesim/api/field"
)

// This file simulates k8s.io/apimachinery/pkg/api/errors: errors that
// carry the Status the API server sends, with Kubernetes' wording, codes
// and reasons, and predicates that work on any error wrapping one.

// OptimisticLockErrorMsg is the detail of the Conflict an update with a
// stale resourceVersion gets.
const OptimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// APIStatus is implemented by errors that carry a Status.
type APIStatus interface {
	Status() Status
}

// StatusError is an error with a Status: what the API server returns and
// what the client turns a failure response back into.
type StatusError struct {
	// ErrStatus is the body sent over the wire.
	ErrStatus Status
}

// Error returns the status message.
func (e *StatusError) Error() string { return e.ErrStatus.Message }

// Status returns the Status, with apiVersion v1 and kind Status set.
func (e *StatusError) Status() Status {
	s := e.ErrStatus
	s.Kind, s.APIVersion = "Status", "v1"
	return s
}

// DebugError returns the message for logs.
func (e *StatusError) DebugError() (string, []any) {
	return "server response object: %#v", []any{e.ErrStatus}
}

func newStatusError(code int32, reason StatusReason, message string, details *StatusDetails) *StatusError {
	return &StatusError{ErrStatus: Status{
		TypeMeta: TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   StatusFailure,
		Code:     code,
		Reason:   reason,
		Message:  message,
		Details:  details,
	}}
}

// NewPathNotFound: 404 for a URL that names no resource, worded and shaped
// as Kubernetes answers it (empty details).
func NewPathNotFound() *StatusError {
	return newStatusError(http.StatusNotFound, StatusReasonNotFound,
		"the server could not find the requested resource", &StatusDetails{})
}

// NewMethodNotAllowed: 405 for a method a path does not serve.
func NewMethodNotAllowed() *StatusError {
	return newStatusError(http.StatusMethodNotAllowed, StatusReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource", &StatusDetails{})
}

// FromObject turns a Status received from the server back into an error.
// A nil status gives nil.
func FromObject(status *Status) error {
	if status == nil {
		return nil
	}
	return &StatusError{ErrStatus: *status}
}

// NewNotFound: 404, `pods "x" not found`.
func NewNotFound(qualifiedResource GroupResource, name string) *StatusError {
	return newStatusError(http.StatusNotFound, StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", qualifiedResource.String(), name),
		&StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: name})
}

// NewAlreadyExists: 409, `pods "x" already exists`.
func NewAlreadyExists(qualifiedResource GroupResource, name string) *StatusError {
	return newStatusError(http.StatusConflict, StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", qualifiedResource.String(), name),
		&StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: name})
}

// NewGenerateNameConflict: 409 AlreadyExists for a generated name that
// collided, with a one-second retry hint.
func NewGenerateNameConflict(qualifiedResource GroupResource, name string, retryAfterSeconds int) *StatusError {
	return newStatusError(http.StatusConflict, StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists, the server was not able to generate a unique name for the object", qualifiedResource.String(), name),
		&StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: name, RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewUnauthorized: 401; an empty reason reads "not authorized".
func NewUnauthorized(reason string) *StatusError {
	message := reason
	if message == "" {
		message = "not authorized"
	}
	return newStatusError(http.StatusUnauthorized, StatusReasonUnauthorized, message, nil)
}

// NewForbidden: 403, `pods "x" is forbidden: <err>`.
func NewForbidden(qualifiedResource GroupResource, name string, err error) *StatusError {
	var message string
	switch {
	case qualifiedResource.Empty():
		message = fmt.Sprintf("forbidden: %v", err)
	case name == "":
		message = fmt.Sprintf("%s is forbidden: %v", qualifiedResource.String(), err)
	default:
		message = fmt.Sprintf("%s %q is forbidden: %v", qualifiedResource.String(), name, err)
	}
	return newStatusError(http.StatusForbidden, StatusReasonForbidden, message,
		&StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: name})
}

// NewConflict: 409, `Operation cannot be fulfilled on pods "web": <err>`.
func NewConflict(qualifiedResource GroupResource, name string, err error) *StatusError {
	return newStatusError(http.StatusConflict, StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %v", qualifiedResource.String(), name, err),
		&StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: name})
}

// NewOptimisticLockConflict is the Conflict of an update that carried a
// stale resourceVersion.
func NewOptimisticLockConflict(qualifiedResource GroupResource, name string) *StatusError {
	return NewConflict(qualifiedResource, name, errors.New(OptimisticLockErrorMsg))
}

// NewGone: 410 Gone.
func NewGone(message string) *StatusError {
	return newStatusError(http.StatusGone, StatusReasonGone, message, nil)
}

// NewResourceExpired: 410 Expired, for a watch or list continued from a
// compacted resourceVersion.
func NewResourceExpired(message string) *StatusError {
	return newStatusError(http.StatusGone, StatusReasonExpired, message, nil)
}

// NewInvalid: 422, `Pod "x" is invalid: spec.containers: Required value`
// (several errors in brackets), one cause per field error.
func NewInvalid(qualifiedKind GroupKind, name string, errs field.ErrorList) *StatusError {
	causes := make([]StatusCause, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, StatusCause{Type: CauseType(e.Type), Message: e.ErrorBody(), Field: e.Field})
	}
	message := fmt.Sprintf("%s %q is invalid", qualifiedKind.String(), name)
	if len(errs) > 0 {
		message += ": " + errs.Error()
	}
	return newStatusError(http.StatusUnprocessableEntity, StatusReasonInvalid, message,
		&StatusDetails{Group: qualifiedKind.Group, Kind: qualifiedKind.Kind, Name: name, Causes: causes})
}

// NewBadRequest: 400, the reason is the message.
func NewBadRequest(reason string) *StatusError {
	return newStatusError(http.StatusBadRequest, StatusReasonBadRequest, reason, nil)
}

// NewTooManyRequests: 429 with a retry hint.
func NewTooManyRequests(message string, retryAfterSeconds int) *StatusError {
	return newStatusError(http.StatusTooManyRequests, StatusReasonTooManyRequests, message,
		&StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewTooManyRequestsError: 429, "Too many requests: <message>".
func NewTooManyRequestsError(message string) *StatusError {
	return newStatusError(http.StatusTooManyRequests, StatusReasonTooManyRequests,
		fmt.Sprintf("Too many requests: %s", message), nil)
}

// NewServiceUnavailable: 503, the reason is the message.
func NewServiceUnavailable(reason string) *StatusError {
	return newStatusError(http.StatusServiceUnavailable, StatusReasonServiceUnavailable, reason, nil)
}

// NewMethodNotSupported: 405, `create is not supported on resources of
// kind "pods"`.
func NewMethodNotSupported(qualifiedResource GroupResource, action string) *StatusError {
	return newStatusError(http.StatusMethodNotAllowed, StatusReasonMethodNotAllowed,
		fmt.Sprintf("%s is not supported on resources of kind %q", action, qualifiedResource.String()),
		&StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource})
}

// NewServerTimeout: 500 ServerTimeout, `The get operation against pods
// could not be completed at this time, please try again.`
func NewServerTimeout(qualifiedResource GroupResource, operation string, retryAfterSeconds int) *StatusError {
	return newStatusError(http.StatusInternalServerError, StatusReasonServerTimeout,
		fmt.Sprintf("The %s operation against %s could not be completed at this time, please try again.", operation, qualifiedResource.String()),
		&StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: operation, RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewInternalError: 500, "Internal error occurred: <err>".
func NewInternalError(err error) *StatusError {
	return newStatusError(http.StatusInternalServerError, StatusReasonInternalError,
		fmt.Sprintf("Internal error occurred: %v", err),
		&StatusDetails{Causes: []StatusCause{{Message: err.Error()}}})
}

// NewTimeoutError: 504, "Timeout: <message>".
func NewTimeoutError(message string, retryAfterSeconds int) *StatusError {
	return newStatusError(http.StatusGatewayTimeout, StatusReasonTimeout,
		fmt.Sprintf("Timeout: %s", message),
		&StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewRequestEntityTooLargeError: 413, "Request entity too large: <message>".
func NewRequestEntityTooLargeError(message string) *StatusError {
	return newStatusError(http.StatusRequestEntityTooLarge, StatusReasonRequestEntityTooLarge,
		fmt.Sprintf("Request entity too large: %s", message), nil)
}

// NewUnsupportedMediaType: 415, for a body in a format the server does
// not read. Kubernetes (apiserver's negotiation package) names the
// accepted types, not the rejected one: "the body of the request was in an
// unknown format - accepted media types include: application/json, ...".
func NewUnsupportedMediaType(accepted ...string) *StatusError {
	return newStatusError(http.StatusUnsupportedMediaType, StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %v", strings.Join(accepted, ", ")), nil)
}

// NewNotAcceptable: 406, when no Accept type can be served:
// "only the following media types are accepted: application/json, ...".
func NewNotAcceptable(accepted ...string) *StatusError {
	return newStatusError(http.StatusNotAcceptable, StatusReasonNotAcceptable,
		fmt.Sprintf("only the following media types are accepted: %v", strings.Join(accepted, ", ")), nil)
}

// knownReason reports whether r is one of the reasons above; predicates
// fall back to the HTTP code only for unknown reasons.
func knownReason(r StatusReason) bool {
	switch r {
	case StatusReasonUnauthorized, StatusReasonForbidden, StatusReasonNotFound,
		StatusReasonAlreadyExists, StatusReasonConflict, StatusReasonGone,
		StatusReasonInvalid, StatusReasonServerTimeout, StatusReasonTimeout,
		StatusReasonTooManyRequests, StatusReasonBadRequest, StatusReasonMethodNotAllowed,
		StatusReasonNotAcceptable, StatusReasonRequestEntityTooLarge,
		StatusReasonUnsupportedMediaType, StatusReasonInternalError, StatusReasonExpired,
		StatusReasonServiceUnavailable:
		return true
	}
	return false
}

// reasonAndCode finds the Status inside err, through wrapping.
func reasonAndCode(err error) (StatusReason, int32) {
	var s APIStatus
	if errors.As(err, &s) {
		st := s.Status()
		return st.Reason, st.Code
	}
	return StatusReasonUnknown, 0
}

// ReasonForError returns the reason of the Status inside err, or
// StatusReasonUnknown.
func ReasonForError(err error) StatusReason {
	r, _ := reasonAndCode(err)
	return r
}

// is reports whether err has reason, or an unknown reason and code, as
// Kubernetes' predicates do for servers that send only a code.
func is(err error, reason StatusReason, code int32) bool {
	r, c := reasonAndCode(err)
	if r == reason {
		return true
	}
	return code != 0 && !knownReason(r) && c == code
}

// IsNotFound reports a NotFound (or a bare 404).
func IsNotFound(err error) bool { return is(err, StatusReasonNotFound, http.StatusNotFound) }

// IsAlreadyExists reports an AlreadyExists.
func IsAlreadyExists(err error) bool { return is(err, StatusReasonAlreadyExists, 0) }

// IsConflict reports a Conflict (or a bare 409).
func IsConflict(err error) bool { return is(err, StatusReasonConflict, http.StatusConflict) }

// IsInvalid reports an Invalid (or a bare 422).
func IsInvalid(err error) bool { return is(err, StatusReasonInvalid, http.StatusUnprocessableEntity) }

// IsGone reports a Gone (or a bare 410).
func IsGone(err error) bool { return is(err, StatusReasonGone, http.StatusGone) }

// IsResourceExpired reports an Expired: the client must relist.
func IsResourceExpired(err error) bool { return is(err, StatusReasonExpired, 0) }

// IsBadRequest reports a BadRequest (or a bare 400).
func IsBadRequest(err error) bool { return is(err, StatusReasonBadRequest, http.StatusBadRequest) }

// IsUnauthorized reports an Unauthorized (or a bare 401).
func IsUnauthorized(err error) bool {
	return is(err, StatusReasonUnauthorized, http.StatusUnauthorized)
}

// IsForbidden reports a Forbidden (or a bare 403).
func IsForbidden(err error) bool { return is(err, StatusReasonForbidden, http.StatusForbidden) }

// IsMethodNotSupported reports a MethodNotAllowed (or a bare 405).
func IsMethodNotSupported(err error) bool {
	return is(err, StatusReasonMethodNotAllowed, http.StatusMethodNotAllowed)
}

// IsNotAcceptable reports a NotAcceptable (or a bare 406).
func IsNotAcceptable(err error) bool {
	return is(err, StatusReasonNotAcceptable, http.StatusNotAcceptable)
}

// IsUnsupportedMediaType reports an UnsupportedMediaType (or a bare 415).
func IsUnsupportedMediaType(err error) bool {
	return is(err, StatusReasonUnsupportedMediaType, http.StatusUnsupportedMediaType)
}

// IsServerTimeout reports a ServerTimeout.
func IsServerTimeout(err error) bool { return is(err, StatusReasonServerTimeout, 0) }

// IsTimeout reports a Timeout (or a bare 504).
func IsTimeout(err error) bool { return is(err, StatusReasonTimeout, http.StatusGatewayTimeout) }

// IsTooManyRequests reports a TooManyRequests (or a bare 429).
func IsTooManyRequests(err error) bool {
	return is(err, StatusReasonTooManyRequests, http.StatusTooManyRequests)
}

// IsRequestEntityTooLargeError reports a RequestEntityTooLarge (or a bare
// 413).
func IsRequestEntityTooLargeError(err error) bool {
	return is(err, StatusReasonRequestEntityTooLarge, http.StatusRequestEntityTooLarge)
}

// IsInternalError reports an InternalError (or a bare 500).
func IsInternalError(err error) bool {
	return is(err, StatusReasonInternalError, http.StatusInternalServerError)
}

// IsServiceUnavailable reports a ServiceUnavailable (or a bare 503).
func IsServiceUnavailable(err error) bool {
	return is(err, StatusReasonServiceUnavailable, http.StatusServiceUnavailable)
}

// SuggestsClientDelay returns the retry hint of err, if it has one.
func SuggestsClientDelay(err error) (int, bool) {
	var s APIStatus
	if errors.As(err, &s) {
		st := s.Status()
		if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
			switch st.Reason {
			case StatusReasonServerTimeout, StatusReasonTimeout, StatusReasonTooManyRequests:
				return int(st.Details.RetryAfterSeconds), true
			}
			if st.Code >= 500 {
				return int(st.Details.RetryAfterSeconds), true
			}
		}
	}
	return 0, false
}
