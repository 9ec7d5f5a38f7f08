package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/patch"
)

// maxResponseBytes bounds what a webhook may answer.
const maxResponseBytes = 3 * 1024 * 1024

// callMutating calls h and applies its patch to a.Object. It reports
// whether the object changed.
func (d *dispatcher) callMutating(ctx context.Context, h *hook, inv *invocation, a *admission.Attributes) (bool, error) {
	req, err := d.request(h, inv, a)
	if err != nil {
		return false, d.failed(ctx, h, a, err)
	}
	resp, err := d.call(ctx, h, req)
	if err != nil {
		return false, d.failed(ctx, h, a, err)
	}
	d.keep(ctx, h, resp)
	if !resp.Allowed {
		err := denied(h.name, resp.Result)
		admission.RecordStep(ctx, admission.Step{Phase: admission.PhaseMutating, Plugin: plugin(h), Attributes: a, Denied: err.Error()})
		return false, err
	}
	if len(resp.Patch) == 0 || a.Object == nil {
		return false, nil
	}
	original := req.Object.Raw
	patched, err := patch.JSONPatch(original, resp.Patch)
	if err != nil {
		// A patch that does not apply is the server's failure, whatever
		// the failurePolicy, as in Kubernetes.
		se := api.NewInternalError(err)
		admission.RecordStep(ctx, admission.Step{Phase: admission.PhaseMutating, Plugin: plugin(h), Attributes: a, Denied: se.Error()})
		return false, se
	}
	// Back to the request's version before it replaces the object.
	back, err := d.convert(patched, inv.resource, a.Resource)
	if err == nil {
		back, err = withKind(back, a.Kind)
	}
	if err == nil {
		err = replaceObject(a.Object, back)
	}
	if err != nil {
		se := api.NewInternalError(err)
		admission.RecordStep(ctx, admission.Step{Phase: admission.PhaseMutating, Plugin: plugin(h), Attributes: a, Denied: se.Error()})
		return false, se
	}
	if bytes.Equal(compact(original), compact(patched)) {
		return false, nil
	}
	admission.RecordStep(ctx, admission.Step{Phase: admission.PhaseMutating, Plugin: plugin(h), Attributes: a, Patch: string(compact(resp.Patch))})
	return true, nil
}

// callValidating calls h; only a refusal or a failure matters.
func (d *dispatcher) callValidating(ctx context.Context, h *hook, inv *invocation, a *admission.Attributes) error {
	req, err := d.request(h, inv, a)
	if err != nil {
		return d.failed(ctx, h, a, err)
	}
	resp, err := d.call(ctx, h, req)
	if err != nil {
		return d.failed(ctx, h, a, err)
	}
	d.keep(ctx, h, resp)
	if !resp.Allowed {
		err := denied(h.name, resp.Result)
		admission.RecordStep(ctx, admission.Step{Phase: admission.PhaseValidating, Plugin: plugin(h), Attributes: a, Denied: err.Error()})
		return err
	}
	return nil
}

// keep passes on the response's warnings and audit annotations.
func (d *dispatcher) keep(ctx context.Context, h *hook, resp *admissionv1.AdmissionResponse) {
	for _, w := range resp.Warnings {
		admission.AddWarning(ctx, w)
	}
	for k, v := range resp.AuditAnnotations {
		admission.AddAuditAnnotation(ctx, h.name+"/"+k, v)
	}
}

// request builds the AdmissionRequest h is sent.
func (d *dispatcher) request(h *hook, inv *invocation, a *admission.Attributes) (*admissionv1.AdmissionRequest, error) {
	if !containsVersion(h.reviewVersions, "v1") {
		return nil, &callingError{name: h.name, reason: fmt.Errorf("webhook does not accept known AdmissionReview versions %v", h.reviewVersions)}
	}
	var uid types.UID
	if d.cfg.UID != nil {
		uid = d.cfg.UID()
	}
	req := &admissionv1.AdmissionRequest{
		UID:         uid,
		Kind:        metav1.GroupVersionKind{Group: inv.kind.Group, Version: inv.kind.Version, Kind: inv.kind.Kind},
		Resource:    metav1.GroupVersionResource{Group: inv.resource.Group, Version: inv.resource.Version, Resource: inv.resource.Resource},
		RequestKind: &metav1.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind},
		RequestResource: &metav1.GroupVersionResource{Group: a.Resource.Group, Version: a.Resource.Version,
			Resource: a.Resource.Resource},
		SubResource:        a.Subresource,
		RequestSubResource: a.Subresource,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          admissionv1.Operation(a.Operation),
		DryRun:             &a.DryRun,
	}
	if a.User != nil {
		req.UserInfo = authenticationv1.UserInfo{Username: a.User.Name, UID: a.User.UID, Groups: a.User.Groups}
	}
	var err error
	if req.Object.Raw, err = d.encodeObject(a.Object, a.Resource, inv); err != nil {
		return nil, err
	}
	if req.OldObject.Raw, err = d.encodeObject(a.OldObject, a.Resource, inv); err != nil {
		return nil, err
	}
	req.Options.Raw = encodeOptions(a)
	return req, nil
}

func containsVersion(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// encodeObject writes obj, of the request's resource version from, as the
// webhook's version (matchPolicy Equivalent may have picked another one
// than the request's): converted where the versions' shapes differ.
func (d *dispatcher) encodeObject(obj api.Object, from schema.GroupVersionResource, inv *invocation) (json.RawMessage, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return nil, nil
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	if data, err = d.convert(data, from, inv.resource); err != nil {
		return nil, api.NewInternalError(err)
	}
	out, err := withKind(data, inv.kind)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	return out, nil
}

// convert turns data of version from into version to.
func (d *dispatcher) convert(data []byte, from, to schema.GroupVersionResource) ([]byte, error) {
	if from == to || d.cfg.Convert == nil {
		return data, nil
	}
	return d.cfg.Convert(data, from, to)
}

// withKind sets apiVersion and kind of an object's JSON.
func withKind(data []byte, kind schema.GroupVersionKind) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	m["apiVersion"] = schema.GroupVersion{Group: kind.Group, Version: kind.Version}.String()
	m["kind"] = kind.Kind
	return json.Marshal(m)
}

// encodeOptions writes the write's options as Kubernetes sends them.
func encodeOptions(a *admission.Attributes) json.RawMessage {
	kind := map[admission.Operation]string{admission.Create: "CreateOptions", admission.Update: "UpdateOptions",
		admission.Delete: "DeleteOptions"}[a.Operation]
	if kind == "" {
		return nil
	}
	m := map[string]any{}
	if a.Options != nil {
		if data, err := json.Marshal(a.Options); err == nil {
			_ = json.Unmarshal(data, &m)
		}
	}
	if a.DryRun {
		m["dryRun"] = []string{"All"}
	}
	m["kind"], m["apiVersion"] = kind, "meta.k8s.io/v1"
	out, _ := json.Marshal(m)
	return out
}

// call posts the review and checks the answer. Every failure is a
// callingError, which failurePolicy judges.
func (d *dispatcher) call(ctx context.Context, h *hook, req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, error) {
	fail := func(format string, args ...any) error {
		return &callingError{name: h.name, reason: fmt.Errorf(format, args...)}
	}
	url, err := URL(h.clientConfig, h.timeout)
	if err != nil {
		return nil, fail("%v", err)
	}
	rt, err := d.clients.Transport(h.clientConfig.CABundle)
	if err != nil {
		return nil, fail("%v", err)
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: req})
	if err != nil {
		return nil, fail("%v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fail("%v", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, */*")
	resp, err := (&http.Client{Transport: rt}).Do(hr)
	if err != nil {
		return nil, fail("failed to call webhook: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, fail("failed to call webhook: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// client-go's words for an answer that is not a Status.
		return nil, fail("failed to call webhook: %s", api.UnstructuredResponseMessage(resp, data))
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &review); err != nil {
		return nil, fail("failed to call webhook: %v", err)
	}
	if review.APIVersion != "admission.k8s.io/v1" || review.Kind != "AdmissionReview" {
		return nil, fail("received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s, Kind=%s", review.APIVersion, review.Kind)
	}
	r := review.Response
	switch {
	case r == nil:
		return nil, fail("received invalid webhook response: webhook response was absent")
	case r.UID != req.UID:
		return nil, fail("received invalid webhook response: expected response.uid=%q, got %q", req.UID, r.UID)
	case len(r.Patch) > 0 && r.PatchType == nil:
		return nil, fail("received invalid webhook response: webhook returned response.patch but not response.patchType")
	case len(r.Patch) > 0 && *r.PatchType != admissionv1.PatchTypeJSONPatch:
		return nil, fail("received invalid webhook response: webhook returned invalid response.patchType of %q", *r.PatchType)
	case r.PatchType != nil && *r.PatchType != admissionv1.PatchTypeJSONPatch:
		return nil, fail("received invalid webhook response: webhook returned invalid response.patchType of %q", *r.PatchType)
	}
	return r, nil
}

// replaceObject decodes data over obj in place: the registry holds obj.
// The server-owned metadata is kept as it was (BeforeCreate would reset
// it after a real webhook, which runs before it).
func replaceObject(obj api.Object, data []byte) error {
	meta := api.Meta(obj)
	uid, created, rv, gen := meta.UID, meta.CreationTimestamp, meta.ResourceVersion, meta.Generation
	ns := meta.Namespace
	fresh := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(api.Object)
	if err := json.Unmarshal(data, fresh); err != nil {
		return err
	}
	if api.Meta(fresh).Namespace != ns {
		return fmt.Errorf("the namespace of the provided object does not match the namespace sent on the request")
	}
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(fresh).Elem())
	meta = api.Meta(obj)
	meta.UID, meta.CreationTimestamp, meta.ResourceVersion, meta.Generation = uid, created, rv, gen
	return nil
}

func compact(data []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		return data
	}
	return b.Bytes()
}
