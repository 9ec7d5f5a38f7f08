// Package admission runs the plugins that may change or refuse a write after
// it is decoded and before it is stored: first every mutating plugin, then
// every validating one, as the real admission chain does.
//
// It simulates k8s.io/apiserver/pkg/admission and, as its first plugin,
// NamespaceLifecycle from k8s.io/apiserver/pkg/admission/plugin/namespace/
// lifecycle, then the storage plugins DefaultStorageClass and
// StorageObjectInUseProtection (plugin/pkg/admission/storage). Left out: webhooks (MutatingWebhookConfiguration,
// ValidatingWebhookConfiguration), ValidatingAdmissionPolicy, and every
// other built-in plugin (LimitRanger, ResourceQuota, ServiceAccount...).
package admission
