package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A webhook's or converter's answer that is not a Status is worded as
// client-go words it: by its code, quoting a text body only for 5xx.
func TestUnstructuredResponseMessage(t *testing.T) {
	for _, tc := range []struct {
		code        int
		contentType string
		body, want  string
	}{
		{404, "text/plain; charset=utf-8", "404 page not found\n", "the server could not find the requested resource"},
		{500, "text/plain", " boom\n", `an error on the server ("boom") has prevented the request from succeeding`},
		{500, "", "boom", `an error on the server ("boom") has prevented the request from succeeding`},
		{502, "application/json", `{"x":1}`, `an error on the server ("unknown") has prevented the request from succeeding`},
		{503, "text/plain", "down", "the server is currently unable to handle the request"},
		{403, "text/plain", "go away", "go away"},
		{400, "text/plain", "bad", "the server rejected our request for an unknown reason"},
		{418, "text/plain", "teapot", "the server responded with the status code 418 but did not return more information"},
		{500, "text/plain", strings.Repeat("x", 3000), `an error on the server ("` + strings.Repeat("x", 2048) + `") has prevented the request from succeeding`},
	} {
		resp := &http.Response{StatusCode: tc.code, Header: http.Header{}}
		if tc.contentType != "" {
			resp.Header.Set("Content-Type", tc.contentType)
		}
		assert.Equal(t, tc.want, UnstructuredResponseMessage(resp, []byte(tc.body)), "%d %q", tc.code, tc.body)
	}
}
