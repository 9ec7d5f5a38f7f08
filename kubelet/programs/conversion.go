package programs

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// agnhost crd-conversion-webhook (test/images/agnhost/crd-conversion-webhook
// in kubernetes): the conversion webhook the CustomResourceConversionWebhook
// conformance specs deploy. Like agnhost webhook it serves HTTPS on --port
// (443) with the mounted certificate; /crdconvert converts the specs'
// custom resources between stable.example.com/v1, whose hostPort is
// "host:port", and v2, which has host and port apart; /readyz answers ok.

// agnhostConversionWebhook runs agnhost crd-conversion-webhook with the
// flags in args.
func agnhostConversionWebhook(ctx context.Context, r Run, args []string) int {
	p := r.Process
	flags, err := agnhostFlags(args, map[string]string{"tls-cert-file": "", "tls-private-key-file": "", "port": "443"}, nil)
	if err != nil {
		fmt.Fprintf(p.Stderr, "Error: %v\n", err)
		return 1
	}
	port, err := strconv.Atoi(flags["port"])
	if err != nil {
		fmt.Fprintf(p.Stderr, "Error: invalid argument %q for \"--port\" flag: %v\n", flags["port"], err)
		return 1
	}
	cert, err := loadKeyPair(p.FS, flags["tls-cert-file"], flags["tls-private-key-file"])
	if err != nil {
		fmt.Fprintf(p.Stderr, "F%s       1 config.go:43] %v\n", p.Clock.Now().UTC().Format("0102 15:04:05.000000"), err)
		return 255
	}
	r.Host.Listen(port, conversionServer{cert: cert})
	return serveUntilKilled(ctx, p)
}

// conversionServer is agnhost crd-conversion-webhook's HTTPS server.
type conversionServer struct{ cert tls.Certificate }

// Serve answers the connection over TLS.
func (s conversionServer) Serve(c *Conn) { serveHTTPS(c, s.cert, s.answer) }

// answer is the conversion webhook's response to one request.
func (conversionServer) answer(req *http.Request, body []byte) (response, bool) {
	switch req.URL.Path {
	case "/readyz":
		return response{code: http.StatusOK, body: []byte("ok")}, true
	case "/crdconvert":
	default:
		return response{code: http.StatusNotFound, body: []byte("404 page not found\n")}, true
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/json" {
		return response{code: http.StatusBadRequest, body: []byte(fmt.Sprintf("invalid Content-Type header `%s`\n", ct))}, true
	}
	var review apiextensionsv1.ConversionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		return response{code: http.StatusBadRequest, body: []byte(fmt.Sprintf("failed to deserialize body (%s) with error %v\n", body, err))}, true
	}
	if review.APIVersion != "apiextensions.k8s.io/v1" && review.APIVersion != "apiextensions.k8s.io/v1beta1" || review.Kind != "ConversionReview" {
		msg := fmt.Sprintf("Unsupported group version kind: %s, Kind=%s", review.APIVersion, review.Kind)
		return response{code: http.StatusBadRequest, body: []byte(msg + "\n")}, true
	}
	review.Response = convertObjects(review.Request)
	review.Response.UID = review.Request.UID
	review.Request = &apiextensionsv1.ConversionRequest{}
	data, err := json.Marshal(review)
	if err != nil {
		return response{code: http.StatusInternalServerError}, true
	}
	return response{code: http.StatusOK, header: http.Header{"Content-Type": {"application/json"}}, body: data}, true
}

// convertObjects converts every object of the request, or says why the
// first it cannot convert fails.
func convertObjects(req *apiextensionsv1.ConversionRequest) *apiextensionsv1.ConversionResponse {
	failure := func(format string, a ...any) *apiextensionsv1.ConversionResponse {
		return &apiextensionsv1.ConversionResponse{Result: metav1.Status{Status: metav1.StatusFailure, Message: fmt.Sprintf(format, a...)}}
	}
	var out []runtime.RawExtension
	for _, raw := range req.Objects {
		var obj map[string]any
		if err := json.Unmarshal(raw.Raw, &obj); err != nil {
			return failure("failed to unmarshall object (%v) with error: %v", string(raw.Raw), err)
		}
		from, _ := obj["apiVersion"].(string)
		if from == req.DesiredAPIVersion {
			return failure("conversion from a version to itself should not call the webhook: %s", req.DesiredAPIVersion)
		}
		switch {
		case from == "stable.example.com/v1" && req.DesiredAPIVersion == "stable.example.com/v2":
			if hp, ok := obj["hostPort"]; ok {
				delete(obj, "hostPort")
				s, _ := hp.(string)
				parts := strings.Split(s, ":")
				if len(parts) != 2 {
					return failure("invalid hostPort value `%v`", hp)
				}
				obj["host"], obj["port"] = parts[0], parts[1]
			}
		case from == "stable.example.com/v2" && req.DesiredAPIVersion == "stable.example.com/v1":
			host, hasHost := obj["host"]
			port, hasPort := obj["port"]
			if hasHost || hasPort {
				if !hasHost {
					host = ""
				}
				if !hasPort {
					port = ""
				}
				obj["hostPort"] = fmt.Sprintf("%s:%s", host, port)
				delete(obj, "host")
				delete(obj, "port")
			}
		case from == "stable.example.com/v1" || from == "stable.example.com/v2":
			return failure("unexpected conversion version %q", req.DesiredAPIVersion)
		default:
			return failure("unexpected conversion version %q", from)
		}
		obj["apiVersion"] = req.DesiredAPIVersion
		data, err := json.Marshal(obj)
		if err != nil {
			return failure("%v", err)
		}
		out = append(out, runtime.RawExtension{Raw: data})
	}
	return &apiextensionsv1.ConversionResponse{ConvertedObjects: out, Result: metav1.Status{Status: metav1.StatusSuccess}}
}
