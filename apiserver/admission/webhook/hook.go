package webhook

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hook is one webhook of either kind, with its defaults applied (the
// stored object is defaulted already; these guard objects that were not).
type hook struct {
	// config is the configuration's name; key identifies the webhook in
	// one admission (for reinvocation).
	config, name, key  string
	clientConfig       Endpoint
	rules              []admissionregistrationv1.RuleWithOperations
	failurePolicy      admissionregistrationv1.FailurePolicyType
	matchPolicy        admissionregistrationv1.MatchPolicyType
	namespaceSelector  *metav1.LabelSelector
	objectSelector     *metav1.LabelSelector
	sideEffects        admissionregistrationv1.SideEffectClass
	timeout            time.Duration
	reviewVersions     []string
	reinvocationPolicy admissionregistrationv1.ReinvocationPolicyType
	matchConditions    []admissionregistrationv1.MatchCondition
	mutating           bool
}

func mutatingHooks(configs []admissionregistrationv1.MutatingWebhookConfiguration) []*hook {
	var out []*hook
	for _, c := range configs {
		for _, w := range c.Webhooks {
			h := newHook(c.Name, w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy,
				w.NamespaceSelector, w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions)
			h.mutating = true
			h.matchConditions = w.MatchConditions
			h.reinvocationPolicy = admissionregistrationv1.NeverReinvocationPolicy
			if w.ReinvocationPolicy != nil {
				h.reinvocationPolicy = *w.ReinvocationPolicy
			}
			out = append(out, h)
		}
	}
	return out
}

func validatingHooks(configs []admissionregistrationv1.ValidatingWebhookConfiguration) []*hook {
	var out []*hook
	for _, c := range configs {
		for _, w := range c.Webhooks {
			h := newHook(c.Name, w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy,
				w.NamespaceSelector, w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions)
			h.matchConditions = w.MatchConditions
			out = append(out, h)
		}
	}
	return out
}

func newHook(config, name string, cc admissionregistrationv1.WebhookClientConfig, rules []admissionregistrationv1.RuleWithOperations,
	fp *admissionregistrationv1.FailurePolicyType, mp *admissionregistrationv1.MatchPolicyType, nsSel, objSel *metav1.LabelSelector,
	se *admissionregistrationv1.SideEffectClass, timeout *int32, versions []string) *hook {
	h := &hook{config: config, name: name, key: config + "/" + name, clientConfig: AdmissionEndpoint(cc), rules: rules,
		failurePolicy: admissionregistrationv1.Fail, matchPolicy: admissionregistrationv1.Equivalent, namespaceSelector: nsSel, objectSelector: objSel,
		sideEffects: admissionregistrationv1.SideEffectClassUnknown, timeout: DefaultTimeout, reviewVersions: versions}
	if fp != nil {
		h.failurePolicy = *fp
	}
	if mp != nil {
		h.matchPolicy = *mp
	}
	if se != nil {
		h.sideEffects = *se
	}
	if timeout != nil {
		h.timeout = time.Duration(*timeout) * time.Second
	}
	return h
}

// DefaultTimeout is a webhook's timeout when timeoutSeconds is unset.
const DefaultTimeout = 10 * time.Second
