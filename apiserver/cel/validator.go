package cel

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// Validator runs the x-kubernetes-validations rules of one schema against
// objects. It mirrors the schema, but only down to the nodes that have rules;
// a schema without rules has a nil Validator, which validates nothing.
type Validator struct {
	typ          string
	rules        []*Rule
	compileErrs  []string // rules that no longer compile (stored before they were checked)
	props        map[string]*Validator
	additional   *Validator
	items        *Validator
	listMapKeys  []string // set for x-kubernetes-list-type: map, to find old elements
	schema       *api.JSONSchemaProps
	decl         *declType // how CEL sees the node: values are converted to it
	fieldPaths   [][]string
	mapAtomicOld bool // x-kubernetes-map-type: atomic, whose fields have no old value
}

// NewValidator compiles the rules of s; nil when s has none.
func NewValidator(s *api.JSONSchemaProps) (*Validator, error) {
	if !hasRules(s) {
		return nil, nil
	}
	base, err := BaseEnv()
	if err != nil {
		return nil, err
	}
	return build(base, s, schemaDeclType(s, true, selfTypeName)), nil
}

func build(base *cel.Env, s *api.JSONSchemaProps, t *declType) *Validator {
	if !hasRules(s) {
		return nil
	}
	v := &Validator{typ: s.Type, schema: s, decl: t}
	var envs *ruleEnvs
	if len(s.XValidations) > 0 {
		var err error
		if t == nil {
			err = unsupportedSchemaError(s)
		} else {
			envs, err = newRuleEnvs(base, t)
		}
		if err != nil {
			v.compileErrs = append(v.compileErrs, err.Error())
		}
	}
	for _, r := range s.XValidations {
		if envs == nil {
			break
		}
		compiled, cerr := envs.compileRule(r)
		if cerr != nil && cerr.field == "rule" {
			v.compileErrs = append(v.compileErrs, cerr.detail)
			continue
		}
		if cerr != nil {
			compiled.MessageExpression = nil
		}
		v.rules = append(v.rules, compiled)
		fp, _ := ParseFieldPath(r.FieldPath, s)
		v.fieldPaths = append(v.fieldPaths, fp)
	}
	for _, k := range sortedKeys(s.Properties) {
		prop := s.Properties[k]
		if c := build(base, &prop, fieldDecl(t, k)); c != nil {
			if v.props == nil {
				v.props = map[string]*Validator{}
			}
			v.props[k] = c
		}
	}
	if s.AdditionalProperties != nil {
		v.additional = build(base, s.AdditionalProperties.Schema, elemDecl(t))
	}
	if s.Items != nil {
		v.items = build(base, s.Items.Schema, elemDecl(t))
		if s.XListType != nil && *s.XListType == "map" {
			v.listMapKeys = s.XListMapKeys
		}
	}
	v.mapAtomicOld = s.XMapType != nil && *s.XMapType == "atomic"
	return v
}

// Validate runs the rules against obj (decoded JSON) at fldPath; old is the
// stored object on update, nil on create. All the rules of one object share
// RuntimeCELCostBudget.
func (v *Validator) Validate(ctx context.Context, fldPath *field.Path, obj, old any) field.ErrorList {
	if v == nil {
		return nil
	}
	budget := int64(RuntimeCELCostBudget)
	errs, _ := v.validate(ctx, fldPath, obj, old, true, budget)
	return errs
}

// validate returns the errors and the budget left (negative: stop).
func (v *Validator) validate(ctx context.Context, p *field.Path, obj, old any, hasOld bool, budget int64) (field.ErrorList, int64) {
	if v == nil || obj == nil {
		return nil, budget
	}
	errs, budget := v.runRules(ctx, p, obj, old, hasOld && old != nil, budget)
	if budget < 0 {
		return errs, budget
	}
	var more field.ErrorList
	switch t := obj.(type) {
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		if v.mapAtomicOld {
			oldMap = nil
		}
		for _, k := range sortedKeys(t) {
			child := v.props[k]
			cp := p.Child(k)
			if child == nil && v.additional != nil {
				child, cp = v.additional, p.Key(k)
			}
			if child == nil {
				continue
			}
			ov, ok := oldMap[k]
			more, budget = child.validate(ctx, cp, t[k], ov, ok, budget)
			errs = append(errs, more...)
			if budget < 0 {
				return errs, budget
			}
		}
	case []any:
		if v.items == nil {
			break
		}
		oldList, _ := old.([]any)
		for i, e := range t {
			ov, ok := v.oldElement(e, oldList)
			more, budget = v.items.validate(ctx, p.Index(i), e, ov, ok, budget)
			errs = append(errs, more...)
			if budget < 0 {
				return errs, budget
			}
		}
	}
	return errs, budget
}

// oldElement finds the old element of a map list with the same keys;
// elements of other lists have no old counterpart.
func (v *Validator) oldElement(e any, old []any) (any, bool) {
	if len(v.listMapKeys) == 0 {
		return nil, false
	}
	em, ok := e.(map[string]any)
	if !ok {
		return nil, false
	}
	for _, o := range old {
		om, ok := o.(map[string]any)
		if !ok {
			continue
		}
		same := true
		for _, k := range v.listMapKeys {
			if fmt.Sprint(em[k]) != fmt.Sprint(om[k]) {
				same = false
				break
			}
		}
		if same {
			return o, true
		}
	}
	return nil, false
}

func (v *Validator) runRules(ctx context.Context, p *field.Path, obj, old any, hasOld bool, budget int64) (field.ErrorList, int64) {
	var errs field.ErrorList
	if len(v.rules) == 0 && len(v.compileErrs) == 0 {
		return nil, budget
	}
	if budget <= 0 {
		return field.ErrorList{field.Invalid(p, v.typ, "validation failed due to running out of cost budget, no further validation rules will be run")}, -1
	}
	for _, d := range v.compileErrs {
		errs = append(errs, field.Invalid(p, v.typ, "rule compile error: "+d))
	}
	self := ToVal(typedValue(obj, v.decl))
	plain := map[string]any{"self": self}
	optional := map[string]any{"self": self, "oldSelf": types.OptionalNone}
	if hasOld {
		oldVal := ToVal(typedValue(old, v.decl))
		plain["oldSelf"] = oldVal
		optional["oldSelf"] = types.OptionalOf(oldVal)
	}
	for i, r := range v.rules {
		isOptional := r.Source.OptionalOldSelf != nil && *r.Source.OptionalOldSelf
		if r.UsesOldSelf && !hasOld && !isOptional {
			continue // a transition rule runs only when there is an old value
		}
		vars := plain
		if isOptional {
			vars = optional
		}
		result, details, err := r.Program.ContextEval(ctx, vars)
		var cost uint64
		if details != nil && details.ActualCost() != nil {
			cost = *details.ActualCost()
		}
		if cost > math.MaxInt64 || int64(cost) > budget {
			return append(errs, field.Invalid(p, v.typ, "validation failed due to running out of cost budget, no further validation rules will be run")), -1
		}
		budget -= int64(cost)
		if err != nil {
			msg := err.Error()
			switch {
			case strings.HasPrefix(msg, "no such overload"):
				errs = append(errs, field.Invalid(p, v.typ, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, ruleErrorString(r.Source))))
			case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
				return append(errs, field.Invalid(p, v.typ, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, ruleErrorString(r.Source)))), -1
			default:
				errs = append(errs, field.Invalid(p, v.typ, fmt.Sprintf("%v evaluating rule: %v", err, ruleErrorString(r.Source))))
			}
			continue
		}
		if result == types.True {
			continue
		}
		at := p
		for _, name := range v.fieldPaths[i] {
			at = at.Child(name)
		}
		detail, ok := "", false
		if r.MessageExpression != nil {
			var stop bool
			detail, ok, stop, budget = evalMessage(ctx, r, vars, budget)
			if stop {
				return append(errs, field.Invalid(at, v.typ, detail)), -1
			}
		}
		if !ok {
			detail = ruleMessageOrDefault(r.Source)
		}
		var value any = obj
		if v.typ == "object" || v.typ == "array" {
			value = field.OmitValue
		}
		errs = append(errs, fieldErrorForReason(at, value, detail, r.Source.Reason))
	}
	return errs, budget
}

// evalMessage evaluates a messageExpression. ok is false when it failed and
// the rule's message stands instead; stop when the budget ran out.
func evalMessage(ctx context.Context, r *Rule, vars map[string]any, budget int64) (msg string, ok, stop bool, left int64) {
	result, details, err := r.MessageExpression.ContextEval(ctx, vars)
	var cost uint64
	if details != nil && details.ActualCost() != nil {
		cost = *details.ActualCost()
	}
	if cost > math.MaxInt64 || int64(cost) > budget {
		return "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run", false, true, -1
	}
	budget -= int64(cost)
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			return fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", r.Source.MessageExpression), false, true, -1
		}
		return "", false, false, budget
	}
	s, isString := result.Value().(string)
	s = strings.TrimSpace(s)
	if !isString || s == "" || len(s) > MaxEvaluatedMessageExpressionSizeBytes || strings.ContainsAny(s, "\n\r") {
		return "", false, false, budget
	}
	return s, true, false, budget
}

func fieldErrorForReason(p *field.Path, value any, detail string, reason *string) *field.Error {
	if reason == nil {
		return field.Invalid(p, value, detail)
	}
	switch *reason {
	case "FieldValueForbidden":
		return field.Forbidden(p, detail)
	case "FieldValueRequired":
		return field.Required(p, detail)
	case "FieldValueDuplicate":
		return field.Duplicate(p, value)
	}
	return field.Invalid(p, value, detail)
}
