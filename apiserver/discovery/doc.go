// Package discovery builds and serves the documents that tell a client
// which API groups, versions and resources the server has: /api, /api/v1,
// /apis, /apis/<group> and /apis/<group>/<version>. kubectl reads them to
// map "po" or "widgets" to a URL (its RESTMapper), to list api-resources and
// api-versions, and to find the scale subresource.
//
// It simulates k8s.io/apiserver/pkg/endpoints/discovery (the legacy,
// unaggregated JSON handlers: APIVersions, APIGroupList, APIGroup and
// APIResourceList) together with the ordering rules of kube-aggregator,
// whose /apis puts groups in the order of their APIService
// groupPriorityMinimum (apiregistration.k8s.io first, then the fixed table
// of built-in groups, then everything else, custom resources included) and
// versions in the kube-aware version order (v1 before v1beta2 before
// v1beta1 before v1alpha1 before anything that is not a Kubernetes version).
//
// The documents are pure functions of the resource list, so a new custom
// resource shows at once: NewHandler asks its source on every request.
//
// It also serves aggregated discovery (k8s.io/apiserver's
// endpoints/discovery/aggregated): asked with Accept
// application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList
// (or v2beta1), /api and /apis answer one APIGroupDiscoveryList holding
// every group, version and resource, subresources nested, with an ETag
// (the SHA-512 of the document) and 304 Not Modified for a matching
// If-None-Match. kubectl then needs two requests instead of one per
// group-version. The aggregator (package aggregator) merges the documents
// of extension API servers into it.
//
// Left out: protobuf encoding, storageVersionHash, per-group
// serverAddressByClientCIDRs, the peer-aggregated profile (profile=nopeer
// is treated as the plain v2 document), and per-resource verb
// restrictions (every resource here supports every verb).
//
// Read the real ones at
// https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apiserver/pkg/endpoints/discovery
// and, for the ordering,
// https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/kube-aggregator/pkg/apiserver/handler_apis.go
// and pkg/controlplane/apiserver/aggregator.go (apiVersionPriorities).
package discovery
