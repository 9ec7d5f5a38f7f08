package policy

import (
	"slices"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
)

var (
	failurePolicies   = []string{string(admissionregistrationv1.Fail), string(admissionregistrationv1.Ignore)}
	matchPolicies     = []string{string(admissionregistrationv1.Equivalent), string(admissionregistrationv1.Exact)}
	validationReasons = []string{string(metav1.StatusReasonForbidden), string(metav1.StatusReasonInvalid), string(metav1.StatusReasonRequestEntityTooLarge), string(metav1.StatusReasonUnauthorized)}
	validationActions = []string{string(admissionregistrationv1.Audit), string(admissionregistrationv1.Deny), string(admissionregistrationv1.Warn)}
	notFoundActions   = []string{string(admissionregistrationv1.AllowAction), string(admissionregistrationv1.DenyAction)}
	operations        = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
)

// SetPolicyDefaults fills the v1 defaults: failurePolicy Fail, and the
// match defaults.
func SetPolicyDefaults(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		f := admissionregistrationv1.Fail
		p.Spec.FailurePolicy = &f
	}
	setMatchDefaults(p.Spec.MatchConstraints)
}

// SetBindingDefaults fills the binding's match defaults.
func SetBindingDefaults(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	setMatchDefaults(b.Spec.MatchResources)
}

func setMatchDefaults(m *admissionregistrationv1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		e := admissionregistrationv1.Equivalent
		m.MatchPolicy = &e
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rules := range [][]admissionregistrationv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				s := admissionregistrationv1.AllScopes
				rules[i].Scope = &s
			}
		}
	}
}

// ValidatePolicy checks a policy as ValidateValidatingAdmissionPolicy
// does; every expression must compile.
func (c *Compiler) ValidatePolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	var errs field.ErrorList
	sp := field.NewPath("spec")
	s := &p.Spec
	if pk := s.ParamKind; pk != nil {
		pp := sp.Child("paramKind")
		if pk.Kind == "" {
			errs = append(errs, field.Required(pp.Child("kind"), ""))
		}
		if pk.APIVersion == "" {
			errs = append(errs, field.Required(pp.Child("apiVersion"), ""))
		} else if gv, err := schema.ParseGroupVersion(pk.APIVersion); err != nil || gv.Version == "" {
			errs = append(errs, field.Invalid(pp.Child("apiVersion"), pk.APIVersion, "must be a valid group/version"))
		}
	}
	if s.MatchConstraints == nil {
		errs = append(errs, field.Required(sp.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, validateMatchResources(s.MatchConstraints, sp.Child("matchConstraints"), true)...)
	}
	if s.FailurePolicy == nil {
		errs = append(errs, field.Required(sp.Child("failurePolicy"), ""))
	} else if !slices.Contains(failurePolicies, string(*s.FailurePolicy)) {
		errs = append(errs, field.NotSupported(sp.Child("failurePolicy"), string(*s.FailurePolicy), failurePolicies))
	}
	if len(s.Validations) == 0 && len(s.AuditAnnotations) == 0 {
		errs = append(errs, field.Required(sp.Child("validations"), "validations or auditAnnotations must contain at least one item"))
	}
	errs = append(errs, c.ValidateMatchConditions(s.MatchConditions, sp.Child("matchConditions"))...)
	seen := map[string]bool{}
	for i, v := range s.Variables {
		vp := sp.Child("variables").Index(i)
		switch {
		case v.Name == "":
			errs = append(errs, field.Required(vp.Child("name"), "name is not specified"))
		case !celIdentifier.MatchString(v.Name):
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, "name is not a valid CEL identifier"))
		case seen[v.Name]:
			errs = append(errs, field.Duplicate(vp.Child("name"), v.Name))
		}
		seen[v.Name] = true
		errs = append(errs, c.validateExpression(v.Expression, wantAny, vp.Child("expression"))...)
	}
	for i, v := range s.Validations {
		vp := sp.Child("validations").Index(i)
		errs = append(errs, c.validateExpression(v.Expression, wantBool, vp.Child("expression"))...)
		if strings.ContainsAny(v.Message, "\n\r") {
			errs = append(errs, field.Invalid(vp.Child("message"), v.Message, "message must not contain line breaks"))
		} else if v.Message == "" && strings.ContainsAny(strings.TrimSpace(v.Expression), "\n\r") {
			errs = append(errs, field.Required(vp.Child("message"), "message must be specified if expression contains line breaks"))
		}
		if v.Reason != nil && !slices.Contains(validationReasons, string(*v.Reason)) {
			errs = append(errs, field.NotSupported(vp.Child("reason"), string(*v.Reason), validationReasons))
		}
		if v.MessageExpression != "" {
			if strings.TrimSpace(v.MessageExpression) == "" {
				errs = append(errs, field.Required(vp.Child("messageExpression"), "must be non-empty if specified"))
			} else {
				errs = append(errs, c.validateExpression(v.MessageExpression, wantString, vp.Child("messageExpression"))...)
			}
		}
	}
	for i, a := range s.AuditAnnotations {
		ap := sp.Child("auditAnnotations").Index(i)
		if a.Key == "" {
			errs = append(errs, field.Required(ap.Child("key"), ""))
		}
		errs = append(errs, c.validateExpression(a.ValueExpression, wantAny, ap.Child("valueExpression"))...)
	}
	return errs
}

func (c *Compiler) validateExpression(expr string, want resultKind, p *field.Path) field.ErrorList {
	if strings.TrimSpace(expr) == "" {
		return field.ErrorList{field.Required(p, "expression is not specified")}
	}
	if _, err := c.Compile(expr, want); err != nil {
		return field.ErrorList{field.Invalid(p, expr, err.Error())}
	}
	return nil
}

// ValidateMatchConditions checks the matchConditions of a policy or of a
// webhook as validateMatchConditions does: at most 64, each expression a
// CEL bool that compiles, each name a qualified name used once. (A
// webhook's conditions are compiled in the policies' environment here,
// which has params besides what a webhook's has.)
func (c *Compiler) ValidateMatchConditions(conds []admissionregistrationv1.MatchCondition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > 64 {
		errs = append(errs, field.TooMany(p, len(conds), 64))
	}
	seen := map[string]bool{}
	for i, mc := range conds {
		mp := p.Index(i)
		errs = append(errs, c.validateExpression(mc.Expression, wantBool, mp.Child("expression"))...)
		if mc.Name == "" {
			errs = append(errs, field.Required(mp.Child("name"), ""))
			continue
		}
		for _, msg := range labels.IsQualifiedName(mc.Name) {
			errs = append(errs, field.Invalid(mp.Child("name"), mc.Name, msg))
		}
		if seen[mc.Name] {
			errs = append(errs, field.Duplicate(mp.Child("name"), mc.Name))
		}
		seen[mc.Name] = true
	}
	return errs
}

// ValidateBinding checks a binding as ValidateValidatingAdmissionPolicyBinding
// does.
func ValidateBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	var errs field.ErrorList
	sp := field.NewPath("spec")
	s := &b.Spec
	if s.PolicyName == "" {
		errs = append(errs, field.Required(sp.Child("policyName"), ""))
	}
	if r := s.ParamRef; r != nil {
		rp := sp.Child("paramRef")
		switch {
		case r.Name != "" && r.Selector != nil:
			errs = append(errs, field.Forbidden(rp.Child("name"), "name and selector are mutually exclusive"))
		case r.Name == "" && r.Selector == nil:
			errs = append(errs, field.Required(rp, "one of name or selector must be specified"))
		}
		if r.ParameterNotFoundAction == nil {
			errs = append(errs, field.Required(rp.Child("parameterNotFoundAction"), ""))
		} else if !slices.Contains(notFoundActions, string(*r.ParameterNotFoundAction)) {
			errs = append(errs, field.NotSupported(rp.Child("parameterNotFoundAction"), string(*r.ParameterNotFoundAction), notFoundActions))
		}
	}
	if s.MatchResources != nil {
		errs = append(errs, validateMatchResources(s.MatchResources, sp.Child("matchResources"), false)...)
	}
	ap := sp.Child("validationActions")
	if len(s.ValidationActions) == 0 {
		errs = append(errs, field.Required(ap, "at least one validation action is required"))
	}
	seen := map[admissionregistrationv1.ValidationAction]bool{}
	for i, a := range s.ValidationActions {
		switch {
		case !slices.Contains(validationActions, string(a)):
			errs = append(errs, field.NotSupported(ap.Index(i), string(a), validationActions))
		case seen[a]:
			errs = append(errs, field.Duplicate(ap.Index(i), string(a)))
		}
		seen[a] = true
	}
	if seen[admissionregistrationv1.Deny] && seen[admissionregistrationv1.Warn] {
		errs = append(errs, field.Invalid(ap, actionsValue(s.ValidationActions), "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	return errs
}

func validateMatchResources(m *admissionregistrationv1.MatchResources, p *field.Path, rulesRequired bool) field.ErrorList {
	var errs field.ErrorList
	if m.MatchPolicy == nil {
		errs = append(errs, field.Required(p.Child("matchPolicy"), ""))
	} else if !slices.Contains(matchPolicies, string(*m.MatchPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), string(*m.MatchPolicy), matchPolicies))
	}
	if rulesRequired && len(m.ResourceRules) == 0 {
		errs = append(errs, field.Required(p.Child("resourceRules"), ""))
	}
	for _, part := range []struct {
		name  string
		rules []admissionregistrationv1.NamedRuleWithOperations
	}{{"resourceRules", m.ResourceRules}, {"excludeResourceRules", m.ExcludeResourceRules}} {
		for i, r := range part.rules {
			rp := p.Child(part.name).Index(i)
			if len(r.Operations) == 0 {
				errs = append(errs, field.Required(rp.Child("operations"), ""))
			}
			for j, op := range r.Operations {
				if !slices.Contains(operations, string(op)) {
					errs = append(errs, field.NotSupported(rp.Child("operations").Index(j), string(op), operations))
				}
			}
			if len(r.APIGroups) == 0 {
				errs = append(errs, field.Required(rp.Child("apiGroups"), ""))
			}
			if len(r.APIVersions) == 0 {
				errs = append(errs, field.Required(rp.Child("apiVersions"), ""))
			}
			if len(r.Resources) == 0 {
				errs = append(errs, field.Required(rp.Child("resources"), ""))
			}
		}
	}
	return errs
}

// actionsValue prints validationActions as Kubernetes prints them in an
// error: the Go value of its internal type.
type actionsValue []admissionregistrationv1.ValidationAction

// GoString implements fmt.GoStringer for %#v.
func (a actionsValue) GoString() string {
	quoted := make([]string, len(a))
	for i, v := range a {
		quoted[i] = strconv.Quote(string(v))
	}
	return "[]admissionregistration.ValidationAction{" + strings.Join(quoted, ", ") + "}"
}
