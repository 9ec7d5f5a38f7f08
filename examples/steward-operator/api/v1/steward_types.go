package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StewardSpec is what a user asks of a Steward: a workload (image and
// replicas) and the configuration it is handed (a ConfigMap).
//
// The markers below become the CRD's OpenAPI schema when controller-gen
// runs (`make manifests`); the API server enforces them before any
// webhook sees the object. Defaults are left to the defaulting webhook,
// to show both.
type StewardSpec struct {
	// Image is the container image the Steward runs. The defaulting
	// webhook fills it in when empty; the validating webhook refuses the
	// mutable ":latest" tag.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Image string `json:"image,omitempty"`

	// Replicas is the number of pods of the Steward's Deployment.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Replicas *int32 `json:"replicas,omitempty"`

	// Config is copied into the Steward's ConfigMap, which its pods read
	// as environment variables.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	Config map[string]string `json:"config,omitempty"`

	// Owner names the team responsible for the Steward; it cannot change
	// once set (a CEL transition rule, checked by the API server).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable"
	Owner string `json:"owner"`
}

// StewardStatus is what the operator observed, written through the
// status subresource.
type StewardStatus struct {
	// ReadyReplicas is the ready replica count of the owned Deployment.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// Deployment and ConfigMap name the objects the Steward owns.
	// +optional
	Deployment string `json:"deployment,omitempty"`
	// +optional
	ConfigMap string `json:"configMap,omitempty"`

	// ObservedGeneration is the metadata.generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: "Available" is True once every replica is ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Steward is the Schema for the stewards API: an owner of a Deployment and
// a ConfigMap, the example operator of the seed's chapter on kubebuilder.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=stw
// +kubebuilder:printcolumn:name="Owner",type=string,JSONPath=`.spec.owner`
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Steward struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StewardSpec   `json:"spec,omitempty"`
	Status StewardStatus `json:"status,omitempty"`
}

// StewardList contains a list of Steward.
//
// +kubebuilder:object:root=true
type StewardList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Steward `json:"items"`
}
