package certificates

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
)

// LegacyUnknownSignerName is the signer of the CSRs made before signer
// names existed; certificates.k8s.io/v1 refuses it, so no CSR of the API
// kubesim serves can ask for it.
const LegacyUnknownSignerName = "kubernetes.io/legacy-unknown"

// ParseCSR decodes a PEM-encoded CERTIFICATE REQUEST block.
func ParseCSR(pemBytes []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}

// HasTrueCondition reports whether csr has a condition of type t with
// status True.
func HasTrueCondition(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) bool {
	for _, c := range csr.Status.Conditions {
		if c.Type == t && (c.Status == "" || c.Status == corev1.ConditionTrue) {
			return true
		}
	}
	return false
}

// IsApproved reports whether csr is approved and not denied.
func IsApproved(csr *certificatesv1.CertificateSigningRequest) bool {
	return HasTrueCondition(csr, certificatesv1.CertificateApproved) && !HasTrueCondition(csr, certificatesv1.CertificateDenied)
}

// KeyUsages maps the usages a CSR may request to x509 key usages, and
// ExtKeyUsages to extended key usages (authority's keyUsageDict and
// extKeyUsageDict); AllUsages lists both, sorted.
var (
	KeyUsages = map[certificatesv1.KeyUsage]x509.KeyUsage{
		certificatesv1.UsageSigning:           x509.KeyUsageDigitalSignature,
		certificatesv1.UsageDigitalSignature:  x509.KeyUsageDigitalSignature,
		certificatesv1.UsageContentCommitment: x509.KeyUsageContentCommitment,
		certificatesv1.UsageKeyEncipherment:   x509.KeyUsageKeyEncipherment,
		certificatesv1.UsageKeyAgreement:      x509.KeyUsageKeyAgreement,
		certificatesv1.UsageDataEncipherment:  x509.KeyUsageDataEncipherment,
		certificatesv1.UsageCertSign:          x509.KeyUsageCertSign,
		certificatesv1.UsageCRLSign:           x509.KeyUsageCRLSign,
		certificatesv1.UsageEncipherOnly:      x509.KeyUsageEncipherOnly,
		certificatesv1.UsageDecipherOnly:      x509.KeyUsageDecipherOnly,
	}
	ExtKeyUsages = map[certificatesv1.KeyUsage]x509.ExtKeyUsage{
		certificatesv1.UsageAny:             x509.ExtKeyUsageAny,
		certificatesv1.UsageServerAuth:      x509.ExtKeyUsageServerAuth,
		certificatesv1.UsageClientAuth:      x509.ExtKeyUsageClientAuth,
		certificatesv1.UsageCodeSigning:     x509.ExtKeyUsageCodeSigning,
		certificatesv1.UsageEmailProtection: x509.ExtKeyUsageEmailProtection,
		certificatesv1.UsageSMIME:           x509.ExtKeyUsageEmailProtection,
		certificatesv1.UsageIPsecEndSystem:  x509.ExtKeyUsageIPSECEndSystem,
		certificatesv1.UsageIPsecTunnel:     x509.ExtKeyUsageIPSECTunnel,
		certificatesv1.UsageIPsecUser:       x509.ExtKeyUsageIPSECUser,
		certificatesv1.UsageTimestamping:    x509.ExtKeyUsageTimeStamping,
		certificatesv1.UsageOCSPSigning:     x509.ExtKeyUsageOCSPSigning,
		certificatesv1.UsageMicrosoftSGC:    x509.ExtKeyUsageMicrosoftServerGatedCrypto,
		certificatesv1.UsageNetscapeSGC:     x509.ExtKeyUsageNetscapeServerGatedCrypto,
	}
)

// AllUsages are the names a CSR's usages may take, sorted.
func AllUsages() []string {
	var out []string
	for u := range KeyUsages {
		out = append(out, string(u))
	}
	for u := range ExtKeyUsages {
		out = append(out, string(u))
	}
	slices.Sort(out)
	return out
}

// The errors of the kubelet signers' checks, worded as Kubernetes words
// them.
var (
	errOrganizationNotSystemNodes = errors.New("subject organization is not system:nodes")
	errCommonNameNotSystemNode    = errors.New("subject common name does not begin with system:node:")
	errDNSOrIPSANRequired         = errors.New("DNS or IP subjectAltName is required")
	errDNSSANNotAllowed           = errors.New("DNS subjectAltNames are not allowed")
	errEmailSANNotAllowed         = errors.New("Email subjectAltNames are not allowed")
	errIPSANNotAllowed            = errors.New("IP subjectAltNames are not allowed")
	errURISANNotAllowed           = errors.New("URI subjectAltNames are not allowed")
)

// usageSetIs reports whether usages, as a set, is exactly want.
func usageSetIs(usages []certificatesv1.KeyUsage, want ...certificatesv1.KeyUsage) bool {
	set := map[certificatesv1.KeyUsage]bool{}
	for _, u := range usages {
		set[u] = true
	}
	if len(set) != len(want) {
		return false
	}
	for _, u := range want {
		if !set[u] {
			return false
		}
	}
	return true
}

func sortedUsages(us ...certificatesv1.KeyUsage) string {
	s := make([]string, len(us))
	for i, u := range us {
		s[i] = string(u)
	}
	slices.Sort(s)
	return "[" + strings.Join(s, " ") + "]"
}

// ValidateKubeletClientCSR is what kubernetes.io/kube-apiserver-client-kubelet
// signs: a node's client certificate, system:node:<name> in
// system:nodes, no subject alternative names, for client auth.
func ValidateKubeletClientCSR(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	if !slices.Equal(req.Subject.Organization, []string{"system:nodes"}) {
		return errOrganizationNotSystemNodes
	}
	switch {
	case len(req.DNSNames) > 0:
		return errDNSSANNotAllowed
	case len(req.EmailAddresses) > 0:
		return errEmailSANNotAllowed
	case len(req.IPAddresses) > 0:
		return errIPSANNotAllowed
	case len(req.URIs) > 0:
		return errURISANNotAllowed
	}
	if !strings.HasPrefix(req.Subject.CommonName, "system:node:") {
		return errCommonNameNotSystemNode
	}
	required := []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth}
	if !usageSetIs(usages, required...) && !usageSetIs(usages, certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth) {
		return fmt.Errorf("usages did not match %s", sortedUsages(required...))
	}
	return nil
}

// ValidateKubeletServingCSR is what kubernetes.io/kubelet-serving signs: a
// node's serving certificate, system:node:<name> in system:nodes, with a
// DNS name or IP address, for server auth.
func ValidateKubeletServingCSR(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	required := []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageServerAuth}
	if !usageSetIs(usages, required...) && !usageSetIs(usages, certificatesv1.UsageDigitalSignature, certificatesv1.UsageServerAuth) {
		return fmt.Errorf("usages did not match %s", sortedUsages(required...))
	}
	if !slices.Equal(req.Subject.Organization, []string{"system:nodes"}) {
		return errOrganizationNotSystemNodes
	}
	if !strings.HasPrefix(req.Subject.CommonName, "system:node:") {
		return errCommonNameNotSystemNode
	}
	switch {
	case len(req.DNSNames) == 0 && len(req.IPAddresses) == 0:
		return errDNSOrIPSANRequired
	case len(req.EmailAddresses) > 0:
		return errEmailSANNotAllowed
	case len(req.URIs) > 0:
		return errURISANNotAllowed
	}
	return nil
}

// ValidateAPIServerClientUsages is what kubernetes.io/kube-apiserver-client
// asks of the usages: client auth, with digital signature and key
// encipherment allowed and nothing else (validAPIServerClientUsages). Its
// subject is free: any user, any groups but system:masters (the
// CertificateSubjectRestriction admission plugin).
func ValidateAPIServerClientUsages(usages []certificatesv1.KeyUsage) error {
	hasClientAuth := false
	for _, u := range usages {
		switch u {
		case certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment:
		case certificatesv1.UsageClientAuth:
			hasClientAuth = true
		default:
			return fmt.Errorf("invalid usage for client certificate: %s", u)
		}
	}
	if !hasClientAuth {
		return fmt.Errorf("missing required usage for client certificate: %s", certificatesv1.UsageClientAuth)
	}
	return nil
}
