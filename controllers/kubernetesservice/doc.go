// Package kubernetesservice is the API server's own loop that keeps the
// "kubernetes" Service of namespace default and its endpoints: the
// address every pod reaches the API server at (kubernetes.default.svc,
// the KUBERNETES_SERVICE_HOST of every container).
//
// It simulates kube-apiserver's bootstrap controller
// (pkg/controlplane/controller/kubernetesservice) with its endpoint
// reconciler (pkg/controlplane/reconcilers: lease.go's doReconcile and
// endpointsadapter.go):
//
//   - the Service: ClusterIP the first address of the service range
//     (10.96.0.1), one port 443 named "https" targeting the API server's
//     secure port, no selector, labels component=apiserver and
//     provider=kubernetes. It is created whenever it is missing (deleted,
//     it comes back); its ports and type are put right only on the first
//     reconcile after the server starts, as in Kubernetes, where a change
//     made later lasts until the next restart.
//   - the Endpoints "kubernetes": one subset, the API server's advertised
//     address with port "https" at the secure port, labelled
//     endpointslice.kubernetes.io/skip-mirror=true (no mirroring
//     controller is to copy it); its addresses are put right on every
//     reconcile, its ports on the first.
//   - the EndpointSlice "kubernetes", made from the Endpoints
//     (EnsureEndpointSliceFromEndpoints): labelled only
//     kubernetes.io/service-name=kubernetes — no managed-by label, so the
//     endpointslice controller leaves it alone — and put right whenever it
//     differs.
//
// Kubernetes polls every EndpointInterval (10 s); this loop reconciles on
// the watch events of the three objects (a delete, a change that leaves
// them wrong) and on the default namespace being seen, which catches the
// same deletions and changes at once and keeps step mode's trace free of
// a ten-second timer. It runs with the API server, even without the
// controller manager, as a client of its privileged loopback.
//
// Left out: several API servers (the master leases each refreshes and
// the addresses of all of them), dual stack, NodePort exposure of the
// Service, and the cluster IP and node port repair loops that share the
// real controller.
package kubernetesservice
