package kinds

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/admission/policy"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// --- admissionregistration.k8s.io/v1 webhook configurations
// (pkg/apis/admissionregistration/v1 defaults, .../validation) ---
//
// The group holds more kinds than these two (ValidatingAdmissionPolicy
// and its binding): each set of kinds is one function returning its
// resources, appended to Builtin; discovery groups them by group and
// version.

// webhookConfigurationResources serves MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration.
func webhookConfigurationResources(gen *schema.Generator) []*registry.Resource {
	// The webhooks' matchConditions compile as a policy's do.
	conditions, err := policy.NewCompiler()
	if err != nil {
		panic(err) // the environment is built from constants
	}
	return []*registry.Resource{
		{
			Group: api.AdmissionRegistrationGroupName, Version: "v1", Name: "mutatingwebhookconfigurations",
			SingularName: "mutatingwebhookconfiguration", Kind: "MutatingWebhookConfiguration",
			ListKind:            "MutatingWebhookConfigurationList",
			New:                 func() api.Object { return &admissionregistrationv1.MutatingWebhookConfiguration{} },
			StrategicMergePatch: true,
			Strategy:            mutatingWebhookStrategy{conditions: conditions},
			Schema:              gen.FromGoType(reflect.TypeOf(admissionregistrationv1.MutatingWebhookConfiguration{})),
			Table:               webhookConfigurationTable(func(o api.Object) int { return len(o.(*admissionregistrationv1.MutatingWebhookConfiguration).Webhooks) }),
		},
		{
			Group: api.AdmissionRegistrationGroupName, Version: "v1", Name: "validatingwebhookconfigurations",
			SingularName: "validatingwebhookconfiguration", Kind: "ValidatingWebhookConfiguration",
			ListKind:            "ValidatingWebhookConfigurationList",
			New:                 func() api.Object { return &admissionregistrationv1.ValidatingWebhookConfiguration{} },
			StrategicMergePatch: true,
			Strategy:            validatingWebhookStrategy{conditions: conditions},
			Schema:              gen.FromGoType(reflect.TypeOf(admissionregistrationv1.ValidatingWebhookConfiguration{})),
			Table: webhookConfigurationTable(func(o api.Object) int {
				return len(o.(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks)
			}),
		},
	}
}

// webhookConfigurationTable prints NAME, WEBHOOKS, AGE.
func webhookConfigurationTable(count func(api.Object) int) *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Webhooks", "integer", "Webhooks is a list of webhooks and the affected resources and operations."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			m := api.Meta(obj)
			return []any{m.Name, int64(count(obj)), age(m.CreationTimestamp.Time, now)}
		},
	}
}

type mutatingWebhookStrategy struct {
	registry.DefaultStrategy
	conditions *policy.Compiler
}

func (mutatingWebhookStrategy) Default(obj api.Object) {
	for i := range obj.(*admissionregistrationv1.MutatingWebhookConfiguration).Webhooks {
		w := &obj.(*admissionregistrationv1.MutatingWebhookConfiguration).Webhooks[i]
		defaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, &w.ClientConfig, w.Rules)
		if w.ReinvocationPolicy == nil {
			never := admissionregistrationv1.NeverReinvocationPolicy
			w.ReinvocationPolicy = &never
		}
	}
}

func (s mutatingWebhookStrategy) Validate(obj api.Object) field.ErrorList {
	c := obj.(*admissionregistrationv1.MutatingWebhookConfiguration)
	var errs field.ErrorList
	names := map[string]bool{}
	for i, w := range c.Webhooks {
		p := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(p, w.Name, names, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy,
			w.NamespaceSelector, w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions)...)
		errs = append(errs, s.conditions.ValidateMatchConditions(w.MatchConditions, p.Child("matchConditions"))...)
		if w.ReinvocationPolicy != nil && *w.ReinvocationPolicy != admissionregistrationv1.NeverReinvocationPolicy && *w.ReinvocationPolicy != admissionregistrationv1.IfNeededReinvocationPolicy {
			errs = append(errs, field.NotSupported(p.Child("reinvocationPolicy"), *w.ReinvocationPolicy, []string{"IfNeeded", "Never"}))
		}
	}
	return errs
}

func (s mutatingWebhookStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return s.Validate(obj)
}

type validatingWebhookStrategy struct {
	registry.DefaultStrategy
	conditions *policy.Compiler
}

func (validatingWebhookStrategy) Default(obj api.Object) {
	for i := range obj.(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks {
		w := &obj.(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks[i]
		defaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, &w.ClientConfig, w.Rules)
	}
}

func (s validatingWebhookStrategy) Validate(obj api.Object) field.ErrorList {
	c := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
	var errs field.ErrorList
	names := map[string]bool{}
	for i, w := range c.Webhooks {
		errs = append(errs, validateWebhook(field.NewPath("webhooks").Index(i), w.Name, names, w.ClientConfig, w.Rules,
			w.FailurePolicy, w.MatchPolicy, w.NamespaceSelector, w.ObjectSelector, w.SideEffects, w.TimeoutSeconds,
			w.AdmissionReviewVersions)...)
		errs = append(errs, s.conditions.ValidateMatchConditions(w.MatchConditions, field.NewPath("webhooks").Index(i).Child("matchConditions"))...)
	}
	return errs
}

func (s validatingWebhookStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return s.Validate(obj)
}

// defaultWebhook sets the v1 defaults both kinds share.
func defaultWebhook(fp **admissionregistrationv1.FailurePolicyType, mp **admissionregistrationv1.MatchPolicyType, ns, objSel **metav1.LabelSelector,
	timeout **int32, cc *admissionregistrationv1.WebhookClientConfig, rules []admissionregistrationv1.RuleWithOperations) {
	if *fp == nil {
		f := admissionregistrationv1.Fail
		*fp = &f
	}
	if *mp == nil {
		m := admissionregistrationv1.Equivalent
		*mp = &m
	}
	if *ns == nil {
		*ns = &metav1.LabelSelector{}
	}
	if *objSel == nil {
		*objSel = &metav1.LabelSelector{}
	}
	if *timeout == nil {
		t := int32(10)
		*timeout = &t
	}
	if cc.Service != nil && cc.Service.Port == nil {
		port := int32(443)
		cc.Service.Port = &port
	}
	for i := range rules {
		if rules[i].Scope == nil {
			all := admissionregistrationv1.AllScopes
			rules[i].Scope = &all
		}
	}
}

// validateWebhook is validateValidatingWebhook / validateMutatingWebhook's
// shared part, with Kubernetes' words.
func validateWebhook(p *field.Path, name string, seen map[string]bool, cc admissionregistrationv1.WebhookClientConfig,
	rules []admissionregistrationv1.RuleWithOperations, fp *admissionregistrationv1.FailurePolicyType, mp *admissionregistrationv1.MatchPolicyType,
	nsSel, objSel *metav1.LabelSelector, se *admissionregistrationv1.SideEffectClass, timeout *int32, versions []string) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateFullyQualifiedName(p.Child("name"), name)...)
	if name != "" && seen[name] {
		errs = append(errs, field.Duplicate(p.Child("name"), name))
	}
	seen[name] = true
	for i, r := range rules {
		errs = append(errs, validateRule(p.Child("rules").Index(i), r)...)
	}
	if fp != nil && *fp != admissionregistrationv1.Fail && *fp != admissionregistrationv1.Ignore {
		errs = append(errs, field.NotSupported(p.Child("failurePolicy"), *fp, []string{"Fail", "Ignore"}))
	}
	if mp != nil && *mp != admissionregistrationv1.Equivalent && *mp != admissionregistrationv1.Exact {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), *mp, []string{"Equivalent", "Exact"}))
	}
	switch {
	case se == nil:
		errs = append(errs, field.Required(p.Child("sideEffects"), "must specify one of None, NoneOnDryRun"))
	case *se != admissionregistrationv1.SideEffectClassNone && *se != admissionregistrationv1.SideEffectClassNoneOnDryRun:
		errs = append(errs, field.NotSupported(p.Child("sideEffects"), *se, []string{"None", "NoneOnDryRun"}))
	}
	if timeout != nil && (*timeout < 1 || *timeout > 30) {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), *timeout, "the timeout value must be between 1 and 30 seconds"))
	}
	errs = append(errs, validateReviewVersions(p.Child("admissionReviewVersions"), versions)...)
	for _, s := range []struct {
		name string
		sel  *metav1.LabelSelector
	}{{"namespaceSelector", nsSel}, {"objectSelector", objSel}} {
		if s.sel == nil {
			continue
		}
		if _, err := api.LabelSelectorAsSelector(s.sel); err != nil {
			errs = append(errs, field.Invalid(p.Child(s.name), s.sel, err.Error()))
		}
	}
	errs = append(errs, validateClientConfig(p.Child("clientConfig"), cc)...)
	return errs
}

// validateFullyQualifiedName: a DNS subdomain with at least three parts.
func validateFullyQualifiedName(p *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if msgs := labels.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(p, name, strings.Join(msgs, ","))}
	}
	if len(strings.Split(name, ".")) < 3 {
		return field.ErrorList{field.Invalid(p, name, "should be a domain with at least three segments separated by dots")}
	}
	return nil
}

func validateReviewVersions(p *field.Path, versions []string) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "must specify one of v1, v1beta1")}
	}
	var errs field.ErrorList
	known := false
	seen := map[string]bool{}
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
		}
		seen[v] = true
		for _, msg := range IsDNS1123Label(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, msg))
		}
		known = known || v == "v1" || v == "v1beta1"
	}
	if !known {
		errs = append(errs, field.Invalid(p, versions, "must include at least one of v1, v1beta1"))
	}
	return errs
}

func validateRule(p *field.Path, r admissionregistrationv1.RuleWithOperations) field.ErrorList {
	var errs field.ErrorList
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(p.Child("operations"), ""))
	}
	for i, op := range r.Operations {
		switch op {
		case admissionregistrationv1.OperationAll:
			if len(r.Operations) > 1 {
				ops := make([]string, len(r.Operations))
				for i, o := range r.Operations {
					ops[i] = string(o)
				}
				errs = append(errs, field.Invalid(p.Child("operations"), ops, "if '*' is present, must not specify other operations"))
			}
		case api.OperationCreate, api.OperationUpdate, api.OperationDelete, api.OperationConnect:
		default:
			errs = append(errs, field.NotSupported(p.Child("operations").Index(i), op, []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}))
		}
	}
	errs = append(errs, validateRuleList(p.Child("apiGroups"), r.APIGroups, "API groups", false)...)
	errs = append(errs, validateRuleList(p.Child("apiVersions"), r.APIVersions, "API versions", true)...)
	errs = append(errs, validateRuleResources(p.Child("resources"), r.Resources)...)
	if r.Scope != nil && *r.Scope != admissionregistrationv1.AllScopes && *r.Scope != admissionregistrationv1.ClusterScope && *r.Scope != admissionregistrationv1.NamespacedScope {
		errs = append(errs, field.NotSupported(p.Child("scope"), *r.Scope, []string{"*", "Cluster", "Namespaced"}))
	}
	return errs
}

func validateRuleList(p *field.Path, list []string, what string, noEmpty bool) field.ErrorList {
	var errs field.ErrorList
	if len(list) == 0 {
		return field.ErrorList{field.Required(p, "")}
	}
	for i, v := range list {
		if v == "*" && len(list) > 1 {
			errs = append(errs, field.Invalid(p, list, "if '*' is present, must not specify other "+what))
			break
		}
		if noEmpty && v == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
		}
	}
	return errs
}

func validateRuleResources(p *field.Path, resources []string) field.ErrorList {
	if len(resources) == 0 {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for i, r := range resources {
		if r == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
			continue
		}
		if r == "*/*" && len(resources) > 1 {
			errs = append(errs, field.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
		}
		if res, sub, ok := strings.Cut(r, "/"); ok && (res == "" || sub == "") {
			errs = append(errs, field.Invalid(p.Index(i), r, "resource and subresource must not be empty"))
		}
	}
	return errs
}

// validateClientConfig is webhook.ValidateWebhookURL / ValidateWebhookService.
func validateClientConfig(p *field.Path, cc admissionregistrationv1.WebhookClientConfig) field.ErrorList {
	var errs field.ErrorList
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(p, "exactly one of url or service is required")}
	case cc.URL != nil:
		up := p.Child("url")
		u, err := url.Parse(*cc.URL)
		if err != nil {
			return field.ErrorList{field.Invalid(up, *cc.URL, fmt.Sprintf("url must be a valid URL: %v", err))}
		}
		if u.Scheme != "https" {
			errs = append(errs, field.Invalid(up, u.Scheme, "'https' is the only allowed URL scheme"))
		}
		if u.Host == "" {
			errs = append(errs, field.Invalid(up, u.Host, "host must be specified"))
		}
		if u.User != nil {
			errs = append(errs, field.Invalid(up, u.User.String(), "user information is not permitted in the URL"))
		}
		if u.Fragment != "" {
			errs = append(errs, field.Invalid(up, u.Fragment, "fragments are not permitted in the URL"))
		}
		if u.RawQuery != "" {
			errs = append(errs, field.Invalid(up, u.RawQuery, "query parameters are not permitted in the URL"))
		}
	default:
		sp := p.Child("service")
		s := cc.Service
		if s.Name == "" {
			errs = append(errs, field.Required(sp.Child("name"), "service name is required"))
		}
		if s.Namespace == "" {
			errs = append(errs, field.Required(sp.Child("namespace"), "service namespace is required"))
		}
		// An empty path is the service's root, as "/" is
		// (ValidateWebhookService).
		if s.Path != nil && *s.Path != "" && !strings.HasPrefix(*s.Path, "/") {
			errs = append(errs, field.Invalid(sp.Child("path"), *s.Path, "must start with a '/'"))
		}
		if s.Port != nil && (*s.Port < 1 || *s.Port > 65535) {
			errs = append(errs, field.Invalid(sp.Child("port"), *s.Port, "port is not valid: must be between 1 and 65535, inclusive"))
		}
	}
	return errs
}
