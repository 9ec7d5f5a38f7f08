package handlers

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

// statusError builds an API error with the given code, reason and message,
// for the few answers the api package has no constructor for.
func statusError(code int32, reason metav1.StatusReason, msg string) *api.StatusError {
	return &api.StatusError{ErrStatus: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: code, Reason: reason, Message: msg,
		Details: &metav1.StatusDetails{},
	}}
}

// notFound is the answer for a path that names no resource.
func notFound() error { return api.NewPathNotFound() }

// unprocessable is a 422 without field causes (a JSON patch that does
// not apply).
func unprocessable(msg string) error {
	return statusError(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, msg)
}

// applyConflict is a server-side apply conflict: 409, reason Conflict.
func applyConflict(msg string) *api.StatusError {
	return statusError(http.StatusConflict, metav1.StatusReasonConflict, msg)
}
