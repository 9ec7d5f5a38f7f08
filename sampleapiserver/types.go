package sampleapiserver

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Group and Version are what the server serves.
const (
	Group   = "wardle.example.com"
	Version = "v1alpha1"
)

// Flunder is the sample kind: a reference to another flunder or fischer.
type Flunder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired state.
	Spec FlunderSpec `json:"spec,omitempty"`
	// Status is empty: the sample has no controller.
	Status FlunderStatus `json:"status,omitempty"`
}

// FlunderSpec names what the flunder refers to.
type FlunderSpec struct {
	// Reference is the name of a Flunder or Fischer.
	Reference string `json:"reference,omitempty"`
	// ReferenceType is "Flunder" or "Fischer".
	ReferenceType string `json:"referenceType,omitempty"`
}

// FlunderStatus is empty.
type FlunderStatus struct{}

// DeepCopyObject implements api.Object.
func (f *Flunder) DeepCopyObject() runtime.Object {
	out := *f
	f.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}
