// Package helm installs real Helm charts into kubesim with the real Helm
// v4 (helm.sh/helm/v4's own command, built from the e2e module), the way
// a course's student does after `kind create cluster`: `helm create`'s
// chart, and charts that their projects ship inside their Go modules
// (metrics-server, external-dns, external-secrets, kyverno, cert-manager),
// each installed unchanged with server-side apply and `--wait`, which
// waits, as kstatus reads it, for every Deployment to become Available and
// every hook Job to complete.
//
// Nothing here is kubesim's code: the tests are the judge of whether the
// API server takes every field and kind those charts write, and whether
// the controllers and kubelets bring them to the state Helm waits for.
// The charts come from the Go module proxy (`go mod download`), so the
// tests need no chart repository.
package helm
