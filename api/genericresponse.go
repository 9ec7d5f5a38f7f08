package api

import (
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// maxUnstructuredResponseText is how much of a body that is not a Status
// client-go quotes in its error.
const maxUnstructuredResponseText = 2048

// UnstructuredResponseMessage is what client-go's REST client
// (apimachinery's NewGenericServerResponse) says about an answer with a
// failing code whose body is not a Status — a webhook's "404 page not
// found", a proxy's 502 — so that the API server, calling a webhook,
// words the failure as kube-apiserver does. The body is quoted only for
// 5xx codes (and 403, 406, 415, whose text the server chose), and only
// when it is text.
func UnstructuredResponseMessage(resp *http.Response, body []byte) string {
	serverMessage := "unknown"
	if isTextResponse(resp.Header.Get("Content-Type")) {
		if len(body) > maxUnstructuredResponseText {
			body = body[:maxUnstructuredResponseText]
		}
		serverMessage = strings.TrimSpace(string(body))
	}
	code := resp.StatusCode
	switch code {
	case http.StatusConflict:
		return "the server reported a conflict"
	case http.StatusNotFound:
		return "the server could not find the requested resource"
	case http.StatusBadRequest:
		return "the server rejected our request for an unknown reason"
	case http.StatusUnauthorized:
		return "the server has asked for the client to provide credentials"
	case http.StatusForbidden, http.StatusUnsupportedMediaType:
		return serverMessage
	case http.StatusNotAcceptable:
		if serverMessage == "" || serverMessage == "unknown" {
			return "the server was unable to respond with a content type that the client supports"
		}
		return serverMessage
	case http.StatusMethodNotAllowed:
		return "the server does not allow this method on the requested resource"
	case http.StatusUnprocessableEntity:
		return "the server rejected our request due to an error in our request"
	case http.StatusServiceUnavailable:
		return "the server is currently unable to handle the request"
	case http.StatusGatewayTimeout:
		return "the server was unable to return a response in the time allotted, but may still be processing the request"
	case http.StatusTooManyRequests:
		return "the server has received too many requests and has asked us to try again later"
	}
	if code >= 500 {
		return fmt.Sprintf("an error on the server (%q) has prevented the request from succeeding", serverMessage)
	}
	return fmt.Sprintf("the server responded with the status code %d but did not return more information", code)
}

// isTextResponse: no Content-Type, or a text/ one.
func isTextResponse(contentType string) bool {
	if contentType == "" {
		return true
	}
	media, _, err := mime.ParseMediaType(contentType)
	return err == nil && strings.HasPrefix(media, "text/")
}
