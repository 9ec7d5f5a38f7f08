// Package sampleapiserver is an extension API server built from kubesim's
// own apiserver package, as k8s.io/sample-apiserver is built from
// k8s.io/apiserver: it serves the group wardle.example.com/v1alpha1 (kind
// Flunder, namespaced) from its own bbolt file, over HTTPS, with the same
// REST handlers, watch, tables and discovery as kubesim's API server
// (apiserver.Config.GenericOnly: no CRDs, no namespaces of its own; and no
// aggregator in front, so no APIServices).
//
// It trusts the aggregator: a request that carries the front proxy's
// credential (a bearer token here, a client certificate in Kubernetes) is
// from the user named in X-Remote-User, with the groups in X-Remote-Group;
// any other request is refused with 401. This is the requestheader
// authenticator of k8s.io/apiserver.
//
// `kubesim extension-apiserver` runs it as a program; the fake kubelet runs
// it in process for pods of the image kubesim/extension-apiserver
// (ImageName).
//
// Left out: the delegated authorization (SubjectAccessReview), admission
// against the main cluster (the namespace lifecycle), and the Fischer kind.
//
// Real one: https://github.com/kubernetes/sample-apiserver.
package sampleapiserver
