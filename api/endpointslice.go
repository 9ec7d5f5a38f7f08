package api

// This file holds discovery.k8s.io/v1 EndpointSlice
// (k8s.io/api/discovery/v1/types.go); the protobuf tags are its field
// numbers. Its Endpoint and EndpointPort are named EndpointSliceEndpoint and
// EndpointSlicePort here, as core/v1's EndpointPort already has the name.

// DiscoveryGroupName is the group of EndpointSlice.
const DiscoveryGroupName = "discovery.k8s.io"

// Well-known EndpointSlice labels.
const (
	// LabelServiceName names the slice's service.
	LabelServiceName = "kubernetes.io/service-name"
	// LabelManagedBy names the slice's controller.
	LabelManagedBy = "endpointslice.kubernetes.io/managed-by"
)

// EndpointSlice is a part of a service's endpoints, at most 100 by default.
type EndpointSlice struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// AddressType is IPv4, IPv6 or FQDN.
	AddressType AddressType `json:"addressType" protobuf:"bytes,4,rep,name=addressType"`
	// Endpoints are the addresses.
	Endpoints []EndpointSliceEndpoint `json:"endpoints" protobuf:"bytes,2,rep,name=endpoints"`
	// Ports every endpoint of the slice serves.
	Ports []EndpointSlicePort `json:"ports" protobuf:"bytes,3,rep,name=ports"`
}

// AddressType is the kind of addresses of a slice.
type AddressType string

// The address types.
const (
	AddressTypeIPv4 AddressType = "IPv4"
	AddressTypeIPv6 AddressType = "IPv6"
	AddressTypeFQDN AddressType = "FQDN"
)

// EndpointSliceEndpoint is discovery/v1 Endpoint: one backend.
type EndpointSliceEndpoint struct {
	_ struct{} `json:"-" protobuf:"bytes,5,opt,name=deprecatedTopology"`
	_ struct{} `json:"-" protobuf:"bytes,8,opt,name=hints"`
	// Addresses of the backend (one, in practice).
	Addresses []string `json:"addresses" protobuf:"bytes,1,rep,name=addresses"`
	// Conditions say whether it takes traffic.
	Conditions EndpointConditions `json:"conditions,omitempty" protobuf:"bytes,2,opt,name=conditions"`
	// Hostname of the backend.
	Hostname *string `json:"hostname,omitempty" protobuf:"bytes,3,opt,name=hostname"`
	// TargetRef is the pod.
	TargetRef *ObjectReference `json:"targetRef,omitempty" protobuf:"bytes,4,opt,name=targetRef"`
	// NodeName is the pod's node.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,6,opt,name=nodeName"`
	// Zone is the node's zone.
	Zone *string `json:"zone,omitempty" protobuf:"bytes,7,opt,name=zone"`
}

// EndpointConditions are an endpoint's state.
type EndpointConditions struct {
	// Ready: the pod is ready and not terminating.
	Ready *bool `json:"ready,omitempty" protobuf:"bytes,1,name=ready"`
	// Serving: the pod is ready, terminating or not.
	Serving *bool `json:"serving,omitempty" protobuf:"bytes,2,name=serving"`
	// Terminating: the pod is being deleted.
	Terminating *bool `json:"terminating,omitempty" protobuf:"bytes,3,name=terminating"`
}

// EndpointSlicePort is discovery/v1 EndpointPort.
type EndpointSlicePort struct {
	// Name is the service port's name.
	Name *string `json:"name,omitempty" protobuf:"bytes,1,name=name"`
	// Protocol is TCP, UDP or SCTP.
	Protocol *Protocol `json:"protocol,omitempty" protobuf:"bytes,2,name=protocol"`
	// Port is the backend's port number.
	Port *int32 `json:"port,omitempty" protobuf:"bytes,3,opt,name=port"`
	// AppProtocol is the application protocol.
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,4,name=appProtocol"`
}

// EndpointSliceList is a list of slices.
type EndpointSliceList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the slices.
	Items []EndpointSlice `json:"items" protobuf:"bytes,2,rep,name=items"`
}
