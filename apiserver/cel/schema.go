package cel

import (
	"fmt"

	"github.com/google/cel-go/cel"
	"slices"
	"strings"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// validReasons are the values x-kubernetes-validations[].reason may take.
var validReasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

// ValidateSchema makes the CRD API's checks on every x-kubernetes-validations
// rule of the schema s at fldPath (…openAPIV3Schema): each rule compiles,
// is a bool, uses oldSelf only where an old value can be found, and stays
// within the estimated cost budget, alone and with all the others.
func ValidateSchema(s *api.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	if s == nil || !hasRules(s) {
		return nil
	}
	base, err := BaseEnv()
	if err != nil {
		return field.ErrorList{field.InternalError(fldPath, err)}
	}
	c := &schemaChecker{base: base}
	c.walk(s, schemaDeclType(s, true, selfTypeName), fldPath, 1, "")
	if c.total > StaticEstimatedCRDCostLimit {
		for _, p := range c.contributors {
			c.errs = append(c.errs, field.Forbidden(p, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		c.errs = append(c.errs, field.Forbidden(fldPath, "x-kubernetes-validations "+CostErrorMessage("estimated rule cost total for entire OpenAPIv3 schema", c.total, StaticEstimatedCRDCostLimit)))
	}
	return c.errs
}

type schemaChecker struct {
	base         *cel.Env
	errs         field.ErrorList
	total        uint64
	contributors []*field.Path
}

// walk checks the rules of s and its children; t is how CEL sees s (nil
// when it cannot). card is how many times a rule on s can run per object;
// uncorrelatable names the list above s whose elements have no old
// counterpart ("" when there is none).
func (c *schemaChecker) walk(s *api.JSONSchemaProps, t *declType, p *field.Path, card uint64, uncorrelatable string) {
	if s == nil {
		return
	}
	if len(s.XValidations) > 0 {
		envs, err := c.envsFor(s, t)
		if err != nil {
			c.errs = append(c.errs, field.InternalError(p.Child("x-kubernetes-validations"), err))
		} else {
			for i, r := range s.XValidations {
				c.checkRule(r, s, envs, p.Child("x-kubernetes-validations").Index(i), card, uncorrelatable)
			}
		}
	}
	for _, k := range sortedKeys(s.Properties) {
		prop := s.Properties[k]
		c.walk(&prop, fieldDecl(t, k), p.Child("properties").Key(k), card, uncorrelatable)
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		c.walk(ap.Schema, elemDecl(t), p.Child("additionalProperties"), cardinality(card, t), uncorrelatable)
	}
	if s.Items != nil && s.Items.Schema != nil {
		next := uncorrelatable
		if next == "" && (s.XListType == nil || *s.XListType != "map") {
			next = p.String()
		}
		c.walk(s.Items.Schema, elemDecl(t), p.Child("items"), cardinality(card, t), next)
	}
}

func (c *schemaChecker) envsFor(s *api.JSONSchemaProps, t *declType) (*ruleEnvs, error) {
	if t == nil {
		return nil, unsupportedSchemaError(s)
	}
	return newRuleEnvs(c.base, t)
}

// fieldDecl is the type of t's field named name as it appears in objects.
func fieldDecl(t *declType, name string) *declType {
	if t == nil || !t.isObject() {
		return nil
	}
	if f, ok := t.byJSONName[name]; ok {
		return f.typ
	}
	return nil
}

// elemDecl is the type of a list's items or a map's values.
func elemDecl(t *declType) *declType {
	if t == nil {
		return nil
	}
	return t.elem
}

func (c *schemaChecker) checkRule(r api.ValidationRule, s *api.JSONSchemaProps, envs *ruleEnvs, p *field.Path, card uint64, uncorrelatable string) {
	rp := p.Child("rule")
	if strings.TrimSpace(r.Rule) == "" {
		c.errs = append(c.errs, field.Required(rp, "rule is not specified"))
		return
	}
	if r.Reason != nil && !slices.Contains(validReasons, *r.Reason) {
		c.errs = append(c.errs, field.NotSupported(p.Child("reason"), *r.Reason, validReasons))
	}
	if strings.ContainsAny(r.Message, "\n\r") {
		c.errs = append(c.errs, field.Invalid(p.Child("message"), r.Message, "message must not contain line breaks"))
	}
	if r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) == "" {
		c.errs = append(c.errs, field.Required(p.Child("messageExpression"), "messageExpression must be non-empty if specified"))
	}
	if r.FieldPath != "" {
		if _, err := ParseFieldPath(r.FieldPath, s); err != nil {
			c.errs = append(c.errs, field.Invalid(p.Child("fieldPath"), r.FieldPath, "fieldPath must be a valid path: "+err.Error()))
		}
	}
	compiled, cerr := envs.compileRule(r)
	if cerr != nil && cerr.field == "rule" {
		c.errs = append(c.errs, field.Invalid(rp, ruleValue(r), cerr.detail))
		return
	}
	if cerr != nil {
		c.errs = append(c.errs, field.Invalid(p.Child("messageExpression"), r.MessageExpression, cerr.detail))
	}
	if compiled.UsesOldSelf && uncorrelatable != "" {
		c.errs = append(c.errs, field.Invalid(rp, r.Rule, "oldSelf cannot be used on the uncorrelatable portion of the schema within "+uncorrelatable))
	}
	if r.OptionalOldSelf != nil && *r.OptionalOldSelf && !compiled.UsesOldSelf {
		c.errs = append(c.errs, field.Invalid(p.Child("optionalOldSelf"), true, "may not be set if rule does not use oldSelf"))
	}
	c.observe(rp, "estimated rule cost", multiply(compiled.MaxCost, card))
	if compiled.MessageExpression != nil {
		c.observe(p.Child("messageExpression"), "estimated messageExpression cost", multiply(compiled.MessageMaxCost, card))
	}
}

// observe checks one expression's estimated cost against the per-rule limit
// and adds it to the schema's total.
func (c *schemaChecker) observe(p *field.Path, name string, cost uint64) {
	if cost > StaticEstimatedCostLimit {
		c.errs = append(c.errs, field.Forbidden(p, CostErrorMessage(name, cost, StaticEstimatedCostLimit)))
	}
	if c.total+cost < c.total {
		c.total = ^uint64(0)
	} else {
		c.total += cost
	}
	// Kubernetes names the expressions that weigh in the total: those over
	// a hundredth of it.
	if cost > StaticEstimatedCRDCostLimit/100 {
		c.contributors = append(c.contributors, p)
	}
}

func hasRules(s *api.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 {
		return true
	}
	for _, p := range s.Properties {
		if hasRules(&p) {
			return true
		}
	}
	if s.AdditionalProperties != nil && hasRules(s.AdditionalProperties.Schema) {
		return true
	}
	return s.Items != nil && hasRules(s.Items.Schema)
}

// ruleValue prints a rule as Kubernetes prints it in a compile error: the
// Go value of its internal apiextensions.ValidationRule.
type ruleValue api.ValidationRule

// GoString implements fmt.GoStringer for %#v.
func (r ruleValue) GoString() string {
	reason := "(*apiextensions.FieldValueErrorReason)(nil)"
	if r.Reason != nil {
		reason = fmt.Sprintf("(*apiextensions.FieldValueErrorReason)(%q)", *r.Reason)
	}
	optional := "(*bool)(nil)"
	if r.OptionalOldSelf != nil {
		optional = fmt.Sprintf("(*bool)(%v)", *r.OptionalOldSelf)
	}
	return fmt.Sprintf("apiextensions.ValidationRule{Rule:%q, Message:%q, MessageExpression:%q, Reason:%s, FieldPath:%q, OptionalOldSelf:%s}",
		r.Rule, r.Message, r.MessageExpression, reason, r.FieldPath, optional)
}

// ParseFieldPath splits a rule's fieldPath (".spec.x", ".m['key']") into
// field names, checking that each names a field of the schema s.
func ParseFieldPath(path string, s *api.JSONSchemaProps) ([]string, error) {
	var out []string
	rest := path
	for rest != "" {
		var name string
		switch {
		case strings.HasPrefix(rest, "['"):
			end := strings.Index(rest[2:], "']")
			if end < 0 {
				return nil, fmt.Errorf("unexpected end of JSON path")
			}
			name, rest = rest[2:2+end], rest[2+end+2:]
		case rest[0] == '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			name, rest = rest[:end], rest[end:]
			if name == "" {
				return nil, fmt.Errorf("unexpected end of JSON path")
			}
		default:
			return nil, fmt.Errorf("expected [ or . but got: %s", rest)
		}
		next := childSchema(s, name)
		if next == nil || (s.Items != nil && s.Items.Schema == next) {
			return nil, fmt.Errorf("does not refer to a valid field")
		}
		s = next
		out = append(out, name)
	}
	return out, nil
}
