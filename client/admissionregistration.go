package client

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesim/kubesim/api"
)

// ValidatingAdmissionPoliciesResource is admissionregistration.k8s.io/v1
// validatingadmissionpolicies.
var ValidatingAdmissionPoliciesResource = ResourceInfo{Group: api.AdmissionRegistrationGroupName, Version: "v1", Resource: "validatingadmissionpolicies"}

// ValidatingAdmissionPolicies is the typed client of admission policies.
func (c *Client) ValidatingAdmissionPolicies() *Resource[*admissionregistrationv1.ValidatingAdmissionPolicy] {
	return For(c, ValidatingAdmissionPoliciesResource, func() *admissionregistrationv1.ValidatingAdmissionPolicy {
		return &admissionregistrationv1.ValidatingAdmissionPolicy{}
	})
}
