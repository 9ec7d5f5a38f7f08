// Package operators holds what the operators share: installing their
// CustomResourceDefinitions from the YAML they ship. The operators are
// controllers that run outside the controller manager, as their own
// process, as a pod, or beside the control plane in a scenario; its
// sub-packages are foo (the smallest controller of a custom kind, like
// Kubernetes' sample-controller), redis (the seed's RedisCluster
// operator), both written on package controllers' typed layer
// (ObjectController) as the built-in StatefulSet controller is, and
// catalog (every such controller by name).
//
// Installing CRDs from the operator is a convenience of kubesim's tests and
// labs; real operators usually ship CRDs as manifests (kubebuilder's `make
// install`) and so can these: `kubectl apply -f crds.yaml`.
package operators
