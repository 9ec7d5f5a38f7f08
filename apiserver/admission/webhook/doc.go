// Package webhook is the admission chain's two webhook plugins: the
// mutating one calls every matching webhook of the
// MutatingWebhookConfigurations in order, applying each JSON patch before
// the next call (and calls a webhook with reinvocationPolicy IfNeeded once
// more when a later plugin changed the object); the validating one calls
// every matching webhook of the ValidatingWebhookConfigurations in
// parallel, and the first refusal is the answer.
//
// It simulates k8s.io/apiserver/pkg/admission/plugin/webhook (the
// generic dispatcher, the predicates of rules, namespaceSelector and
// objectSelector, and the mutating and validating dispatchers) with
// AdmissionReview admission.k8s.io/v1 only. A webhook is reached by URL or
// through its Service: the Service's ready endpoints, dialled through the
// cluster's pod network, with TLS checked against caBundle for the name
// <service>.<namespace>.svc. Each call has its webhook's timeout and runs
// with no store lock held.
//
// Subresource creates (pods/binding, pods/eviction) and CONNECTs
// (pods/exec, pods/attach, pods/portforward: the options as the object)
// reach the chain from the handler, so webhooks see them too. Rules are
// matched by package rules, which ValidatingAdmissionPolicies share.
//
// matchConditions are evaluated with the policies' CEL environment
// (object, oldObject, request; no authorizer variable).
//
// Left out: the AdmissionReview v1beta1 wire form, webhook authentication
// (--admission-control-config-file kubeconfigs), the configurations'
// informer (each admission lists them from the watch cache instead), and
// for matchPolicy Equivalent, conversion through a CRD's conversion webhook
// (a custom resource is shown to the webhook with only its apiVersion
// rewritten). Built-in versions of different shapes (autoscaling/v1 and v2
// HorizontalPodAutoscalers) are converted both ways, the webhook's patch
// applying to its own version. kubesim serves no resource under two groups
// (extensions/deployments and the like), so Equivalent spans versions only.
package webhook
