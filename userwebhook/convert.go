package userwebhook

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The User's versions: v1beta1 names the number spec.userID, v1 spec.id.
const (
	group   = "auth.ilinux.io"
	v1beta1 = group + "/v1beta1"
	v1      = group + "/v1"
)

// serveConvert answers a ConversionReview (apiextensions.k8s.io/v1): every
// object in the desired version, in the request's order, with the uid
// echoed. A conversion that cannot be done is answered with result status
// Failure, which the API server passes to the client in a 500.
func serveConvert(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "only POST is served", http.StatusMethodNotAllowed)
		return
	}
	var review apiextensionsv1.ConversionReview
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&review); err != nil {
		http.Error(w, "could not decode the ConversionReview: "+err.Error(), http.StatusBadRequest)
		return
	}
	if review.APIVersion != "apiextensions.k8s.io/v1" || review.Kind != "ConversionReview" || review.Request == nil {
		http.Error(w, "expected an apiextensions.k8s.io/v1 ConversionReview with a request", http.StatusBadRequest)
		return
	}
	req := review.Request
	resp := &apiextensionsv1.ConversionResponse{UID: req.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	for _, o := range req.Objects {
		out, err := convertUser(o.Raw, req.DesiredAPIVersion)
		if err != nil {
			resp.ConvertedObjects = nil
			resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
			break
		}
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: out})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(apiextensionsv1.ConversionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"}, Response: resp})
}

// convertUser moves one User to version desired: the field renamed
// between the versions moves, everything else (metadata included) stays.
func convertUser(raw []byte, desired string) ([]byte, error) {
	var u map[string]any
	if err := json.Unmarshal(raw, &u); err != nil {
		return nil, fmt.Errorf("could not decode the object: %v", err)
	}
	from, _ := u["apiVersion"].(string)
	if from != v1beta1 && from != v1 {
		return nil, fmt.Errorf("unsupported version %q", from)
	}
	if desired != v1beta1 && desired != v1 {
		return nil, fmt.Errorf("unsupported version %q", desired)
	}
	if spec, ok := u["spec"].(map[string]any); ok && from != desired {
		oldName, newName := "userID", "id"
		if desired == v1beta1 {
			oldName, newName = "id", "userID"
		}
		if v, ok := spec[oldName]; ok {
			spec[newName] = v
			delete(spec, oldName)
		}
	}
	u["apiVersion"] = desired
	return json.Marshal(u)
}
