// Package operators holds what the example controllers share: installing
// their CustomResourceDefinitions from the YAML they ship. The examples
// themselves are its sub-packages: foo (the smallest controller of a
// custom kind, like Kubernetes' sample-controller) and redis (the seed's
// RedisCluster operator), both written on package controllers' typed layer
// (ObjectController), as the built-in StatefulSet controller is.
//
// Installing CRDs from the operator is a convenience of kubesim's tests and
// labs; real operators usually ship CRDs as manifests (kubebuilder's `make
// install`) and so can these: `kubectl apply -f crds.yaml`.
package operators
