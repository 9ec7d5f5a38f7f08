package apiserver

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/admission/policy"
	"github.com/kubesim/kubesim/apiserver/admission/webhook"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/nodeauthz"
	"github.com/kubesim/kubesim/apiserver/rbacregistry"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// admissionChain builds the admission chain every store runs on a client's
// write: the one place its plugins are chosen and ordered. The chain runs
// every mutating plugin in this order, then (after the kind's own
// validation) every validating one in this order, so the order decides
// whose change a later plugin sees, and whose refusal the client (and the
// trace) gets when two would refuse.
//
// The order is kube-apiserver's recommended one (AllOrderedPlugins in
// pkg/kubeapiserver/options/plugins.go), kept to the plugins kubesim has:
//
//  1. NamespaceLifecycle (validating) reads Namespaces. It refuses a create
//     in a namespace that is missing or terminating, and the deletion of
//     default, kube-system and kube-public. First, so that such a write
//     gets that answer whatever else would refuse it.
//  2. LimitRanger (mutating, validating) reads the namespace's LimitRanges.
//     It fills in the containers' default requests and limits before any
//     later plugin reads them (ResourceQuota counts them).
//  3. ServiceAccount (mutating) reads ServiceAccounts; only with
//     Config.ServiceAccountAdmission. A new pod gets its account and the
//     token volume.
//  4. NodeRestriction (validating) reads pods (an eviction names its pod
//     but carries none); only with the Node authorization mode. A kubelet
//     writes only its own Node and Lease, and only the pods bound to it.
//     Right after ServiceAccount, so a kubelet that oversteps is refused
//     for that, whatever a policy or webhook would have said.
//  5. Priority (mutating, validating) reads PriorityClasses. A new pod's
//     priorityClassName becomes spec.priority; a missing class refuses it.
//     Then DefaultTolerationSeconds (mutating) reads nothing: a new pod
//     gets its 300-second not-ready and unreachable tolerations.
//  6. DefaultStorageClass (mutating) reads StorageClasses. A new claim
//     that names no class gets the default one.
//  7. StorageObjectInUseProtection (mutating) reads nothing. A new claim
//     or volume gets its protection finalizer.
//  8. RuntimeClass (mutating, validating) reads RuntimeClasses. A new pod
//     that names one gets its overhead and scheduling constraints; a
//     missing class refuses it. Then CertificateApproval,
//     CertificateSigning and CertificateSubjectRestriction (validating) ask
//     the authorizer whether the user may approve or sign for a CSR's
//     signer, and refuse a kube-apiserver-client CSR for system:masters
//     (admission_groups.go).
//  9. DefaultIngressClass (mutating) reads IngressClasses. A new Ingress
//     that names no class gets the default one.
//  10. Config.Admission's plugins, in their order: where kube-apiserver
//     says new built-in plugins go, after the others and before the
//     webhooks.
//  11. Escalation (validating, rbacregistry) reads the roles and bindings
//     the authorizer caches, and asks the authorizer; only with the RBAC
//     authorization mode. A role or binding may grant only what its author
//     holds. kube-apiserver checks this in the RBAC resources' storage
//     (pkg/registry/rbac/.../policybased), after the mutating plugins and
//     before the validating ones, not in a plugin; here it is a validating
//     plugin (it must see the defaulted object and the user), placed
//     before the policies and webhooks so that it still refuses first.
//  12. MutatingAdmissionWebhook reads the MutatingWebhookConfigurations
//     (cached, admission_config_cache.go) and Namespaces (namespaceSelector),
//     and calls the webhooks. After every built-in mutating plugin, so the
//     webhooks see the object as the built-in plugins left it.
//  13. ValidatingAdmissionPolicy (validating) reads the policies and their
//     bindings (cached), their params, and Namespaces.
//  14. ValidatingAdmissionWebhook reads the
//     ValidatingWebhookConfigurations (cached) and Namespaces, and calls
//     the webhooks (in parallel).
//  15. ResourceQuota (validating) reads the namespace's ResourceQuotas and
//     writes their status.used. Last: it charges the final object, and
//     only once every other plugin has admitted it.
//
// kube-apiserver's NamespaceLifecycle and NodeRestriction refuse in the
// mutating phase (they implement Admit); kubesim's in the validating one,
// so here a mutating plugin may see a write they will refuse.
//
// A new built-in plugin is one more line below, or one more entry in
// Config.Admission; a plugin is any value with Admit (mutating) and/or
// Validate (validating), see package admission. TestAdmissionChainOrder
// pins this order.
func (s *Server) admissionChain() (admission.Chain, error) {
	vap, err := policy.NewPlugin(policySource{s}, admission.AddWarning)
	if err != nil {
		return nil, err
	}
	conditions, err := policy.NewConditions() // the webhooks' matchConditions
	if err != nil {
		return nil, err
	}
	mutatingWebhook, validatingWebhook := webhook.New(webhook.Config{
		Conditions:  conditions,
		Mutating:    s.mutatingWebhooks,
		Validating:  s.validatingWebhooks,
		Namespace:   s.namespace,
		Equivalents: s.equivalents,
		Convert:     s.convertVersion,
		Resolve:     s.resolveService,
		Dial:        s.cfg.WebhookDial,
		UID:         s.ids.UID,
	})
	// LimitRanger and Priority only read what they list (every pod create
	// lists both): shared objects, decoded once per revision.
	// ResourceQuota changes the quotas it lists, so it lists copies.
	priorityClasses := listObjects[*schedulingv1.PriorityClass](s, (*registry.Store).ListShared, api.SchedulingGroupName, "priorityclasses")
	storageClasses := listObjects[*storagev1.StorageClass](s, (*registry.Store).List, api.StorageGroupName, "storageclasses")
	ingressClasses := listObjects[*networkingv1.IngressClass](s, (*registry.Store).ListShared, networkingv1.GroupName, "ingressclasses")

	chain := admission.Chain{
		&admission.NamespaceLifecycle{
			Get:      s.namespace,
			Immortal: map[string]bool{"default": true, "kube-system": true, "kube-public": true},
		},
		&admission.LimitRanger{List: listObjects[*corev1.LimitRange](s, (*registry.Store).ListShared, "", "limitranges")},
	}
	if s.cfg.ServiceAccountAdmission {
		chain = append(chain, &admission.ServiceAccount{Get: getObject[*corev1.ServiceAccount](s, "serviceaccounts"), Suffix: s.ids.Suffix})
	}
	if slices.Contains(s.modes, authz.ModeNode) {
		chain = append(chain, nodeauthz.NodeRestriction{Pods: getObject[*corev1.Pod](s, "pods")})
	}
	chain = append(chain,
		&admission.Priority{List: func(ctx context.Context) ([]*schedulingv1.PriorityClass, error) { return priorityClasses(ctx, "") }},
		admission.DefaultTolerationSeconds{Seconds: int64(s.cfg.DefaultTolerationSeconds / time.Second)},
		&admission.DefaultStorageClass{List: func(ctx context.Context) ([]*storagev1.StorageClass, error) { return storageClasses(ctx, "") }},
		admission.StorageObjectInUseProtection{},
	)
	chain = append(chain, s.groupPlugins()...) // RuntimeClass, the certificate plugins (admission_groups.go)
	chain = append(chain, &admission.DefaultIngressClass{List: func(ctx context.Context) ([]*networkingv1.IngressClass, error) { return ingressClasses(ctx, "") }})
	chain = append(chain, s.cfg.Admission...)
	if slices.Contains(s.modes, authz.ModeRBAC) {
		chain = append(chain, &rbacregistry.Escalation{Authorizer: s.authorizer, Rules: s.ruleLister, Source: s.rbac})
	}
	return append(chain,
		mutatingWebhook,
		vap,
		validatingWebhook,
		&admission.ResourceQuota{List: listObjects[*corev1.ResourceQuota](s, (*registry.Store).List, "", "resourcequotas"), WriteStatus: s.writeQuotaStatus},
	), nil
}
