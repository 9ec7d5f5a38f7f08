package api

// This file holds apiregistration.k8s.io/v1 APIService: the aggregator's
// routing table (k8s.io/kube-aggregator/pkg/apis/apiregistration/v1).

// APIService says which server serves one group-version: the API server
// itself ("Local", spec.service unset) or the Service of an extension API
// server. Its name is "<version>.<group>" ("v1.apps", "v1." for core).
type APIService struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the route.
	Spec APIServiceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status says whether the backend answers.
	Status APIServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// APIServiceSpec describes the route of one group-version.
type APIServiceSpec struct {
	// Service is the extension API server's Service; nil means the API
	// server serves the group-version itself.
	Service *APIServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// Group is the API group ("" for the core group).
	Group string `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	// Version is the API version ("v1alpha1").
	Version string `json:"version,omitempty" protobuf:"bytes,3,opt,name=version"`
	// InsecureSkipTLSVerify turns off the check of the backend's serving
	// certificate.
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty" protobuf:"varint,4,opt,name=insecureSkipTLSVerify"`
	// CABundle is the PEM bundle that signs the backend's serving
	// certificate (base64 in JSON, as every []byte).
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,5,opt,name=caBundle"`
	// GroupPriorityMinimum orders groups in discovery: higher first.
	GroupPriorityMinimum int32 `json:"groupPriorityMinimum" protobuf:"varint,7,opt,name=groupPriorityMinimum"`
	// VersionPriority orders the versions of one group: higher first,
	// ties by Kubernetes version order.
	VersionPriority int32 `json:"versionPriority" protobuf:"varint,8,opt,name=versionPriority"`
}

// APIServiceReference points at a Service and one of its ports
// (apiregistration's ServiceReference; the name is taken by the webhooks').
type APIServiceReference struct {
	// Namespace of the Service.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	// Name of the Service.
	Name string `json:"name,omitempty" protobuf:"bytes,2,opt,name=name"`
	// Port is the Service port (443 by default).
	Port *int32 `json:"port,omitempty" protobuf:"varint,3,opt,name=port"`
}

// APIServiceConditionType names a condition of an APIService.
type APIServiceConditionType string

// Available says the backend answers discovery.
const Available APIServiceConditionType = "Available"

// APIServiceCondition is one condition of an APIService.
type APIServiceCondition struct {
	Type               APIServiceConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=APIServiceConditionType"`
	Status             ConditionStatus         `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                  `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                  `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// APIServiceStatus holds the conditions.
type APIServiceStatus struct {
	Conditions []APIServiceCondition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
}

// APIServiceList is a list of APIServices.
type APIServiceList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the APIServices.
	Items []APIService `json:"items" protobuf:"bytes,2,rep,name=items"`
}
