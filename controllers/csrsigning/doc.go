// Package csrsigning is kube-controller-manager's CSR signing controller
// (pkg/controller/certificates/signer): it issues the certificate of
// every approved CertificateSigningRequest addressed to a signer it runs,
// signed by the cluster CA (--cluster-signing-cert-file and -key-file),
// and writes it to the request's status.certificate.
//
// The built-in signers and what each accepts:
//   - kubernetes.io/kube-apiserver-client: client certificates for the API
//     server, any subject (CN the user, O the groups; system:masters is
//     refused at admission), usages client auth with optional digital
//     signature and key encipherment;
//   - kubernetes.io/kube-apiserver-client-kubelet: a kubelet's client
//     certificate, CN system:node:<name> in exactly system:nodes, no
//     subject alternative names;
//   - kubernetes.io/kubelet-serving: a kubelet's serving certificate, the
//     same subject with a DNS name or IP address, server auth;
//   - kubernetes.io/legacy-unknown: never signed here. certificates.k8s.io/v1,
//     the only version served, refuses the name, so no request can carry it
//     (the real controller's legacy-unknown signer serves v1beta1 requests,
//     an API removed in 1.22).
//
// A request that fails its signer's checks gets a Failed condition
// (reason SignerValidationFailure) and is never signed; a request to
// another signer is left to whoever runs it. The certificate lasts the
// shorter of the requested expirationSeconds (at least ten minutes) and
// Config.Duration (--cluster-signing-duration, one year), starts five
// minutes in the past against clock skew, and never outlives the CA.
//
// The real controller runs one loop per signer; here one loop handles the
// three. Left out: the csrapproving controller (auto-approval of kubelet
// client certificates through SubjectAccessReviews on
// certificatesigningrequests/nodeclient), the csrcleaner controller
// (deleting requests an hour after they are issued or a day after they
// are made: kubesim keeps them until deleted by hand), the ClusterTrustBundle
// publisher, and separate CAs per signer. Read the real one at
// https://github.com/kubernetes/kubernetes/tree/master/pkg/controller/certificates
package csrsigning
