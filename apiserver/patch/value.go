package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/kubesim/kubesim/api/unstructured"
)

// Error is a patch that could not be applied, with the HTTP status code the
// Kubernetes API server answers it with: 400 Bad Request for a patch that
// does not decode, 413 for too many JSON patch operations, 422 for a JSON
// patch that does not apply, 500 for strategic merge failures Kubernetes does
// not classify. The API server turns it into a metav1.Status.
type Error struct {
	Code    int
	Message string
}

// Error returns the message exactly as the API server puts it in the Status.
func (e *Error) Error() string { return e.Message }

func badRequest(format string, args ...any) *Error {
	return &Error{Code: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func unprocessable(msg string) *Error {
	return &Error{Code: http.StatusUnprocessableEntity, Message: msg}
}

// decodeJSON decodes one JSON value the way kubesim holds unstructured data:
// integers as int64, other numbers as float64. Trailing data is an error.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("invalid character after top-level value")
	}
	if err := checkNumbers(v); err != nil {
		return nil, err
	}
	return unstructured.FixNumbers(v), nil
}

// checkNumbers rejects numbers no float64 holds (1e400), as encoding/json
// does when it decodes into any without UseNumber.
func checkNumbers(v any) error {
	switch t := v.(type) {
	case json.Number:
		if _, err := t.Int64(); err == nil {
			return nil
		}
		if _, err := t.Float64(); err != nil {
			return fmt.Errorf("json: cannot unmarshal number %s into Go value of type float64", t)
		}
	case map[string]any:
		for _, e := range t {
			if err := checkNumbers(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range t {
			if err := checkNumbers(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// deepCopyJSON copies an unstructured value; patches never share structure
// with their inputs so that a failed patch leaves the original untouched.
func deepCopyJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopyJSON(e)
		}
		return out
	default:
		return v
	}
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return deepCopyJSON(m).(map[string]any)
}
