package client

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	nodev1 "k8s.io/api/node/v1"
)

// The resources of the certificates, events, flow control and node API
// groups.
var (
	CertificateSigningRequestsResource  = ResourceInfo{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"}
	EventsV1Resource                    = ResourceInfo{Group: "events.k8s.io", Version: "v1", Resource: "events", Namespaced: true}
	FlowSchemasResource                 = ResourceInfo{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "flowschemas"}
	PriorityLevelConfigurationsResource = ResourceInfo{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "prioritylevelconfigurations"}
	RuntimeClassesResource              = ResourceInfo{Group: "node.k8s.io", Version: "v1", Resource: "runtimeclasses"}
)

// CertificateSigningRequests is the typed client of CSRs.
func (c *Client) CertificateSigningRequests() *Resource[*certificatesv1.CertificateSigningRequest] {
	return For(c, CertificateSigningRequestsResource, func() *certificatesv1.CertificateSigningRequest { return &certificatesv1.CertificateSigningRequest{} })
}

// EventsV1 is the typed client of events.k8s.io/v1 Events (the same
// objects as Events, in that group's shape).
func (c *Client) EventsV1() *Resource[*eventsv1.Event] {
	return For(c, EventsV1Resource, func() *eventsv1.Event { return &eventsv1.Event{} })
}

// FlowSchemas is the typed client of API Priority and Fairness's flow
// schemas.
func (c *Client) FlowSchemas() *Resource[*flowcontrolv1.FlowSchema] {
	return For(c, FlowSchemasResource, func() *flowcontrolv1.FlowSchema { return &flowcontrolv1.FlowSchema{} })
}

// PriorityLevelConfigurations is the typed client of API Priority and
// Fairness's priority levels.
func (c *Client) PriorityLevelConfigurations() *Resource[*flowcontrolv1.PriorityLevelConfiguration] {
	return For(c, PriorityLevelConfigurationsResource, func() *flowcontrolv1.PriorityLevelConfiguration { return &flowcontrolv1.PriorityLevelConfiguration{} })
}

// RuntimeClasses is the typed client of RuntimeClasses.
func (c *Client) RuntimeClasses() *Resource[*nodev1.RuntimeClass] {
	return For(c, RuntimeClassesResource, func() *nodev1.RuntimeClass { return &nodev1.RuntimeClass{} })
}
