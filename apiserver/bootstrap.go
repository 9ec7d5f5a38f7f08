package apiserver

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/rbacregistry"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// The objects every cluster has from its start, made by Bootstrap before
// the server serves: kube-apiserver makes most of them in post-start hooks
// (start-system-namespaces-controller, rbac/bootstrap-roles,
// scheduling/bootstrap-system-priority-classes). Each is created only if
// it does not exist yet, so a restart over the same store keeps what was
// changed since; the default RBAC roles and bindings are reconciled
// instead, as kube-apiserver's are (rbacregistry.Bootstrap).

// SystemNamespaces exist from the start, as in every cluster.
var SystemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// Bootstrap serves again the custom resources of the CRDs already stored,
// reconciles the default RBAC roles and bindings (with RBAC
// authorization), and creates what is missing of the system namespaces,
// the system PriorityClasses, API Priority and Fairness's default
// FlowSchemas and PriorityLevelConfigurations and (with the
// ServiceAccount admission plugin) the system namespaces' "default"
// ServiceAccounts.
func (s *Server) Bootstrap(ctx context.Context) (err error) {
	defer func() {
		if err == nil {
			s.bootstrapped.Store(true) // the health checks' post-start hook
		}
	}()
	if s.crds != nil {
		if err := s.crds.Restore(ctx); err != nil {
			return fmt.Errorf("serving stored CustomResourceDefinitions: %w", err)
		}
	}
	if slices.Contains(s.modes, authz.ModeRBAC) && !s.cfg.GenericOnly {
		if err := rbacregistry.Bootstrap(ctx, s.Store); err != nil {
			return fmt.Errorf("bootstrap RBAC policy: %w", err)
		}
	}
	st, ok := s.Store("", "v1", "namespaces")
	if !ok {
		return nil
	}
	for _, name := range SystemNamespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if _, err := st.Create(ctx, "", ns, registry.CreateOptions{}); err != nil && !api.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", name, err)
		}
	}
	if err := s.bootstrapPriorityClasses(ctx); err != nil {
		return err
	}
	if err := s.bootstrapFlowControl(ctx); err != nil { // bootstrap_flowcontrol.go
		return fmt.Errorf("bootstrap API Priority and Fairness: %w", err)
	}
	return s.bootstrapServiceAccounts(ctx)
}

// bootstrapPriorityClasses creates system-node-critical and
// system-cluster-critical, as kube-apiserver's
// scheduling/bootstrap-system-priority-classes post-start hook does.
func (s *Server) bootstrapPriorityClasses(ctx context.Context) error {
	st, ok := s.Store(api.SchedulingGroupName, "v1", "priorityclasses")
	if !ok || s.cfg.GenericOnly {
		return nil
	}
	for _, pc := range kinds.SystemPriorityClasses() {
		if _, err := st.Create(ctx, "", pc, registry.CreateOptions{}); err != nil && !api.IsAlreadyExists(err) {
			return fmt.Errorf("creating priority class %s: %w", pc.Name, err)
		}
	}
	return nil
}

// bootstrapServiceAccounts creates the "default" ServiceAccount of the
// system namespaces when the ServiceAccount admission plugin is on. In
// Kubernetes the serviceaccount controller makes them within a second of
// the start, and the plugin waits up to a second for a missing "default";
// kubesim's plugin never waits (step mode must not block), so the first
// pods, created right after the start, find their account here. The
// controller makes the others and remakes these if deleted.
func (s *Server) bootstrapServiceAccounts(ctx context.Context) error {
	st, ok := s.Store("", "v1", "serviceaccounts")
	if !s.cfg.ServiceAccountAdmission || !ok {
		return nil
	}
	for _, ns := range SystemNamespaces {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: admission.DefaultServiceAccountName, Namespace: ns}}
		if _, err := st.Create(ctx, ns, sa, registry.CreateOptions{}); err != nil && !api.IsAlreadyExists(err) {
			return fmt.Errorf("creating service account %s/%s: %w", ns, sa.Name, err)
		}
	}
	return nil
}
