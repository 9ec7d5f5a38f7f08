package apiserver

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission/policy"
)

// TypeCheckPolicy type-checks a ValidatingAdmissionPolicy against the
// schemas of the kinds it matches, for the policy status controller (which
// gets it as a function: the real one reads the schemas from the server's
// OpenAPI and its RESTMapper).
func (s *Server) TypeCheckPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning {
	tc, err := policy.NewTypeChecker(s.resourceSchema)
	if err != nil {
		return nil
	}
	return tc.Check(p)
}

// resourceSchema is the kind and schema served at gvr.
func (s *Server) resourceSchema(gvr schema.GroupVersionResource) (schema.GroupVersionKind, *api.JSONSchemaProps, bool) {
	st, ok := s.Store(gvr.Group, gvr.Version, gvr.Resource)
	if !ok || st.Resource().Schema == nil {
		return schema.GroupVersionKind{}, nil, false
	}
	return st.Resource().GroupVersionKind(), st.Resource().Schema, true
}
