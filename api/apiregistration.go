package api

// This file holds apiregistration.k8s.io/v1 APIService: the aggregator's
// routing table (k8s.io/kube-aggregator/pkg/apis/apiregistration/v1).

// APIService says which server serves one group-version: the API server
// itself ("Local", spec.service unset) or the Service of an extension API
// server. Its name is "<version>.<group>" ("v1.apps", "v1." for core).
type APIService struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Spec is the route.
	Spec APIServiceSpec `json:"spec,omitempty"`
	// Status says whether the backend answers.
	Status APIServiceStatus `json:"status,omitempty"`
}

// APIServiceSpec describes the route of one group-version.
type APIServiceSpec struct {
	// Service is the extension API server's Service; nil means the API
	// server serves the group-version itself.
	Service *APIServiceReference `json:"service,omitempty"`
	// Group is the API group ("" for the core group).
	Group string `json:"group,omitempty"`
	// Version is the API version ("v1alpha1").
	Version string `json:"version,omitempty"`
	// InsecureSkipTLSVerify turns off the check of the backend's serving
	// certificate.
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`
	// CABundle is the PEM bundle that signs the backend's serving
	// certificate (base64 in JSON, as every []byte).
	CABundle []byte `json:"caBundle,omitempty"`
	// GroupPriorityMinimum orders groups in discovery: higher first.
	GroupPriorityMinimum int32 `json:"groupPriorityMinimum"`
	// VersionPriority orders the versions of one group: higher first,
	// ties by Kubernetes version order.
	VersionPriority int32 `json:"versionPriority"`
}

// APIServiceReference points at a Service and one of its ports
// (apiregistration's ServiceReference; the name is taken by the webhooks').
type APIServiceReference struct {
	// Namespace of the Service.
	Namespace string `json:"namespace,omitempty"`
	// Name of the Service.
	Name string `json:"name,omitempty"`
	// Port is the Service port (443 by default).
	Port *int32 `json:"port,omitempty"`
}

// APIServiceConditionType names a condition of an APIService.
type APIServiceConditionType string

// Available says the backend answers discovery.
const Available APIServiceConditionType = "Available"

// APIServiceCondition is one condition of an APIService.
type APIServiceCondition struct {
	Type               APIServiceConditionType `json:"type"`
	Status             ConditionStatus         `json:"status"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}

// APIServiceStatus holds the conditions.
type APIServiceStatus struct {
	Conditions []APIServiceCondition `json:"conditions,omitempty"`
}

// APIServiceList is a list of APIServices.
type APIServiceList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the APIServices.
	Items []APIService `json:"items"`
}
