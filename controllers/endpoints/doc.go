// Package endpoints is the endpoints controller of kube-controller-manager
// ("endpoints"): for every Service with a selector it keeps an Endpoints
// object of the same name listing the pods the selector matches that have
// an IP: ready ones in addresses, the others in notReadyAddresses, with
// the ports the service's targetPorts resolve to (a number, or a container
// port name looked up in each pod). A pod whose subdomain is the Service's
// name is listed with its hostname, which the cluster DNS answers for
// (web-0.nginx of a StatefulSet).
//
// Left out: EndpointSlices (the endpointslice controller's), publishNotReadyAddresses, the
// endpoints.kubernetes.io/last-change-trigger-time annotation, and the
// truncation to 1000 addresses.
//
// Real one: pkg/controller/endpoint/endpoints_controller.go.
package endpoints
