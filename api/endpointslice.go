package api

import (
	discoveryv1 "k8s.io/api/discovery/v1"
)

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
type EndpointSlice = discoveryv1.EndpointSlice

// AddressType is the kind of addresses of a slice.
type AddressType = discoveryv1.AddressType

// The address types.
const (
	AddressTypeIPv4 AddressType = "IPv4"
	AddressTypeIPv6 AddressType = "IPv6"
	AddressTypeFQDN AddressType = "FQDN"
)

// EndpointSliceEndpoint is discovery/v1 Endpoint: one backend.
type EndpointSliceEndpoint = discoveryv1.Endpoint

// EndpointConditions are an endpoint's state.
type EndpointConditions = discoveryv1.EndpointConditions

// EndpointSlicePort is discovery/v1 EndpointPort.
type EndpointSlicePort = discoveryv1.EndpointPort

// EndpointSliceList is a list of slices.
type EndpointSliceList = discoveryv1.EndpointSliceList
