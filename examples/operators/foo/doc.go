// Package foo is the smallest controller of a custom kind, after
// Kubernetes' sample-controller (k8s.io/sample-controller, controller.go):
// a Foo (samplecontroller.k8s.io/v1alpha1, CRD in crd.yaml) names a
// Deployment and a replica count; the controller keeps that Deployment,
// owned by the Foo, at spec.replicas and copies its available replicas to
// status.availableReplicas. A Deployment of that name that the Foo does not
// own is left alone, with the ErrResourceExists event.
//
// It is written on package controllers' typed layer (an ObjectController:
// primary Foo, owned Deployments), with the sample's own steps instead of
// controllers.CreateOrUpdate, so the two styles can be compared. Left out: the sample's code generation
// (clientsets, listers, deepcopy), replaced by a Go type and a JSON copy.
package foo
