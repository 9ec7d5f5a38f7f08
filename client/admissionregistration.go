package client

import "github.com/kubesim/kubesim/api"

// ValidatingAdmissionPoliciesResource is admissionregistration.k8s.io/v1
// validatingadmissionpolicies.
var ValidatingAdmissionPoliciesResource = ResourceInfo{Group: api.AdmissionRegistrationGroupName, Version: "v1", Resource: "validatingadmissionpolicies"}

// ValidatingAdmissionPolicies is the typed client of admission policies.
func (c *Client) ValidatingAdmissionPolicies() *Resource[*api.ValidatingAdmissionPolicy] {
	return For(c, ValidatingAdmissionPoliciesResource, func() *api.ValidatingAdmissionPolicy { return &api.ValidatingAdmissionPolicy{} })
}
