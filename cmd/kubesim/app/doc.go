// Package app starts what `kubesim serve` runs — the whole control plane
// (cluster.Cluster) behind an HTTPS listener, with its serving
// certificate, its admin token and a kubeconfig for clients — as a
// function a Go program or test can call, so that a test of real clients
// (kubectl, client-go, controller-runtime) runs the very code path that
// the binary runs.
//
// It mirrors k8s.io/kubernetes/cmd/kube-apiserver/app (Run, with its
// options already parsed) and that package's testing.StartTestServer. It
// leaves out the rest of kube-apiserver's serving options (secure port
// flags, audit files, admission configuration, client certificates): one
// listener, bearer tokens, a self-signed CA from package pki.
package app
