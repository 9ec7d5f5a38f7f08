// Package framework starts a kubesim control plane inside a Go test and
// hands back what a real Kubernetes client needs to reach it: a
// *rest.Config built by client-go's clientcmd from the kubeconfig that
// `kubesim serve` writes.
//
// It plays the part of k8s.io/kubernetes/test/integration/framework (and
// controller-runtime's envtest): one API server per test, on a random
// loopback port, over HTTPS with a bearer token. Unlike envtest it runs
// the whole control plane — controllers, scheduler and fake kubelets —
// through the same code path as the kubesim binary (package
// cmd/kubesim/app), so what passes here passes against `kubesim serve`.
package framework
