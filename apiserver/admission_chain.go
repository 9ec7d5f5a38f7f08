package apiserver

import (
	"context"
	"slices"

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
// whose change a later plugin sees, and whose refusal the client gets when
// two would refuse.
//
//  1. NamespaceLifecycle (validating) reads Namespaces. First: a create in
//     a namespace that is missing or terminating is refused before any
//     other plugin works on it.
//  2. LimitRanger (mutating, validating) reads the namespace's LimitRanges.
//     It fills in the containers' default requests and limits before any
//     later plugin reads them (ResourceQuota counts them).
//  3. ServiceAccount (mutating) reads ServiceAccounts; only with
//     Config.ServiceAccountAdmission. A new pod gets its account and the
//     token volume.
//  4. Priority (mutating, validating) reads PriorityClasses. A new pod's
//     priorityClassName becomes spec.priority.
//  5. DefaultStorageClass (mutating) reads StorageClasses. A new claim
//     that names no class gets the default one.
//  6. StorageObjectInUseProtection (mutating) reads nothing. A new claim
//     or volume gets its protection finalizer.
//  7. Config.Admission's plugins, in their order.
//  8. ValidatingAdmissionPolicy (validating) reads the policies and their
//     bindings (cached, admission_config_cache.go), their params, and
//     Namespaces.
//  9. NodeRestriction (validating) reads pods (an eviction names its pod);
//     only with the Node authorization mode. A kubelet writes only its own
//     Node and Lease, and only the pods bound to it.
//  10. Escalation (validating, rbacregistry) reads the roles and bindings
//     the authorizer caches, and asks the authorizer; only with the RBAC
//     authorization mode. A role or binding may grant only what its author
//     holds.
//  11. MutatingAdmissionWebhook reads the MutatingWebhookConfigurations
//     (cached) and Namespaces (namespaceSelector), and calls the webhooks.
//     After every built-in mutating plugin, so the webhooks see the object
//     as the cluster would store it.
//  12. ValidatingAdmissionWebhook reads the
//     ValidatingWebhookConfigurations (cached) and Namespaces, and calls
//     the webhooks (in parallel).
//  13. ResourceQuota (validating) reads the namespace's ResourceQuotas and
//     writes their status.used. Last: it charges the final object, and
//     only once every other plugin has admitted it.
//
// A new built-in plugin is one more line below, or one more entry in
// Config.Admission; a plugin is any value with Admit (mutating) and/or
// Validate (validating), see package admission.
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
	priorityClasses := listObjects[*api.PriorityClass](s, (*registry.Store).ListShared, api.SchedulingGroupName, "priorityclasses")
	storageClasses := listObjects[*api.StorageClass](s, (*registry.Store).List, api.StorageGroupName, "storageclasses")

	chain := admission.Chain{
		&admission.NamespaceLifecycle{
			Get:      s.namespace,
			Immortal: map[string]bool{"default": true, "kube-system": true, "kube-public": true},
		},
		&admission.LimitRanger{List: listObjects[*api.LimitRange](s, (*registry.Store).ListShared, "", "limitranges")},
	}
	if s.cfg.ServiceAccountAdmission {
		chain = append(chain, &admission.ServiceAccount{Get: getObject[*api.ServiceAccount](s, "serviceaccounts"), Suffix: s.ids.Suffix})
	}
	chain = append(chain,
		&admission.Priority{List: func(ctx context.Context) ([]*api.PriorityClass, error) { return priorityClasses(ctx, "") }},
		&admission.DefaultStorageClass{List: func(ctx context.Context) ([]*api.StorageClass, error) { return storageClasses(ctx, "") }},
		admission.StorageObjectInUseProtection{},
	)
	chain = append(chain, s.cfg.Admission...)
	chain = append(chain, vap)
	if slices.Contains(s.modes, authz.ModeNode) {
		chain = append(chain, nodeauthz.NodeRestriction{Pods: getObject[*api.Pod](s, "pods")})
	}
	if slices.Contains(s.modes, authz.ModeRBAC) {
		chain = append(chain, &rbacregistry.Escalation{Authorizer: s.authorizer, Rules: s.ruleLister, Source: s.rbac})
	}
	return append(chain,
		mutatingWebhook,
		validatingWebhook,
		&admission.ResourceQuota{List: listObjects[*api.ResourceQuota](s, (*registry.Store).List, "", "resourcequotas"), WriteStatus: s.writeQuotaStatus},
	), nil
}
