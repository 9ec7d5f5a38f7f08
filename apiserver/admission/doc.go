// Package admission is the admission chain: the ordered plugins that may
// change or refuse a client's write after it is decoded and before it is
// stored. The registry (apiserver/registry) runs it at the two points
// kube-apiserver does: the mutating plugins once the object is defaulted
// (Chain.Mutate), the validating plugins once the kind's own validation
// passed (Chain.Validate). Nothing is stored when either refuses.
//
// It simulates k8s.io/apiserver/pkg/admission: Attributes,
// MutationInterface and ValidationInterface, Handles (Handler here), the
// chain with its reinvocation (a plugin that asked for it is called once
// more when a later plugin changed the object; built-in plugins run again
// too; never a third time). Its built-in plugins are NamespaceLifecycle
// (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle),
// ServiceAccount (plugin/pkg/admission/serviceaccount), the storage
// plugins DefaultStorageClass and StorageObjectInUseProtection
// (plugin/pkg/admission/storage), DefaultIngressClass
// (plugin/pkg/admission/network/defaultingressclass),
// DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds,
// in defaulttolerationseconds.go); the
// ValidatingAdmissionPolicy plugin is in package policy, the webhook
// plugins in package webhook; LimitRanger, Priority and ResourceQuota
// (plugin/pkg/admission/limitranger, priority, resourcequota) are in
// limitranger.go, priority.go and resourcequota.go; RuntimeClass
// (plugin/pkg/admission/runtimeclass) in runtimeclass.go; and the
// certificate plugins CertificateApproval, CertificateSigning and
// CertificateSubjectRestriction (plugin/pkg/admission/certificates) in
// certificates.go.
//
// Adding a plugin: write a type with
//
//	Admit(ctx context.Context, a *admission.Attributes) error    // mutating: may change a.Object
//	Validate(ctx context.Context, a *admission.Attributes) error // validating: may only refuse
//
// (either or both), optionally Handles(op Operation) bool to see only some
// operations and PluginName() string to name it in the trace, and add it
// with one line to the chain apiserver/admission_chain.go builds (or to
// apiserver.Config.Admission); that file lists every plugin in order, with
// what it reads and why it sits where it does. Built-in plugins go before
// the webhooks, as in kube-apiserver's default order; ResourceQuota, which
// must see the final object, goes last.
//
// Visible: every change a plugin makes (as a JSON patch) and every refusal
// is a Step, recorded in the request's Record; the handlers send them with
// the answer and the stepper prints them under the write in the trace.
//
// Measured (metrics.go): each half of the chain, each plugin call (a
// webhook plugin's call as a whole, besides each webhook's) and each
// webhook call, when the API server put its Metrics in the write's
// context. Left out: the admission configuration file
// (--admission-control-config-file) and the ObjectInterfaces argument
// (kubesim has one version per kind).
package admission
