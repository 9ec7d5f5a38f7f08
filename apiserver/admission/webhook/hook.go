package webhook

import (
	"time"

	"github.com/kubesim/kubesim/api"
)

// hook is one webhook of either kind, with its defaults applied (the
// stored object is defaulted already; these guard objects that were not).
type hook struct {
	// config is the configuration's name; key identifies the webhook in
	// one admission (for reinvocation).
	config, name, key  string
	clientConfig       Endpoint
	rules              []api.RuleWithOperations
	failurePolicy      api.FailurePolicyType
	matchPolicy        api.MatchPolicyType
	namespaceSelector  *api.LabelSelector
	objectSelector     *api.LabelSelector
	sideEffects        api.SideEffectClass
	timeout            time.Duration
	reviewVersions     []string
	reinvocationPolicy api.ReinvocationPolicyType
	matchConditions    []api.MatchCondition
	mutating           bool
}

func mutatingHooks(configs []api.MutatingWebhookConfiguration) []*hook {
	var out []*hook
	for _, c := range configs {
		for _, w := range c.Webhooks {
			h := newHook(c.Name, w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy,
				w.NamespaceSelector, w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions)
			h.mutating = true
			h.matchConditions = w.MatchConditions
			h.reinvocationPolicy = api.NeverReinvocationPolicy
			if w.ReinvocationPolicy != nil {
				h.reinvocationPolicy = *w.ReinvocationPolicy
			}
			out = append(out, h)
		}
	}
	return out
}

func validatingHooks(configs []api.ValidatingWebhookConfiguration) []*hook {
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

func newHook(config, name string, cc api.AdmissionWebhookClientConfig, rules []api.RuleWithOperations,
	fp *api.FailurePolicyType, mp *api.MatchPolicyType, nsSel, objSel *api.LabelSelector,
	se *api.SideEffectClass, timeout *int32, versions []string) *hook {
	h := &hook{config: config, name: name, key: config + "/" + name, clientConfig: AdmissionEndpoint(cc), rules: rules,
		failurePolicy: api.Fail, matchPolicy: api.Equivalent, namespaceSelector: nsSel, objectSelector: objSel,
		sideEffects: api.SideEffectClassUnknown, timeout: DefaultTimeout, reviewVersions: versions}
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
