// Package responsewriters writes the API server's answers: JSON bodies and
// Status errors with their HTTP codes. Every handler of the server (REST,
// discovery, OpenAPI) answers through it, so a failure reads the same
// everywhere.
//
// It simulates k8s.io/apiserver/pkg/endpoints/handlers/responsewriters.
// Left out: YAML output, gzip, and the streaming of very large
// lists.
package responsewriters

import (
	"errors"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/jsoncodec"
)

// ErrorStatus turns any error into the Status a client receives: an API
// error keeps its reason and code, anything else is an InternalError.
func ErrorStatus(err error) metav1.Status {
	var se *api.StatusError
	if !errors.As(err, &se) {
		se = api.NewInternalError(err)
	}
	st := se.ErrStatus
	st.Kind, st.APIVersion = "Status", "v1"
	if st.Status == "" {
		st.Status = metav1.StatusFailure
	}
	return st
}

// WriteError writes err as a Status with its HTTP code.
func WriteError(w http.ResponseWriter, err error) {
	st := ErrorStatus(err)
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	WriteJSON(w, code, st)
}

// WriteJSON writes v as JSON with the given code.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	data, err := jsoncodec.Marshal(v)
	if err != nil {
		data, _ = jsoncodec.Marshal(ErrorStatus(api.NewInternalError(err)))
		code = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(data)
	_, _ = w.Write([]byte("\n"))
}

// WriteBytes writes an already encoded body (protobuf) with its content
// type and the given code.
func WriteBytes(w http.ResponseWriter, code int, contentType string, data []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(code)
	_, _ = w.Write(data)
}
