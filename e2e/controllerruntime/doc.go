// Package controllerruntime proves that sigs.k8s.io/controller-runtime —
// the library behind kubebuilder operators — works unchanged against
// kubesim: a manager with leader election, its cache (informers over
// watch-list), its client (protobuf for built-in kinds, JSON for custom
// resources) and a reconciler whose owned objects the garbage collector
// removes. Its tests are the whole package; there is no code to import.
package controllerruntime
