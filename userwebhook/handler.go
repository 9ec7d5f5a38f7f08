package userwebhook

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultGroups are what /mutate gives a User without groups.
var defaultGroups = []string{"users"}

// reserved reports whether a User may not have this name, and why.
func reserved(name string) (string, bool) {
	switch {
	case name == "root" || name == "admin":
		return fmt.Sprintf("the user name %q is reserved", name), true
	case strings.HasPrefix(name, "system-"):
		return fmt.Sprintf("user names starting with %q are reserved for the system", "system-"), true
	}
	return "", false
}

// Handler serves /mutate, /validate, /convert (the two-version User of
// examples/webhook/users-crd-two-versions.yaml) and /healthz.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/mutate", serveReview(mutate))
	mux.HandleFunc("/validate", serveReview(validate))
	mux.HandleFunc("/convert", serveConvert)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	return mux
}

// maxBody bounds a review, as the API server bounds what it sends.
const maxBody = 3 * 1024 * 1024

// serveReview decodes an AdmissionReview, lets admit answer its request,
// and writes the review back with the request's uid. A request that is
// not a review is answered 400, which the API server reports as a failed
// call (and the webhook's failurePolicy decides).
func serveReview(admit func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "only POST is served", http.StatusMethodNotAllowed)
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			http.Error(w, fmt.Sprintf("content type %q is not application/json", ct), http.StatusUnsupportedMediaType)
			return
		}
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&review); err != nil {
			http.Error(w, "could not decode the AdmissionReview: "+err.Error(), http.StatusBadRequest)
			return
		}
		if review.APIVersion != "admission.k8s.io/v1" || review.Kind != "AdmissionReview" || review.Request == nil {
			http.Error(w, "expected an admission.k8s.io/v1 AdmissionReview with a request", http.StatusBadRequest)
			return
		}
		resp := admit(review.Request)
		resp.UID = review.Request.UID
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: resp})
	}
}

// user is the part of a User the webhook reads.
type user struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec *struct {
		Groups []string `json:"groups"`
	} `json:"spec"`
}

func decodeUser(req *admissionv1.AdmissionRequest) (*user, *admissionv1.AdmissionResponse) {
	var u user
	if err := json.Unmarshal(req.Object.Raw, &u); err != nil {
		return nil, &admissionv1.AdmissionResponse{Allowed: false,
			Result: &metav1.Status{Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: "could not decode the User: " + err.Error()}}
	}
	return &u, nil
}

// mutate defaults spec.groups with a JSON patch (RFC 6902): the API server
// applies the patch, the webhook never sends back a whole object.
func mutate(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if req.Operation != "CREATE" && req.Operation != "UPDATE" {
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	u, bad := decodeUser(req)
	if bad != nil {
		return bad
	}
	var ops []map[string]any
	switch {
	case u.Spec == nil:
		ops = append(ops, map[string]any{"op": "add", "path": "/spec", "value": map[string]any{"groups": defaultGroups}})
	case len(u.Spec.Groups) == 0:
		ops = append(ops, map[string]any{"op": "add", "path": "/spec/groups", "value": defaultGroups})
	default:
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	patch, _ := json.Marshal(ops)
	pt := admissionv1.PatchTypeJSONPatch
	return &admissionv1.AdmissionResponse{Allowed: true, PatchType: &pt, Patch: patch}
}

// validate refuses reserved names with 403 Forbidden.
func validate(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if req.Operation != "CREATE" && req.Operation != "UPDATE" {
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	u, bad := decodeUser(req)
	if bad != nil {
		return bad
	}
	name := u.Metadata.Name
	if name == "" {
		name = req.Name
	}
	if msg, ok := reserved(name); ok {
		return &admissionv1.AdmissionResponse{Allowed: false,
			Result: &metav1.Status{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: msg}}
	}
	return &admissionv1.AdmissionResponse{Allowed: true}
}
