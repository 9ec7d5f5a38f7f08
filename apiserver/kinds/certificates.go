package kinds

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/certificates"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// --- certificates.k8s.io/v1 CertificateSigningRequest ---

// CertificatesGroupName is the certificates API group.
const CertificatesGroupName = "certificates.k8s.io"

// certificateResources serves CertificateSigningRequests with their
// /status (where a signer writes the certificate) and /approval (where
// `kubectl certificate approve|deny` writes the decision). Who may approve
// or sign is decided by admission (CertificateApproval,
// CertificateSigning); the signing itself is the csrsigning controller's.
func certificateResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{{
		Group: CertificatesGroupName, Version: "v1", Name: "certificatesigningrequests", SingularName: "certificatesigningrequest",
		Kind: "CertificateSigningRequest", ListKind: "CertificateSigningRequestList", ShortNames: []string{"csr"},
		New:                 func() api.Object { return &certificatesv1.CertificateSigningRequest{} },
		StrategicMergePatch: true,
		Strategy:            csrStrategy{},
		Schema:              gen.FromGoType(reflect.TypeOf(certificatesv1.CertificateSigningRequest{})),
		StatusSubresource:   true,
		UpdateSubresources: map[string]registry.UpdateSubresource{"approval": {
			PrepareForUpdate: csrApprovalPrepareForUpdate,
			ValidateUpdate:   csrApprovalValidateUpdate,
		}},
		Table: csrTable(),
		// SelectableFields of pkg/registry/certificates/certificates:
		// `kubectl get csr --field-selector spec.signerName=...`.
		Fields: func(obj api.Object) fields.Set {
			return fields.Set{"spec.signerName": obj.(*certificatesv1.CertificateSigningRequest).Spec.SignerName}
		},
	}}
}

// csrStrategy is pkg/registry/certificates/certificates/strategy.go's: a
// new CSR records who asked for it and starts with no status; its spec
// never changes; a status write cannot change the approval, and a
// certificate once issued stays.
type csrStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate implements registry.Strategy: a client cannot create a
// pre-approved request, nor say who it is.
func (csrStrategy) PrepareForCreate(obj api.Object) {
	csr := obj.(*certificatesv1.CertificateSigningRequest)
	csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups, csr.Spec.Extra = "", "", nil, nil
	csr.Status = certificatesv1.CertificateSigningRequestStatus{}
}

// PrepareForCreateFromRequest implements registry.RequestPreparer: the
// requesting user's name, uid, groups and extra become the spec's.
func (csrStrategy) PrepareForCreateFromRequest(ctx context.Context, obj api.Object) {
	csr := obj.(*certificatesv1.CertificateSigningRequest)
	u, ok := authn.UserFrom(ctx)
	if !ok || u == nil {
		return
	}
	csr.Spec.Username, csr.Spec.UID = u.Name, u.UID
	csr.Spec.Groups = slices.Clone(u.Groups)
	if len(u.Extra) > 0 {
		csr.Spec.Extra = map[string]certificatesv1.ExtraValue{}
		for k, v := range u.Extra {
			csr.Spec.Extra[k] = slices.Clone(v)
		}
	}
}

// PrepareForUpdate implements registry.Strategy for the object and its
// /status (the store has already kept the right status for the object):
// the spec stays, and so do the Approved and Denied conditions, which
// only /approval changes: each one the writer sent back is replaced by
// the stored one in its place (preserveConditionInstances). One added or
// removed is left for ValidateUpdate to refuse.
func (csrStrategy) PrepareForUpdate(obj, old api.Object) {
	csr, o := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	csr.Spec = *o.Spec.DeepCopy()
	preserveConditionInstances(csr, o, certificatesv1.CertificateApproved)
	preserveConditionInstances(csr, o, certificatesv1.CertificateDenied)
	populateConditionTimestamps(csr, o)
}

// csrApprovalPrepareForUpdate is the approval strategy's: the conditions,
// all of them, come from the write (`kubectl certificate approve` adds
// one, and a client may write conditions of its own types there too);
// the rest of the status and the spec stay as stored.
func csrApprovalPrepareForUpdate(obj, cur api.Object) {
	csr, o := obj.(*certificatesv1.CertificateSigningRequest), cur.(*certificatesv1.CertificateSigningRequest)
	populateConditionTimestamps(csr, o)
	conditions := csr.Status.Conditions
	csr.Spec = *o.Spec.DeepCopy()
	csr.Status = *o.Status.DeepCopy()
	csr.Status.Conditions = conditions
}

// preserveConditionInstances puts old's conditions of type t back in
// place of csr's, when csr has as many of them as old.
func preserveConditionInstances(csr, old *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) {
	oldIdx, newIdx := conditionIndices(old, t), conditionIndices(csr, t)
	if len(oldIdx) != len(newIdx) {
		return
	}
	for i, j := range oldIdx {
		csr.Status.Conditions[newIdx[i]] = *old.Status.Conditions[j].DeepCopy()
	}
}

func conditionIndices(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) []int {
	var out []int
	for i, c := range csr.Status.Conditions {
		if c.Type == t {
			out = append(out, i)
		}
	}
	return out
}

// populateConditionTimestamps gives a new or changed condition its times:
// lastTransitionTime when its status changed, from lastUpdateTime (the
// writer's clock; kube-apiserver uses its own, and kubesim's strategies
// have none), and keeps the old transition time otherwise.
func populateConditionTimestamps(csr, old *certificatesv1.CertificateSigningRequest) {
	for i := range csr.Status.Conditions {
		c := &csr.Status.Conditions[i]
		var prev *certificatesv1.CertificateSigningRequestCondition
		for j := range old.Status.Conditions {
			if old.Status.Conditions[j].Type == c.Type {
				prev = &old.Status.Conditions[j]
			}
		}
		switch {
		case prev != nil && prev.Status == c.Status && c.LastTransitionTime.IsZero():
			c.LastTransitionTime = prev.LastTransitionTime
		case c.LastTransitionTime.IsZero():
			c.LastTransitionTime = c.LastUpdateTime
		}
	}
}

// Validate implements registry.Strategy
// (ValidateCertificateSigningRequestCreate).
func (csrStrategy) Validate(obj api.Object) field.ErrorList {
	return validateCSR(obj.(*certificatesv1.CertificateSigningRequest))
}

// ValidateUpdate implements registry.Strategy for the object and /status:
// the conditions stay valid, none of Approved, Denied or Failed goes
// away, no Approved or Denied is added, and an issued certificate is never
// replaced.
func (csrStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	csr, o := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	errs := validateCSR(csr)
	errs = append(errs, validateConditionsKept(csr, o)...)
	// Only /approval adds an approval or a denial.
	for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
		if len(conditionIndices(csr, t)) > len(conditionIndices(o, t)) {
			errs = append(errs, field.Forbidden(field.NewPath("status", "conditions"), fmt.Sprintf("updates may not add a condition of type %q", t)))
		}
	}
	if len(o.Status.Certificate) > 0 && !slices.Equal(csr.Status.Certificate, o.Status.Certificate) {
		errs = append(errs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", "updates may not modify existing certificate content"))
	}
	return errs
}

func csrApprovalValidateUpdate(obj, cur api.Object) field.ErrorList {
	csr, o := obj.(*certificatesv1.CertificateSigningRequest), cur.(*certificatesv1.CertificateSigningRequest)
	return append(validateCSR(csr), validateConditionsKept(csr, o)...)
}

// validateConditionsKept: the conditions of type Approved, Denied or
// Failed that were there stay (none fewer than before).
func validateConditionsKept(csr, old *certificatesv1.CertificateSigningRequest) field.ErrorList {
	var errs field.ErrorList
	for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed} {
		if len(conditionIndices(csr, t)) < len(conditionIndices(old, t)) {
			errs = append(errs, field.Forbidden(field.NewPath("status", "conditions"), fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	return errs
}

// minExpirationSeconds is the shortest certificate a CSR may ask for.
const minExpirationSeconds = 600

// validateCSR is validateCertificateSigningRequest for v1: the request is
// a signed PEM CSR, usages are given, known and not repeated, the signer
// is a qualified name (and not the legacy one), a requested duration is
// at least ten minutes, the conditions make sense and a certificate, if
// any, is PEM certificates.
func validateCSR(csr *certificatesv1.CertificateSigningRequest) field.ErrorList {
	var errs field.ErrorList
	sp := field.NewPath("spec")
	if req, err := certificates.ParseCSR(csr.Spec.Request); err != nil {
		errs = append(errs, field.Invalid(sp.Child("request"), truncated(csr.Spec.Request), err.Error()))
	} else if err := req.CheckSignature(); err != nil {
		errs = append(errs, field.Invalid(sp.Child("request"), truncated(csr.Spec.Request), err.Error()))
	}
	if len(csr.Spec.Usages) == 0 {
		errs = append(errs, field.Required(sp.Child("usages"), ""))
	}
	valid := certificates.AllUsages()
	seen := map[certificatesv1.KeyUsage]bool{}
	for i, u := range csr.Spec.Usages {
		if !slices.Contains(valid, string(u)) {
			errs = append(errs, field.NotSupported(sp.Child("usages").Index(i), u, valid))
		}
		if seen[u] {
			errs = append(errs, field.Duplicate(sp.Child("usages").Index(i), u))
		}
		seen[u] = true
	}
	if csr.Spec.SignerName == certificates.LegacyUnknownSignerName {
		errs = append(errs, field.Invalid(sp.Child("signerName"), csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	} else {
		errs = append(errs, ValidateSignerName(sp.Child("signerName"), csr.Spec.SignerName)...)
	}
	if e := csr.Spec.ExpirationSeconds; e != nil && *e < minExpirationSeconds {
		errs = append(errs, field.Invalid(sp.Child("expirationSeconds"), *e, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	errs = append(errs, validateCSRConditions(csr)...)
	if err := validateCertificatePEM(csr.Status.Certificate); err != nil {
		errs = append(errs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
	}
	return errs
}

// truncated shows the start of a request in an error, not all of it.
func truncated(b []byte) string {
	const max = 64
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

// ValidateSignerName is apimachinery's ValidateSignerName: a domain of at
// least two DNS labels, a slash, and a path that is a DNS subdomain
// ("example.com/my-signer").
func ValidateSignerName(p *field.Path, signerName string) field.ErrorList {
	if signerName == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	segments := strings.Split(signerName, "/")
	if len(segments) != 2 {
		return field.ErrorList{field.Invalid(p, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	domain, path := segments[0], segments[1]
	if len(domain) > subdomainMaxLength {
		errs = append(errs, field.TooLong(p, domain, subdomainMaxLength))
	}
	labels := strings.Split(domain, ".")
	for _, l := range labels {
		if msgs := IsDNS1123Label(l); len(msgs) > 0 {
			for _, msg := range msgs {
				errs = append(errs, field.Invalid(p, domain, fmt.Sprintf("validating label %q: %s", l, msg)))
			}
			break
		}
	}
	if len(labels) < 2 {
		errs = append(errs, field.Invalid(p, domain, "should be a domain with at least two segments separated by dots"))
	}
	if max := subdomainMaxLength + 63 + 1; len(path) > max {
		errs = append(errs, field.TooLong(p, path, max))
	}
	for _, msg := range labels1123Subdomain(path) {
		errs = append(errs, field.Invalid(p, path, msg))
	}
	return errs
}

// validateCSRConditions is validateConditions: each condition has a type
// and a True/False/Unknown status, Approved and Denied are True and never
// both, no type twice.
func validateCSRConditions(csr *certificatesv1.CertificateSigningRequest) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("status", "conditions")
	seen := map[certificatesv1.RequestConditionType]bool{}
	var approved, denied bool
	for i, c := range csr.Status.Conditions {
		cp := p.Index(i)
		if c.Type == "" {
			errs = append(errs, field.Required(cp.Child("type"), ""))
		}
		switch c.Status {
		case corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown:
		default:
			errs = append(errs, field.NotSupported(cp.Child("status"), c.Status, []string{"False", "True", "Unknown"}))
		}
		switch c.Type {
		case certificatesv1.CertificateApproved, certificatesv1.CertificateDenied:
			if c.Type == certificatesv1.CertificateApproved {
				approved = true
			} else {
				denied = true
			}
			if c.Status != corev1.ConditionTrue {
				errs = append(errs, field.NotSupported(cp.Child("status"), c.Status, []string{"True"}))
			}
		}
		if seen[c.Type] {
			errs = append(errs, field.Duplicate(cp.Child("type"), c.Type))
		}
		seen[c.Type] = true
	}
	if approved && denied {
		errs = append(errs, field.Invalid(p, "<conditions>", "Approved and Denied conditions are mutually exclusive"))
	}
	return errs
}

// validateCertificatePEM is validateCertificate: empty, or only
// CERTIFICATE blocks without headers, each holding a certificate.
func validateCertificatePEM(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return errors.New("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
		data = rest
	}
	if blocks == 0 {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// CSRCondition is the CONDITION column: Denied, Approved or Pending, then
// ",Failed" and ",Issued" as they apply (extractCSRStatus).
func CSRCondition(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	status := "Pending"
	switch {
	case denied:
		status = "Denied"
	case approved:
		status = "Approved"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}

// csrTable: NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION
// (printCertificateSigningRequest).
func csrTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			registry.AgeColumn,
			col("SignerName", "string", "Only one signer name may be requested."),
			col("Requestor", "string", "Name of the user who requested the certificate."),
			col("RequestedDuration", "string", "expirationSeconds is the requested duration of validity of the issued certificate."),
			col("Condition", "string", "The condition of the certificate signing request."),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			csr := obj.(*certificatesv1.CertificateSigningRequest)
			signer, requested := "<none>", "<none>"
			if csr.Spec.SignerName != "" {
				signer = csr.Spec.SignerName
			}
			if e := csr.Spec.ExpirationSeconds; e != nil {
				requested = registry.HumanDuration(time.Duration(*e) * time.Second)
			}
			return []any{csr.Name, age(csr.CreationTimestamp.Time, now), signer, csr.Spec.Username, requested, CSRCondition(csr)}
		},
	}
}
