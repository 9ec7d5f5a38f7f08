// Package pki gives the API server its TLS identity and writes the
// kubeconfig that lets kubectl (and kubesim's own client) reach it.
//
// EnsureServing plays the part of kubeadm's certs phase
// (k8s.io/kubernetes/cmd/kubeadm/app/phases/certs) and of the self-signed
// fallback in k8s.io/apiserver/pkg/server/options/serving.go
// (MaybeDefaultWithSelfSignedCerts): on the first start it creates a
// cluster CA and a serving certificate signed by it, on later starts it
// loads them, renewing only the serving certificate when needed.
// WriteKubeconfig and LoadKubeconfig cover the small part of
// k8s.io/client-go/tools/clientcmd that a token-authenticated cluster
// needs.
//
// Bundle.Sign signs the certificates of approved CertificateSigningRequests
// for the csrsigning controller (kube-controller-manager's
// --cluster-signing-cert-file is the same CA); NewCA makes a CA in memory
// for a cluster without a data directory.
//
// Bundle.IssueClientCert signs client certificates for
// `kubesim kubeconfig --user` (kubeadm kubeconfig user) and
// WriteCertKubeconfig writes them; EnsureServiceAccountKey keeps the key
// that signs ServiceAccount tokens (kubeadm's sa.key).
//
// Left out: certificate rotation while running, kubeconfig merging across files, exec and
// auth-provider plugins. Since Go 1.26 crypto/ecdsa draws key material from
// the system's secure source whatever reader it is given; the rand
// argument still feeds serial numbers.
//
// Read the real ones at
// https://github.com/kubernetes/kubernetes/tree/master/cmd/kubeadm/app/phases/certs and
// https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/client-go/tools/clientcmd
package pki
