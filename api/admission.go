package api

import (
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// This file holds admission.k8s.io/v1 AdmissionReview
// (k8s.io/api/admission/v1): what the API server sends an admission webhook
// and what the webhook answers. It is never stored.

// AdmissionGroupName is the group of AdmissionReview.
const AdmissionGroupName = "admission.k8s.io"

// AdmissionReview carries a request to a webhook and its response back.
type AdmissionReview = admissionv1.AdmissionReview

// MetaGroupVersionKind is metav1.GroupVersionKind: a kind with its JSON
// names (GroupVersionKind, kubesim's internal form, has none).
type MetaGroupVersionKind = metav1.GroupVersionKind

// MetaGroupVersionResource is metav1.GroupVersionResource with JSON names.
type MetaGroupVersionResource = metav1.GroupVersionResource

// AdmissionRequest describes the write being admitted.
type AdmissionRequest = admissionv1.AdmissionRequest

// PatchType is the form of an admission response's patch.
type PatchType = admissionv1.PatchType

// PatchTypeJSONPatch is the only form: RFC 6902.
const PatchTypeJSONPatch PatchType = "JSONPatch"

// AdmissionResponse is the webhook's answer.
type AdmissionResponse = admissionv1.AdmissionResponse
