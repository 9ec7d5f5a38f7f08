// Package request works out what an API request asks for from its method,
// path and query: the verb, group, version, namespace, resource, name and
// subresource. Authorization, admission and the REST handlers all read this.
//
// It simulates RequestInfoFactory in k8s.io/apiserver/pkg/endpoints/request
// (requestinfo.go). Left out: the legacy /api/v1/proxy paths and
// resource-level "proxy" verbs.
package request
