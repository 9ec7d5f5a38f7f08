package api

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The values of Status.Status.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// Status is the body of every error response, and of some successful
// deletes (metav1.Status).
type Status = metav1.Status

// StatusDetails names the object an error is about.
type StatusDetails = metav1.StatusDetails

// StatusCause is one problem, usually in one field.
type StatusCause = metav1.StatusCause

// CauseType is the machine-readable kind of a StatusCause.
type CauseType = metav1.CauseType

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
type StatusReason = metav1.StatusReason

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
