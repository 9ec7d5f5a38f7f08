package programs

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet/shell"
)

// agnhost webhook (test/images/agnhost/webhook in kubernetes): the
// admission webhook the AdmissionWebhook conformance specs deploy. It
// serves HTTPS on --port (443) with the certificate and key of
// --tls-cert-file and --tls-private-key-file (a mounted Secret), read when
// it starts, and answers AdmissionReviews (admission.k8s.io/v1 and
// v1beta1) on the paths the specs register: /always-deny,
// /always-allow-delay-5s, /add-label, /pods, /pods/attach,
// /mutating-pods, /mutating-pods-sidecar (--sidecar-image), /configmaps,
// /mutating-configmaps, /custom-resource, /mutating-custom-resource, /crd,
// and /readyz ("ok"). It is served for real, over the connection the pod
// network brings (the API server's webhook calls reach it through the
// Service), on the real clock: a webhook's 5-second delay is one, for
// the API server's timeout.

// webhookPatches are the JSON patches the webhook answers with, as its
// source writes them.
const (
	addFirstLabelPatch      = `[{ "op": "add", "path": "/metadata/labels", "value": {"added-label": "yes"}}]`
	addAdditionalLabelPatch = `[{ "op": "add", "path": "/metadata/labels/added-label", "value": "yes" }]`
	updateLabelPatch        = `[{ "op": "replace", "path": "/metadata/labels/added-label", "value": "yes" }]`
	mutationStage1Patch     = `[{ "op": "add", "path": "/data/mutation-stage-1", "value": "yes" }]`
	mutationStage2Patch     = `[{ "op": "add", "path": "/data/mutation-stage-2", "value": "yes" }]`
	podsInitContainerPatch  = `[{"op":"add","path":"/spec/initContainers","value":[{"image":"webhook-added-image","name":"webhook-added-init-container","resources":{}}]}]`
	podsSidecarPatch        = `[{"op":"add", "path":"/spec/containers/-","value":{"image":"%v","name":"webhook-added-sidecar","resources":{}}}]`
)

// webhookDelay is how long /always-allow-delay-5s waits before it answers.
const webhookDelay = 5 * time.Second

// agnhostWebhook runs agnhost webhook with the flags in args.
func agnhostWebhook(ctx context.Context, r Run, args []string) int {
	p := r.Process
	flags, err := agnhostFlags(args, map[string]string{"tls-cert-file": "", "tls-private-key-file": "", "port": "443", "sidecar-image": ""}, nil)
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
		// klog.Fatal in configTLS: the process ends with 255.
		fmt.Fprintf(p.Stderr, "F%s       1 config.go:36] %v\n", p.Clock.Now().UTC().Format("0102 15:04:05.000000"), err)
		return 255
	}
	r.Host.Listen(port, webhookServer{cert: cert, sidecarImage: flags["sidecar-image"]})
	return serveUntilKilled(ctx, p)
}

// loadKeyPair reads a certificate and its key from the container's files,
// as tls.LoadX509KeyPair reads them from disk.
func loadKeyPair(fs shell.FS, certFile, keyFile string) (tls.Certificate, error) {
	if fs == nil {
		return tls.Certificate{}, fmt.Errorf("no filesystem")
	}
	certPEM, err := fs.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := fs.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// webhookServer is agnhost webhook's HTTPS server.
type webhookServer struct {
	cert         tls.Certificate
	sidecarImage string
}

// Serve answers the connection over TLS.
func (s webhookServer) Serve(c *Conn) { serveHTTPS(c, s.cert, s.answer) }

// serveHTTPS speaks TLS with cert, then HTTP/1.1, over c: one request
// after the other, each answered by answer (ok false: never answered).
func serveHTTPS(c *Conn, cert tls.Certificate, answer func(req *http.Request, body []byte) (response, bool)) {
	tc := tls.Server(c.Conn, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
	defer tc.Close()
	br := bufio.NewReader(tc)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return
		}
		resp, ok := answer(req, body)
		if !ok {
			// The handler never answers (it waits forever, or panics
			// on a review it has no response for): the connection
			// stays silent until the caller gives up.
			_, _ = io.Copy(io.Discard, br)
			return
		}
		if writeResponse(tc, req, "", c.Now(), resp, req.Close) != nil || req.Close {
			return
		}
	}
}

// answer is the webhook's response to one request; ok false when it
// sends none.
func (s webhookServer) answer(req *http.Request, body []byte) (response, bool) {
	if req.URL.Path == "/readyz" {
		return response{code: http.StatusOK, body: []byte("ok")}, true
	}
	admit, found := s.admitters()[req.URL.Path]
	if !found {
		return response{code: http.StatusNotFound, body: []byte("404 page not found\n")}, true
	}
	if req.Header.Get("Content-Type") != "application/json" {
		return response{code: http.StatusOK}, true // logged and left unanswered
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		msg := fmt.Sprintf("Request could not be decoded: %v", err)
		return response{code: http.StatusBadRequest, body: []byte(msg + "\n")}, true
	}
	switch review.APIVersion {
	case "admission.k8s.io/v1", "admission.k8s.io/v1beta1":
	default:
		msg := fmt.Sprintf("Unsupported group version kind: %s, Kind=%s", review.APIVersion, review.Kind)
		return response{code: http.StatusBadRequest, body: []byte(msg + "\n")}, true
	}
	out := admit(review.Request)
	if out == nil {
		return response{}, false
	}
	out.UID = review.Request.UID
	data, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: out})
	if err != nil {
		return response{code: http.StatusInternalServerError}, true
	}
	return response{code: http.StatusOK, header: http.Header{"Content-Type": {"application/json"}}, body: data}, true
}

// admitFunc answers a review's request; nil: no answer at all.
type admitFunc func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse

// admitters are the webhook's handlers by path.
func (s webhookServer) admitters() map[string]admitFunc {
	return map[string]admitFunc{
		"/always-allow-delay-5s": func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			time.Sleep(webhookDelay)
			return &admissionv1.AdmissionResponse{Allowed: true, Result: &metav1.Status{Message: "this webhook allows all requests"}}
		},
		"/always-deny": func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return &admissionv1.AdmissionResponse{Result: &metav1.Status{Message: "this webhook denies all requests"}}
		},
		"/add-label":     addLabel,
		"/pods":          admitPods,
		"/pods/attach":   denySpecificAttachment,
		"/mutating-pods": func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { return mutatePods(r, "") },
		"/mutating-pods-sidecar": func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return mutatePods(r, s.sidecarImage)
		},
		"/configmaps":          func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { return admitData(r, "configmap") },
		"/mutating-configmaps": func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { return mutateData(r, true) },
		"/custom-resource": func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return admitData(r, "custom resource")
		},
		"/mutating-custom-resource": func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { return mutateData(r, false) },
		"/crd":                      admitCRD,
	}
}

var (
	podsResource       = metav1.GroupVersionResource{Version: "v1", Resource: "pods"}
	configMapsResource = metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// reviewError is the webhook's answer to a request it cannot read: not
// allowed, with the error as the message.
func reviewError(err error) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Result: &metav1.Status{Message: err.Error()}}
}

// jsonPatch allows the request with patch, if there is one.
func jsonPatch(patch string) *admissionv1.AdmissionResponse {
	out := &admissionv1.AdmissionResponse{Allowed: true}
	if patch != "" {
		pt := admissionv1.PatchTypeJSONPatch
		out.Patch, out.PatchType = []byte(patch), &pt
	}
	return out
}

// addLabel gives the object the label added-label=yes.
func addLabel(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	var obj struct {
		metav1.ObjectMeta `json:"metadata,omitempty"`
	}
	if err := json.Unmarshal(r.Object.Raw, &obj); err != nil {
		return reviewError(err)
	}
	v, has := obj.Labels["added-label"]
	switch {
	case len(obj.Labels) == 0:
		return jsonPatch(addFirstLabelPatch)
	case !has:
		return jsonPatch(addAdditionalLabelPatch)
	case v != "yes":
		return jsonPatch(updateLabelPatch)
	}
	return jsonPatch("")
}

// admitPods refuses a pod labelled webhook-e2e-test=webhook-disallow or
// with a container whose name has webhook-disallow, and never answers for
// one labelled wait-forever.
func admitPods(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if r.Resource != podsResource {
		return reviewError(fmt.Errorf("expect resource to be %s", podsResource))
	}
	var pod corev1.Pod
	if err := json.Unmarshal(r.Object.Raw, &pod); err != nil {
		return reviewError(err)
	}
	out := &admissionv1.AdmissionResponse{Allowed: true}
	var msg string
	switch pod.Labels["webhook-e2e-test"] {
	case "webhook-disallow":
		out.Allowed, msg = false, msg+"the pod contains unwanted label; "
	case "wait-forever":
		return nil
	}
	for _, c := range pod.Spec.Containers {
		if strings.Contains(c.Name, "webhook-disallow") {
			out.Allowed, msg = false, msg+"the pod contains unwanted container name; "
		}
	}
	if !out.Allowed {
		out.Result = &metav1.Status{Message: strings.TrimSpace(msg)}
	}
	return out
}

// mutatePods adds an init container to the pod webhook-to-be-mutated
// (sidecar empty), or a sidecar container of that image to every pod.
func mutatePods(r *admissionv1.AdmissionRequest, sidecar string) *admissionv1.AdmissionResponse {
	if r.Resource != podsResource {
		return nil
	}
	var pod corev1.Pod
	if err := json.Unmarshal(r.Object.Raw, &pod); err != nil {
		return reviewError(err)
	}
	has := func(cs []corev1.Container, name string) bool {
		for _, c := range cs {
			if c.Name == name {
				return true
			}
		}
		return false
	}
	if sidecar == "" {
		if pod.Name == "webhook-to-be-mutated" && !has(pod.Spec.InitContainers, "webhook-added-init-container") {
			return jsonPatch(podsInitContainerPatch)
		}
		return jsonPatch("")
	}
	if !has(pod.Spec.Containers, "webhook-added-sidecar") {
		return jsonPatch(fmt.Sprintf(podsSidecarPatch, sidecar))
	}
	return jsonPatch("")
}

// denySpecificAttachment refuses `kubectl attach -i` to container1 of the
// pod to-be-attached-pod.
func denySpecificAttachment(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if r.Name != "to-be-attached-pod" {
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	if r.Resource != podsResource {
		return reviewError(fmt.Errorf("expect resource to be %s, got %s", podsResource, r.Resource))
	}
	if r.SubResource != "attach" {
		return reviewError(fmt.Errorf("expect subresource to be attach, got %s", r.SubResource))
	}
	var opts corev1.PodAttachOptions
	if err := json.Unmarshal(r.Object.Raw, &opts); err != nil {
		return reviewError(err)
	}
	if !opts.Stdin || opts.Container != "container1" {
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	return &admissionv1.AdmissionResponse{Result: &metav1.Status{Message: "attaching to pod 'to-be-attached-pod' is not allowed"}}
}

// dataObject is what the webhook reads of a ConfigMap or custom resource.
type dataObject struct {
	Data map[string]string `json:"data"`
}

// admitData refuses to create or update a ConfigMap (what "configmap")
// or custom resource whose data has webhook-e2e-test=webhook-disallow, and
// to delete one with webhook-e2e-test=webhook-nondeletable.
func admitData(r *admissionv1.AdmissionRequest, what string) *admissionv1.AdmissionResponse {
	if what == "configmap" && r.Resource != configMapsResource {
		return nil
	}
	raw := r.Object.Raw
	if r.Operation == admissionv1.Delete {
		raw = r.OldObject.Raw
	}
	var obj dataObject
	if err := json.Unmarshal(raw, &obj); err != nil {
		return reviewError(err)
	}
	out := &admissionv1.AdmissionResponse{Allowed: true}
	switch v := obj.Data["webhook-e2e-test"]; {
	case v == "webhook-disallow" && (r.Operation == admissionv1.Create || r.Operation == admissionv1.Update):
		reason := "the custom resource contains unwanted data"
		if what == "configmap" {
			reason = "the configmap contains unwanted key and value"
		}
		out.Allowed, out.Result = false, &metav1.Status{Reason: metav1.StatusReason(reason)}
	case v == "webhook-nondeletable" && r.Operation == admissionv1.Delete:
		out.Allowed, out.Result = false, &metav1.Status{Reason: metav1.StatusReason(
			fmt.Sprintf("the %s cannot be deleted because it contains unwanted key and value", what))}
	}
	return out
}

// mutateData adds mutation-stage-1 to a ConfigMap (configMap) or custom
// resource whose data has mutation-start=yes, and mutation-stage-2 to one
// that has mutation-stage-1.
func mutateData(r *admissionv1.AdmissionRequest, configMap bool) *admissionv1.AdmissionResponse {
	if configMap && r.Resource != configMapsResource {
		return nil
	}
	var obj dataObject
	if err := json.Unmarshal(r.Object.Raw, &obj); err != nil {
		return reviewError(err)
	}
	var patch string
	if obj.Data["mutation-start"] == "yes" {
		patch = mutationStage1Patch
	}
	if obj.Data["mutation-stage-1"] == "yes" {
		patch = mutationStage2Patch
	}
	return jsonPatch(patch)
}

// admitCRD refuses a CustomResourceDefinition labelled
// webhook-e2e-test=webhook-disallow.
func admitCRD(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if r.Resource.Group != "apiextensions.k8s.io" || r.Resource.Resource != "customresourcedefinitions" ||
		r.Resource.Version != "v1" && r.Resource.Version != "v1beta1" {
		return reviewError(fmt.Errorf("expect resource to be one of [apiextensions.k8s.io/v1beta1, Resource=customresourcedefinitions "+
			"apiextensions.k8s.io/v1, Resource=customresourcedefinitions] but got %v", r.Resource))
	}
	var obj struct {
		metav1.ObjectMeta `json:"metadata,omitempty"`
	}
	if err := json.Unmarshal(r.Object.Raw, &obj); err != nil {
		return reviewError(err)
	}
	if obj.Labels["webhook-e2e-test"] == "webhook-disallow" {
		return &admissionv1.AdmissionResponse{Result: &metav1.Status{Message: "the crd contains unwanted label"}}
	}
	return &admissionv1.AdmissionResponse{Allowed: true}
}
