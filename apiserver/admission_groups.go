package apiserver

import (
	"context"
	"fmt"

	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/kinds"
)

// groupPlugins are the built-in admission plugins of the node.k8s.io and
// certificates.k8s.io groups, in kube-apiserver's order (after
// StorageObjectInUseProtection, before the webhooks): RuntimeClass, then
// the certificate plugins (admission_chain.go places them).
func (s *Server) groupPlugins() []any {
	return []any{
		&admission.RuntimeClass{Get: s.runtimeClass},
		&admission.CertificateApproval{Authorizer: s.authorizer},
		&admission.CertificateSigning{Authorizer: s.authorizer},
		admission.CertificateSubjectRestriction{},
	}
}

// runtimeClass reads a RuntimeClass for the RuntimeClass plugin (shared:
// the plugin only reads it).
func (s *Server) runtimeClass(ctx context.Context, name string) (*nodev1.RuntimeClass, error) {
	st, ok := s.Store(kinds.NodeGroupName, "v1", "runtimeclasses")
	if !ok {
		return nil, api.NewNotFound(schema.GroupResource{Group: kinds.NodeGroupName, Resource: "runtimeclasses"}, name)
	}
	obj, err := st.GetShared(ctx, "", name)
	if err != nil {
		return nil, err
	}
	rc, ok := obj.(*nodev1.RuntimeClass)
	if !ok {
		return nil, api.NewInternalError(fmt.Errorf("runtimeclasses store returned %T", obj))
	}
	return rc, nil
}
