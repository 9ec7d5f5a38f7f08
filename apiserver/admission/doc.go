// Package admission runs the plugins that may change or refuse a write after
// it is decoded and before it is stored: first every mutating plugin, then
// every validating one, as the real admission chain does.
//
// It simulates k8s.io/apiserver/pkg/admission and, as its first plugin,
// NamespaceLifecycle from k8s.io/apiserver/pkg/admission/plugin/namespace/
// lifecycle. Left out: webhooks (MutatingWebhookConfiguration,
// ValidatingWebhookConfiguration), ValidatingAdmissionPolicy, and every
// other built-in plugin but ServiceAccount, LimitRanger, Priority and
// ResourceQuota (issue 12 part 6: limitranger.go, priority.go,
// resourcequota.go).
package admission
