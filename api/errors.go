package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api/field"
)

// OptimisticLockErrorMsg is the detail of the Conflict an update with a
// stale resourceVersion gets.
const OptimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// APIStatus is implemented by errors that carry a Status.
type APIStatus interface {
	Status() metav1.Status
}

// StatusError is an error with a Status: what the API server returns and
// what the client turns a failure response back into.
type StatusError struct {
	// ErrStatus is the body sent over the wire.
	ErrStatus metav1.Status
}

// Error returns the status message.
func (e *StatusError) Error() string { return e.ErrStatus.Message }

// Status returns the Status, with apiVersion v1 and kind Status set.
func (e *StatusError) Status() metav1.Status {
	s := e.ErrStatus
	s.Kind, s.APIVersion = "Status", "v1"
	return s
}

// DebugError returns the message for logs.
func (e *StatusError) DebugError() (string, []any) {
	return "server response object: %#v", []any{e.ErrStatus}
}

func newStatusError(code int32, reason metav1.StatusReason, message string, details *metav1.StatusDetails) *StatusError {
	return &StatusError{ErrStatus: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     code,
		Reason:   reason,
		Message:  message,
		Details:  details,
	}}
}

// NewPathNotFound: 404 for a URL that names no resource, worded and shaped
// as Kubernetes answers it (empty details).
func NewPathNotFound() *StatusError {
	return newStatusError(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource", &metav1.StatusDetails{})
}

// NewMethodNotAllowed: 405 for a method a path does not serve.
func NewMethodNotAllowed() *StatusError {
	return newStatusError(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource", &metav1.StatusDetails{})
}

// FromObject turns a Status received from the server back into an error.
// A nil status gives nil.
func FromObject(status *metav1.Status) error {
	if status == nil {
		return nil
	}
	return &StatusError{ErrStatus: *status}
}

// NewNotFound: 404, `pods "x" not found`.
func NewNotFound(qualifiedResource schema.GroupResource, name string) *StatusError {
	return newStatusError(http.StatusNotFound, metav1.StatusReasonNotFound, fmt.Sprintf("%s %q not found", qualifiedResource.String(), name),
		&metav1.StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: name})
}

// NewAlreadyExists: 409, `pods "x" already exists`.
func NewAlreadyExists(qualifiedResource schema.GroupResource, name string) *StatusError {
	return newStatusError(http.StatusConflict, metav1.StatusReasonAlreadyExists, fmt.Sprintf("%s %q already exists", qualifiedResource.String(), name),
		&metav1.StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: name})
}

// NewGenerateNameConflict: 409 AlreadyExists for a generated name that
// collided, with a one-second retry hint.
func NewGenerateNameConflict(qualifiedResource schema.GroupResource, name string, retryAfterSeconds int) *StatusError {
	return newStatusError(http.StatusConflict, metav1.StatusReasonAlreadyExists, fmt.Sprintf("%s %q already exists, the server was not able to generate a unique name for the object", qualifiedResource.String(), name),
		&metav1.StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: name, RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewUnauthorized: 401; an empty reason reads "not authorized".
func NewUnauthorized(reason string) *StatusError {
	message := reason
	if message == "" {
		message = "not authorized"
	}
	return newStatusError(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, message, nil)
}

// NewForbidden: 403, `pods "x" is forbidden: <err>`.
func NewForbidden(qualifiedResource schema.GroupResource, name string, err error) *StatusError {
	var message string
	switch {
	case qualifiedResource.Empty():
		message = fmt.Sprintf("forbidden: %v", err)
	case name == "":
		message = fmt.Sprintf("%s is forbidden: %v", qualifiedResource.String(), err)
	default:
		message = fmt.Sprintf("%s %q is forbidden: %v", qualifiedResource.String(), name, err)
	}
	return newStatusError(http.StatusForbidden, metav1.StatusReasonForbidden, message,
		&metav1.StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: name})
}

// NewConflict: 409, `Operation cannot be fulfilled on pods "web": <err>`.
func NewConflict(qualifiedResource schema.GroupResource, name string, err error) *StatusError {
	return newStatusError(http.StatusConflict, metav1.StatusReasonConflict, fmt.Sprintf("Operation cannot be fulfilled on %s %q: %v", qualifiedResource.String(), name, err),
		&metav1.StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: name})
}

// NewOptimisticLockConflict is the Conflict of an update that carried a
// stale resourceVersion.
func NewOptimisticLockConflict(qualifiedResource schema.GroupResource, name string) *StatusError {
	return NewConflict(qualifiedResource, name, errors.New(OptimisticLockErrorMsg))
}

// NewGone: 410 Gone.
func NewGone(message string) *StatusError {
	return newStatusError(http.StatusGone, metav1.StatusReasonGone, message, nil)
}

// NewResourceExpired: 410 Expired, for a watch or list continued from a
// compacted resourceVersion.
func NewResourceExpired(message string) *StatusError {
	return newStatusError(http.StatusGone, metav1.StatusReasonExpired, message, nil)
}

// NewInvalid: 422, `Pod "x" is invalid: spec.containers: Required value`
// (several errors in brackets), one cause per field error.
func NewInvalid(qualifiedKind schema.GroupKind, name string, errs field.ErrorList) *StatusError {
	causes := make([]metav1.StatusCause, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseType(e.Type), Message: e.ErrorBody(), Field: e.Field})
	}
	message := fmt.Sprintf("%s %q is invalid", qualifiedKind.String(), name)
	if len(errs) > 0 {
		message += ": " + errs.Error()
	}
	return newStatusError(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, message,
		&metav1.StatusDetails{Group: qualifiedKind.Group, Kind: qualifiedKind.Kind, Name: name, Causes: causes})
}

// NewBadRequest: 400, the reason is the message.
func NewBadRequest(reason string) *StatusError {
	return newStatusError(http.StatusBadRequest, metav1.StatusReasonBadRequest, reason, nil)
}

// NewTooManyRequests: 429 with a retry hint.
func NewTooManyRequests(message string, retryAfterSeconds int) *StatusError {
	return newStatusError(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, message,
		&metav1.StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewTooManyRequestsError: 429, "Too many requests: <message>".
func NewTooManyRequestsError(message string) *StatusError {
	return newStatusError(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, fmt.Sprintf("Too many requests: %s", message), nil)
}

// NewServiceUnavailable: 503, the reason is the message.
func NewServiceUnavailable(reason string) *StatusError {
	return newStatusError(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, reason, nil)
}

// NewMethodNotSupported: 405, `create is not supported on resources of
// kind "pods"`.
func NewMethodNotSupported(qualifiedResource schema.GroupResource, action string) *StatusError {
	return newStatusError(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, fmt.Sprintf("%s is not supported on resources of kind %q", action, qualifiedResource.String()),
		&metav1.StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource})
}

// NewServerTimeout: 500 ServerTimeout, `The get operation against pods
// could not be completed at this time, please try again.`
func NewServerTimeout(qualifiedResource schema.GroupResource, operation string, retryAfterSeconds int) *StatusError {
	return newStatusError(http.StatusInternalServerError, metav1.StatusReasonServerTimeout, fmt.Sprintf("The %s operation against %s could not be completed at this time, please try again.", operation, qualifiedResource.String()),
		&metav1.StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource, Name: operation, RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewInternalError: 500, "Internal error occurred: <err>".
func NewInternalError(err error) *StatusError {
	return newStatusError(http.StatusInternalServerError, metav1.StatusReasonInternalError, fmt.Sprintf("Internal error occurred: %v", err),
		&metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: err.Error()}}})
}

// NewTimeoutError: 504, "Timeout: <message>".
func NewTimeoutError(message string, retryAfterSeconds int) *StatusError {
	return newStatusError(http.StatusGatewayTimeout, metav1.StatusReasonTimeout, fmt.Sprintf("Timeout: %s", message),
		&metav1.StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewRequestEntityTooLargeError: 413, "Request entity too large: <message>".
func NewRequestEntityTooLargeError(message string) *StatusError {
	return newStatusError(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge, fmt.Sprintf("Request entity too large: %s", message), nil)
}

// NewUnsupportedMediaType: 415, for a body in a format the server does
// not read. Kubernetes (apiserver's negotiation package) names the
// accepted types, not the rejected one: "the body of the request was in an
// unknown format - accepted media types include: application/json, ...".
func NewUnsupportedMediaType(accepted ...string) *StatusError {
	return newStatusError(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %v", strings.Join(accepted, ", ")), nil)
}

// NewNotAcceptable: 406, when no Accept type can be served:
// "only the following media types are accepted: application/json, ...".
func NewNotAcceptable(accepted ...string) *StatusError {
	return newStatusError(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable, fmt.Sprintf("only the following media types are accepted: %v", strings.Join(accepted, ", ")), nil)
}

// knownReason reports whether r is one of the reasons above; predicates
// fall back to the HTTP code only for unknown reasons.
func knownReason(r metav1.StatusReason) bool {
	switch r {
	case metav1.StatusReasonUnauthorized, metav1.StatusReasonForbidden, metav1.StatusReasonNotFound, metav1.StatusReasonAlreadyExists, metav1.StatusReasonConflict, metav1.StatusReasonGone, metav1.StatusReasonInvalid, metav1.StatusReasonServerTimeout, metav1.StatusReasonTimeout, metav1.StatusReasonTooManyRequests, metav1.StatusReasonBadRequest, metav1.StatusReasonMethodNotAllowed, metav1.StatusReasonNotAcceptable, metav1.StatusReasonRequestEntityTooLarge, metav1.StatusReasonUnsupportedMediaType, metav1.StatusReasonInternalError, metav1.

		// reasonAndCode finds the Status inside err, through wrapping.
		StatusReasonExpired, metav1.StatusReasonServiceUnavailable:
		return true
	}
	return false
}

func reasonAndCode(err error) (metav1.StatusReason, int32) {
	var s APIStatus
	if errors.As(err, &s) {
		st := s.Status()
		return st.Reason, st.Code
	}
	return metav1.StatusReasonUnknown, 0
}

// ReasonForError returns the reason of the Status inside err, or
// StatusReasonUnknown.
func ReasonForError(err error) metav1.StatusReason {
	r, _ := reasonAndCode(err)
	return r
}

// is reports whether err has reason, or an unknown reason and code, as
// Kubernetes' predicates do for servers that send only a code.
func is(err error, reason metav1.StatusReason, code int32) bool {
	r, c := reasonAndCode(err)
	if r == reason {
		return true
	}
	return code != 0 && !knownReason(r) && c == code
}

// IsNotFound reports a NotFound (or a bare 404).
func IsNotFound(err error) bool { return is(err, metav1.StatusReasonNotFound, http.StatusNotFound) }

// IsAlreadyExists reports an AlreadyExists.
func IsAlreadyExists(err error) bool { return is(err, metav1.StatusReasonAlreadyExists, 0) }

// IsConflict reports a Conflict (or a bare 409).
func IsConflict(err error) bool { return is(err, metav1.StatusReasonConflict, http.StatusConflict) }

// IsInvalid reports an Invalid (or a bare 422).
func IsInvalid(err error) bool {
	return is(err, metav1.StatusReasonInvalid, http.StatusUnprocessableEntity)
}

// IsGone reports a Gone (or a bare 410).
func IsGone(err error) bool { return is(err, metav1.StatusReasonGone, http.StatusGone) }

// IsResourceExpired reports an Expired: the client must relist.
func IsResourceExpired(err error) bool { return is(err, metav1.StatusReasonExpired, 0) }

// IsBadRequest reports a BadRequest (or a bare 400).
func IsBadRequest(err error) bool {
	return is(err, metav1.StatusReasonBadRequest, http.StatusBadRequest)
}

// IsUnauthorized reports an Unauthorized (or a bare 401).
func IsUnauthorized(err error) bool {
	return is(err, metav1.StatusReasonUnauthorized, http.StatusUnauthorized)
}

// IsForbidden reports a Forbidden (or a bare 403).
func IsForbidden(err error) bool { return is(err, metav1.StatusReasonForbidden, http.StatusForbidden) }

// IsMethodNotSupported reports a MethodNotAllowed (or a bare 405).
func IsMethodNotSupported(err error) bool {
	return is(err, metav1.StatusReasonMethodNotAllowed, http.StatusMethodNotAllowed)
}

// IsNotAcceptable reports a NotAcceptable (or a bare 406).
func IsNotAcceptable(err error) bool {
	return is(err, metav1.StatusReasonNotAcceptable, http.StatusNotAcceptable)
}

// IsUnsupportedMediaType reports an UnsupportedMediaType (or a bare 415).
func IsUnsupportedMediaType(err error) bool {
	return is(err, metav1.StatusReasonUnsupportedMediaType, http.StatusUnsupportedMediaType)
}

// IsServerTimeout reports a ServerTimeout.
func IsServerTimeout(err error) bool { return is(err, metav1.StatusReasonServerTimeout, 0) }

// IsTimeout reports a Timeout (or a bare 504).
func IsTimeout(err error) bool { return is(err, metav1.StatusReasonTimeout, http.StatusGatewayTimeout) }

// IsTooManyRequests reports a TooManyRequests (or a bare 429).
func IsTooManyRequests(err error) bool {
	return is(err, metav1.StatusReasonTooManyRequests, http.StatusTooManyRequests)
}

// IsRequestEntityTooLargeError reports a RequestEntityTooLarge (or a bare
// 413).
func IsRequestEntityTooLargeError(err error) bool {
	return is(err, metav1.StatusReasonRequestEntityTooLarge, http.StatusRequestEntityTooLarge)
}

// IsInternalError reports an InternalError (or a bare 500).
func IsInternalError(err error) bool {
	return is(err, metav1.StatusReasonInternalError, http.StatusInternalServerError)
}

// IsServiceUnavailable reports a ServiceUnavailable (or a bare 503).
func IsServiceUnavailable(err error) bool {
	return is(err, metav1.StatusReasonServiceUnavailable, http.StatusServiceUnavailable)
}

// SuggestsClientDelay returns the retry hint of err, if it has one.
func SuggestsClientDelay(err error) (int, bool) {
	var s APIStatus
	if errors.As(err, &s) {
		st := s.Status()
		if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
			switch st.Reason {
			case metav1.StatusReasonServerTimeout, metav1.StatusReasonTimeout, metav1.StatusReasonTooManyRequests:
				return int(st.Details.RetryAfterSeconds), true
			}
			if st.Code >= 500 {
				return int(st.Details.RetryAfterSeconds), true
			}
		}
	}
	return 0, false
}
