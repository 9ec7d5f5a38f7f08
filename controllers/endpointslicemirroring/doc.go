// Package endpointslicemirroring is the endpointslice-mirroring
// controller of kube-controller-manager: a Service without a selector has
// the Endpoints object its user (or an operator) writes by hand, and no
// pods for the endpointslice controller to look at, so this controller
// copies that Endpoints object into EndpointSlices, which is what
// kube-proxy and the cluster DNS read. Each group of addresses with the
// same ports and address family becomes one slice named
// "<service>-<random>", labelled kubernetes.io/service-name and
// endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io,
// carrying the Endpoints' own labels and annotations (not
// last-applied-configuration, not last-change-trigger-time), owned by the
// Endpoints object. Ready addresses become ready endpoints, not-ready
// addresses endpoints with ready=false.
//
// Nothing is mirrored, and slices mirrored earlier are deleted, when the
// Service is missing or has a selector, or when the Endpoints carries the
// endpointslice.kubernetes.io/skip-mirror=true label (the API server's own
// kubernetes Endpoints does) or the leader-election annotation.
// An address that is not an IP is skipped with a Warning event
// InvalidIPAddress; past 1,000 addresses a subset is cut with a Warning
// event TooManyAddressesToMirror (--mirroring-max-endpoints-per-subset).
//
// Left out: the informer staleness tracker (kubesim's informers are read
// after the controller's own writes), metrics, and the batching of
// updates. Endpoints within a slice are sorted by address where the real
// one takes them in set order.
//
// Real one: pkg/controller/endpointslicemirroring (reconciler.go,
// utils.go).
package endpointslicemirroring
