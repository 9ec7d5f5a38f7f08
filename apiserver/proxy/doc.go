// Package proxy finds where a Service's port is served: the addresses of
// its ready endpoints (or the external name of an ExternalName Service),
// for the two parts of the API server that call a Service themselves —
// the aggregator, proxying an APIService to its backend, and the
// admission webhooks.
//
// It simulates ResolveEndpoints of k8s.io/apiserver/pkg/util/proxy, which
// kube-aggregator's endpoint routing and the webhooks' service resolver
// share (with --enable-aggregator-routing; kubesim always routes to
// endpoints, as its pod network reaches them). Left out: the cluster-IP
// routing (ResolveCluster, kube-apiserver's default for webhooks), the
// excluded endpoints of a retry, and EndpointSlices (kube-aggregator
// reads the Endpoints).
package proxy
