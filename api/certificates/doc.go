// Package certificates holds the helpers of the certificates.k8s.io API
// that the API server's validation, its admission plugins and the signer
// controllers share: parsing a CSR's PEM request, reading its conditions,
// the usage names and what each built-in signer accepts.
//
// It plays kubernetes/pkg/apis/certificates/helpers.go and
// pkg/apis/certificates/v1/helpers.go (ParseCSR,
// ValidateKubeletClientCSR, ValidateKubeletServingCSR) and the usage
// tables of pkg/controller/certificates/authority. Read them at
// https://github.com/kubernetes/kubernetes/tree/master/pkg/apis/certificates
package certificates
