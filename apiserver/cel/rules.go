package cel

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"

	"github.com/kubesim/kubesim/api"
)

// Rule is one compiled x-kubernetes-validations rule.
type Rule struct {
	Source            api.ValidationRule
	Program           cel.Program
	MessageExpression cel.Program // nil when the rule has none
	// UsesOldSelf makes it a transition rule: it runs only on update, when
	// there is an old value to compare with (unless optionalOldSelf).
	UsesOldSelf bool
	// MaxCost is cel-go's estimate of the rule's cost (and its message
	// expression's), per run.
	MaxCost, MessageMaxCost uint64
}

// ruleEnvs are the two environments the rules of one schema node compile
// in: oldSelf as a plain value, or (optionalOldSelf: true) as an optional
// one. self and oldSelf have the node's type, declared from the schema.
type ruleEnvs struct {
	plain, optional *cel.Env
	decl            *declType
}

// selfTypeName names the object type of a rule's self. Kubernetes makes the
// name unique per CRD write (so that no rule can depend on it); kubesim keeps
// it fixed so that messages are the same every run.
const selfTypeName = "selfType0"

// newRuleEnvs declares self and oldSelf with the type decl: base is
// BaseEnv(), built once per schema.
func newRuleEnvs(base *cel.Env, decl *declType) (*ruleEnvs, error) {
	provider := &schemaTypeProvider{Provider: base.CELTypeProvider(), objects: objectTypes(decl, map[string]*declType{})}
	plain, err := base.Extend(cel.CustomTypeProvider(provider),
		cel.Variable("self", decl.celType), cel.Variable("oldSelf", decl.celType))
	if err != nil {
		return nil, err
	}
	optional, err := base.Extend(cel.CustomTypeProvider(provider),
		cel.Variable("self", decl.celType), cel.Variable("oldSelf", cel.OptionalType(decl.celType)))
	if err != nil {
		return nil, err
	}
	return &ruleEnvs{plain: plain, optional: optional, decl: decl}, nil
}

// unsupportedSchemaError is why rules cannot sit on a node CEL cannot see.
func unsupportedSchemaError(s *api.JSONSchemaProps) error {
	return fmt.Errorf("rule declared on schema that does not support validation rules type: '%s' x-kubernetes-preserve-unknown-fields: '%t'",
		s.Type, s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields)
}

// compileError is why a rule or message expression could not be compiled,
// worded as Kubernetes words it.
type compileError struct {
	field  string // "rule" or "messageExpression"
	detail string
}

// compileRule compiles r against the schema node it sits on.
func (e *ruleEnvs) compileRule(r api.ValidationRule) (*Rule, *compileError) {
	env := e.plain
	if r.OptionalOldSelf != nil && *r.OptionalOldSelf {
		env = e.optional
	}
	ast, iss := env.Compile(r.Rule)
	if iss.Err() != nil {
		return nil, &compileError{"rule", "compilation failed: " + iss.Err().Error()}
	}
	if t := ast.OutputType(); !t.IsExactType(cel.BoolType) {
		return nil, &compileError{"rule", "cel expression must evaluate to a bool"}
	}
	out := &Rule{Source: r, UsesOldSelf: references(ast, "oldSelf")}
	est := sizeEstimator{root: e.decl}
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		return nil, &compileError{"rule", "cost estimation failed: " + err.Error()}
	}
	out.MaxCost = cost.Max
	if out.Program, err = env.Program(ast, programOptions()...); err != nil {
		return nil, &compileError{"rule", "program instantiation failed: " + err.Error()}
	}
	if r.MessageExpression != "" {
		mast, iss := env.Compile(r.MessageExpression)
		if iss.Err() != nil {
			return out, &compileError{"messageExpression", "messageExpression compilation failed: " + iss.Err().Error()}
		}
		if t := mast.OutputType(); !t.IsExactType(cel.StringType) && !t.IsExactType(cel.DynType) {
			return out, &compileError{"messageExpression", "must evaluate to a string"}
		}
		mcost, err := env.EstimateCost(mast, est)
		if err != nil {
			return out, &compileError{"messageExpression", "cost estimation failed: " + err.Error()}
		}
		out.MessageMaxCost = mcost.Max
		if out.MessageExpression, err = env.Program(mast, programOptions()...); err != nil {
			return out, &compileError{"messageExpression", "program instantiation failed: " + err.Error()}
		}
	}
	return out, nil
}

// programOptions make every program track its cost and stop at the
// per-call limit.
func programOptions() []cel.ProgramOption {
	return []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostLimit(PerCallLimit),
		cel.InterruptCheckFrequency(100),
	}
}

// references reports whether a checked expression reads the variable name.
func references(ast *cel.Ast, name string) bool {
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == name {
			return true
		}
	}
	return false
}

// ruleErrorString is how a failed rule is named in errors: its message if
// it has one, else its text.
func ruleErrorString(r api.ValidationRule) string {
	if m := strings.TrimSpace(r.Message); m != "" {
		return m
	}
	return strings.TrimSpace(r.Rule)
}

// ruleMessageOrDefault is the detail of a rule that evaluated to false.
func ruleMessageOrDefault(r api.ValidationRule) string {
	if m := strings.TrimSpace(r.Message); m != "" {
		return m
	}
	return fmt.Sprintf("failed rule: %s", ruleErrorString(r))
}
