package api

// The values of Status.Status.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// Status is the body of every error response, and of some successful
// deletes (metav1.Status).
type Status struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Status is Success or Failure.
	Status string `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// Message is for humans; kubectl prints it after "Error from server".
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// Reason is a machine-readable word; clients branch on it.
	Reason StatusReason `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason,casttype=StatusReason"`
	// Details say which object and which fields.
	Details *StatusDetails `json:"details,omitempty" protobuf:"bytes,5,opt,name=details"`
	// Code is the HTTP status code.
	Code int32 `json:"code,omitempty" protobuf:"varint,6,opt,name=code"`
}

// StatusDetails names the object an error is about.
type StatusDetails struct {
	// Name of the object, or of the operation for timeouts.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Group of the resource.
	Group string `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	// Kind holds the resource (plural) for most errors and the kind for
	// Invalid, as in Kubernetes.
	Kind string `json:"kind,omitempty" protobuf:"bytes,3,opt,name=kind"`
	// UID of the object, when known.
	UID string `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	// Causes list every field problem of an Invalid.
	Causes []StatusCause `json:"causes,omitempty" protobuf:"bytes,4,rep,name=causes"`
	// RetryAfterSeconds suggests when to retry.
	RetryAfterSeconds int32 `json:"retryAfterSeconds,omitempty" protobuf:"varint,5,opt,name=retryAfterSeconds"`
}

// StatusCause is one problem, usually in one field.
type StatusCause struct {
	// Type is the field error type, such as FieldValueRequired; it is
	// called "reason" on the wire.
	Type CauseType `json:"reason,omitempty" protobuf:"bytes,1,opt,name=reason,casttype=CauseType"`
	// Message is the error body without the field.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// Field is the path of the field, such as spec.containers[0].image.
	Field string `json:"field,omitempty" protobuf:"bytes,3,opt,name=field"`
}

// CauseType is the machine-readable kind of a StatusCause.
type CauseType string

// The cause types; the field ones equal the api/field error types.
const (
	CauseTypeFieldValueNotFound       CauseType = "FieldValueNotFound"
	CauseTypeFieldValueRequired       CauseType = "FieldValueRequired"
	CauseTypeFieldValueDuplicate      CauseType = "FieldValueDuplicate"
	CauseTypeFieldValueInvalid        CauseType = "FieldValueInvalid"
	CauseTypeFieldValueNotSupported   CauseType = "FieldValueNotSupported"
	CauseTypeForbidden                CauseType = "FieldValueForbidden"
	CauseTypeTooLong                  CauseType = "FieldValueTooLong"
	CauseTypeTooMany                  CauseType = "FieldValueTooMany"
	CauseTypeInternal                 CauseType = "InternalError"
	CauseTypeTypeInvalid              CauseType = "FieldValueTypeInvalid"
	CauseTypeUnexpectedServerResponse CauseType = "UnexpectedServerResponse"
	CauseTypeFieldManagerConflict     CauseType = "FieldManagerConflict"
	CauseTypeResourceVersionTooLarge  CauseType = "ResourceVersionTooLarge"
)

// StatusReason is the machine-readable reason of a failure.
type StatusReason string

// The reasons, with the HTTP code each goes with.
const (
	// StatusReasonUnknown is used when nothing better is known (500).
	StatusReasonUnknown StatusReason = ""
	// StatusReasonUnauthorized: no valid credentials (401).
	StatusReasonUnauthorized StatusReason = "Unauthorized"
	// StatusReasonForbidden: the user may not do this (403).
	StatusReasonForbidden StatusReason = "Forbidden"
	// StatusReasonNotFound: the object does not exist (404).
	StatusReasonNotFound StatusReason = "NotFound"
	// StatusReasonAlreadyExists: the name is taken (409).
	StatusReasonAlreadyExists StatusReason = "AlreadyExists"
	// StatusReasonConflict: the object changed meanwhile (409).
	StatusReasonConflict StatusReason = "Conflict"
	// StatusReasonGone: the item is no longer available (410).
	StatusReasonGone StatusReason = "Gone"
	// StatusReasonInvalid: validation failed; details hold the causes (422).
	StatusReasonInvalid StatusReason = "Invalid"
	// StatusReasonServerTimeout: the server could not finish in time (500).
	StatusReasonServerTimeout StatusReason = "ServerTimeout"
	// StatusReasonTimeout: the request ran out of time (504).
	StatusReasonTimeout StatusReason = "Timeout"
	// StatusReasonTooManyRequests: rate limited (429).
	StatusReasonTooManyRequests StatusReason = "TooManyRequests"
	// StatusReasonBadRequest: the request is malformed (400).
	StatusReasonBadRequest StatusReason = "BadRequest"
	// StatusReasonMethodNotAllowed: the verb is not supported (405).
	StatusReasonMethodNotAllowed StatusReason = "MethodNotAllowed"
	// StatusReasonNotAcceptable: no acceptable response type (406).
	StatusReasonNotAcceptable StatusReason = "NotAcceptable"
	// StatusReasonRequestEntityTooLarge: the body is too large (413).
	StatusReasonRequestEntityTooLarge StatusReason = "RequestEntityTooLarge"
	// StatusReasonUnsupportedMediaType: the body's type is unknown (415).
	StatusReasonUnsupportedMediaType StatusReason = "UnsupportedMediaType"
	// StatusReasonInternalError: a server bug (500).
	StatusReasonInternalError StatusReason = "InternalError"
	// StatusReasonExpired: the resourceVersion is too old to watch or
	// continue from (410).
	StatusReasonExpired StatusReason = "Expired"
	// StatusReasonServiceUnavailable: the server cannot serve now (503).
	StatusReasonServiceUnavailable StatusReason = "ServiceUnavailable"
)
