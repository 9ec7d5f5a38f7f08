package admission

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/certificates"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
)

// The admission plugins of CertificateSigningRequests
// (plugin/pkg/admission/certificates): who may approve a request, who may
// sign it, and the one subject kube-apiserver-client never signs. Each
// signer is a name of the "signers" resource of certificates.k8s.io that
// RBAC grants verbs on: "approve" to approvers, "sign" to signers, for the
// exact signer name or for its whole domain ("kubernetes.io/*").

var csrResource = schema.GroupResource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}

func isCSR(a *Attributes) bool {
	return a.Resource.Group == csrResource.Group && a.Resource.Resource == csrResource.Resource
}

// AuthorizedForSignerName reports whether user may verb ("approve",
// "sign") requests for signerName: on the signers resource named
// signerName, or, failing that, "<domain>/*"
// (certificates.IsAuthorizedForSignerName). The API server's own
// loopback, which has no user, may.
func AuthorizedForSignerName(ctx context.Context, a authz.Authorizer, user *authn.UserInfo, verb, signerName string) bool {
	if user == nil {
		return true
	}
	domain, _, _ := strings.Cut(signerName, "/")
	for _, name := range []string{signerName, domain + "/*"} {
		d, _, err := a.Authorize(ctx, authz.Attributes{User: user, Verb: verb, ResourceRequest: true,
			APIGroup: csrResource.Group, APIVersion: "*", Resource: "signers", Name: name})
		if err == nil && d == authz.DecisionAllow {
			return true
		}
	}
	return false
}

func forbiddenCSR(a *Attributes, err error) error { return api.NewForbidden(csrResource, a.Name, err) }

// CertificateApproval checks a write to /approval: its user needs
// "approve" on the request's signer. The signer is read from the old
// object, so that an approval cannot change it first.
type CertificateApproval struct {
	Authorizer authz.Authorizer
}

// PluginName implements Named.
func (*CertificateApproval) PluginName() string { return "CertificateApproval" }

// Handles implements Handler.
func (*CertificateApproval) Handles(op Operation) bool { return op == Update }

// Validate implements Validator.
func (p *CertificateApproval) Validate(ctx context.Context, a *Attributes) error {
	if !isCSR(a) || a.Subresource != "approval" {
		return nil
	}
	csr, ok := a.OldObject.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return forbiddenCSR(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.OldObject))
	}
	if !AuthorizedForSignerName(ctx, p.Authorizer, a.User, "approve", csr.Spec.SignerName) {
		return forbiddenCSR(a, fmt.Errorf("user not permitted to approve requests with signerName %q", csr.Spec.SignerName))
	}
	return nil
}

// CertificateSigning checks a write to /status that sets or changes the
// certificate: its user needs "sign" on the request's signer.
type CertificateSigning struct {
	Authorizer authz.Authorizer
}

// PluginName implements Named.
func (*CertificateSigning) PluginName() string { return "CertificateSigning" }

// Handles implements Handler.
func (*CertificateSigning) Handles(op Operation) bool { return op == Update }

// Validate implements Validator.
func (p *CertificateSigning) Validate(ctx context.Context, a *Attributes) error {
	if !isCSR(a) || a.Subresource != "status" {
		return nil
	}
	old, ok1 := a.OldObject.(*certificatesv1.CertificateSigningRequest)
	csr, ok2 := a.Object.(*certificatesv1.CertificateSigningRequest)
	if !ok1 || !ok2 {
		return forbiddenCSR(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.Object))
	}
	if bytes.Equal(old.Status.Certificate, csr.Status.Certificate) {
		return nil
	}
	if !AuthorizedForSignerName(ctx, p.Authorizer, a.User, "sign", old.Spec.SignerName) {
		return forbiddenCSR(a, fmt.Errorf("user not permitted to sign requests with signerName %q", old.Spec.SignerName))
	}
	return nil
}

// CertificateSubjectRestriction refuses a new request to the
// kube-apiserver-client signer for a certificate in system:masters: that
// group is allowed everything and no RBAC binding can take it away, so
// such a certificate must not be issued through the API.
type CertificateSubjectRestriction struct{}

// PluginName implements Named.
func (CertificateSubjectRestriction) PluginName() string { return "CertificateSubjectRestriction" }

// Handles implements Handler.
func (CertificateSubjectRestriction) Handles(op Operation) bool { return op == Create }

// Validate implements Validator.
func (CertificateSubjectRestriction) Validate(_ context.Context, a *Attributes) error {
	if !isCSR(a) || a.Subresource != "" {
		return nil
	}
	csr, ok := a.Object.(*certificatesv1.CertificateSigningRequest)
	if !ok || csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName {
		return nil
	}
	req, err := certificates.ParseCSR(csr.Spec.Request)
	if err != nil {
		return api.NewBadRequest(fmt.Sprintf("failed to parse CSR: %v", err))
	}
	for _, org := range req.Subject.Organization {
		if org == authz.SystemPrivilegedGroup {
			return forbiddenCSR(a, fmt.Errorf("use of %s signer with %s group is not allowed", csr.Spec.SignerName, org))
		}
	}
	return nil
}
