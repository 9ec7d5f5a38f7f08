package api

// This file holds admission.k8s.io/v1 AdmissionReview
// (k8s.io/api/admission/v1): what the API server sends an admission webhook
// and what the webhook answers. It is never stored.

// AdmissionGroupName is the group of AdmissionReview.
const AdmissionGroupName = "admission.k8s.io"

// AdmissionReview carries a request to a webhook and its response back.
type AdmissionReview struct {
	TypeMeta `json:",inline"`
	Request  *AdmissionRequest  `json:"request,omitempty" protobuf:"bytes,1,opt,name=request"`
	Response *AdmissionResponse `json:"response,omitempty" protobuf:"bytes,2,opt,name=response"`
}

// MetaGroupVersionKind is metav1.GroupVersionKind: a kind with its JSON
// names (GroupVersionKind, kubesim's internal form, has none).
type MetaGroupVersionKind struct {
	Group   string `json:"group" protobuf:"bytes,1,opt,name=group"`
	Version string `json:"version" protobuf:"bytes,2,opt,name=version"`
	Kind    string `json:"kind" protobuf:"bytes,3,opt,name=kind"`
}

// MetaGroupVersionResource is metav1.GroupVersionResource with JSON names.
type MetaGroupVersionResource struct {
	Group    string `json:"group" protobuf:"bytes,1,opt,name=group"`
	Version  string `json:"version" protobuf:"bytes,2,opt,name=version"`
	Resource string `json:"resource" protobuf:"bytes,3,opt,name=resource"`
}

// AdmissionRequest describes the write being admitted.
type AdmissionRequest struct {
	// UID identifies this call; the response must echo it.
	UID string `json:"uid" protobuf:"bytes,1,opt,name=uid"`
	// Kind and Resource are what the webhook registered for (after
	// matchPolicy Equivalent's conversion); RequestKind and
	// RequestResource what the client sent.
	Kind               MetaGroupVersionKind      `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	Resource           MetaGroupVersionResource  `json:"resource" protobuf:"bytes,3,opt,name=resource"`
	SubResource        string                    `json:"subResource,omitempty" protobuf:"bytes,4,opt,name=subResource"`
	RequestKind        *MetaGroupVersionKind     `json:"requestKind,omitempty" protobuf:"bytes,13,opt,name=requestKind"`
	RequestResource    *MetaGroupVersionResource `json:"requestResource,omitempty" protobuf:"bytes,14,opt,name=requestResource"`
	RequestSubResource string                    `json:"requestSubResource,omitempty" protobuf:"bytes,15,opt,name=requestSubResource"`
	Name               string                    `json:"name,omitempty" protobuf:"bytes,5,opt,name=name"`
	Namespace          string                    `json:"namespace,omitempty" protobuf:"bytes,6,opt,name=namespace"`
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation string   `json:"operation" protobuf:"bytes,7,opt,name=operation"`
	UserInfo  UserInfo `json:"userInfo" protobuf:"bytes,8,opt,name=userInfo"`
	// Object is the new object (none on delete), OldObject the stored one
	// (none on create).
	Object    RawExtension `json:"object,omitempty" protobuf:"bytes,9,opt,name=object"`
	OldObject RawExtension `json:"oldObject,omitempty" protobuf:"bytes,10,opt,name=oldObject"`
	DryRun    *bool        `json:"dryRun,omitempty" protobuf:"varint,11,opt,name=dryRun"`
	// Options are the CreateOptions, UpdateOptions or DeleteOptions.
	Options RawExtension `json:"options,omitempty" protobuf:"bytes,12,opt,name=options"`
}

// PatchType is the form of an admission response's patch.
type PatchType string

// PatchTypeJSONPatch is the only form: RFC 6902.
const PatchTypeJSONPatch PatchType = "JSONPatch"

// AdmissionResponse is the webhook's answer.
type AdmissionResponse struct {
	UID     string `json:"uid" protobuf:"bytes,1,opt,name=uid"`
	Allowed bool   `json:"allowed" protobuf:"varint,2,opt,name=allowed"`
	// Result explains a refusal (message, code, reason).
	Result *Status `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
	// Patch is a JSON patch (base64 in JSON, as every []byte), from a
	// mutating webhook only.
	Patch            []byte            `json:"patch,omitempty" protobuf:"bytes,4,opt,name=patch"`
	PatchType        *PatchType        `json:"patchType,omitempty" protobuf:"bytes,5,opt,name=patchType"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty" protobuf:"bytes,6,opt,name=auditAnnotations"`
	// Warnings reach the client as Warning headers.
	Warnings []string `json:"warnings,omitempty" protobuf:"bytes,7,rep,name=warnings"`
}
