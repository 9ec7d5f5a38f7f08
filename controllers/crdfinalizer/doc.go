// Package crdfinalizer is the apiextensions-apiserver's CRD finalizer
// controller (k8s.io/apiextensions-apiserver/pkg/controller/finalizer):
// when a CustomResourceDefinition is deleted, it deletes every custom
// resource the CRD defines, then removes the customresourcecleanup
// finalizer so that the CRD goes and its resource leaves discovery. It is
// a client of the API server like every loop, so it lives with the other
// controllers, apart from the server code in package apiserver/crd.
//
// Left out: the real controller deletes namespace by namespace with
// DeleteCollection and polls for a minute; this one deletes object by
// object and requeues after RecheckDelay while objects remain.
package crdfinalizer
