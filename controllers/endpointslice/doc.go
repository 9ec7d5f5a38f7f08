// Package endpointslice is the endpointslice controller of
// kube-controller-manager ("endpointslice"): beside the Endpoints object
// of every Service with a selector, it keeps the Service's
// discovery.k8s.io/v1 EndpointSlices — the pods the selector matches that
// have an IP, one endpoint each with its address, nodeName, targetRef and
// the ready/serving/terminating conditions, grouped by address family and
// by the ports the service's targetPorts resolve to, at most 100
// endpoints a slice. Slices carry the kubernetes.io/service-name and
// endpointslice.kubernetes.io/managed-by labels and are owned by the
// Service (deleting it deletes them through the garbage collector). Slices
// without its managed-by label are someone else's (its informer sees only
// its own), and a Service without a selector or of type ExternalName gets
// nothing from it: the API server writes the kubernetes Service's slice
// itself.
//
// A Service with publishNotReadyAddresses has every endpoint ready.
//
// A Service that selects nothing has one empty slice (the reconciler's
// placeholder).
//
// Left out: the reconciler's minimal-churn packing (slices are refilled in
// order), topology hints and zones, the last-change-trigger-time
// annotation. A selectorless Service's slices are mirrored from the
// Endpoints its user writes by controllers/endpointslicemirroring.
//
// Real one: pkg/controller/endpointslice/endpointslice_controller.go and
// staging/src/k8s.io/endpointslice/reconciler.go.
package endpointslice
