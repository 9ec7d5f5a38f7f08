package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	kcel "github.com/kubesim/kubesim/apiserver/cel"
)

// SchemaResolver finds the kind served at a resource and its schema; false
// when the resource is not served or has no schema.
type SchemaResolver func(gvr schema.GroupVersionResource) (schema.GroupVersionKind, *api.JSONSchemaProps, bool)

// maxTypesToCheck bounds how many kinds one policy is checked against.
const maxTypesToCheck = 10

// TypeChecker checks a policy's expressions against the schemas of the
// kinds its matchConstraints name, as the ValidatingAdmissionPolicy status
// controller's TypeChecker does: object and oldObject are typed by each
// kind's schema, so a misspelt field or a type mismatch becomes a warning
// in status.typeChecking. It never refuses a policy and never changes how
// one runs. Safe for concurrent use.
type TypeChecker struct {
	base    *cel.Env
	resolve SchemaResolver
}

// NewTypeChecker builds the environment of the other variables (request,
// params, namespaceObject, variables: dyn).
func NewTypeChecker(resolve SchemaResolver) (*TypeChecker, error) {
	base, err := kcel.BaseEnv()
	if err != nil {
		return nil, err
	}
	base, err = base.Extend(
		cel.Variable(varRequest, cel.DynType),
		cel.Variable(varParams, cel.DynType),
		cel.Variable(varNamespaceObject, cel.DynType),
		cel.Variable(varVariables, cel.MapType(cel.StringType, cel.DynType)),
	)
	if err != nil {
		return nil, err
	}
	return &TypeChecker{base: base, resolve: resolve}, nil
}

// typedEnv is the environment for one kind.
type typedEnv struct {
	gvk schema.GroupVersionKind
	env *cel.Env
}

// Check returns the warnings of p's validations and message expressions,
// nil when there are none.
func (c *TypeChecker) Check(p *admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning {
	envs := c.envs(p)
	var warnings []admissionregistrationv1.ExpressionWarning
	fieldRef := field.NewPath("spec", "validations")
	for i, v := range p.Spec.Validations {
		if w := check(envs, v.Expression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{FieldRef: fieldRef.Index(i).Child("expression").String(), Warning: w})
		}
		if v.MessageExpression == "" {
			continue
		}
		if w := check(envs, v.MessageExpression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{FieldRef: fieldRef.Index(i).Child("messageExpression").String(), Warning: w})
		}
	}
	return warnings
}

// check compiles expr for every kind; the warning lists each kind's
// issues as "apps/v1, Kind=Deployment: ERROR: ...".
func check(envs []typedEnv, expr string) string {
	var msgs []string
	for _, e := range envs {
		if _, iss := e.env.Compile(expr); iss.Err() != nil {
			msgs = append(msgs, fmt.Sprintf("%s/%s, Kind=%s: %s\n", e.gvk.Group, e.gvk.Version, e.gvk.Kind, iss.Err()))
		}
	}
	return strings.Join(msgs, "\n")
}

// envs are the environments of the kinds p matches: only rules naming
// groups, versions and resources exactly (no wildcards, no subresources),
// sorted by group, version and kind, at most maxTypesToCheck.
func (c *TypeChecker) envs(p *admissionregistrationv1.ValidatingAdmissionPolicy) []typedEnv {
	m := p.Spec.MatchConstraints
	if m == nil {
		return nil
	}
	seen := map[schema.GroupVersionKind]*api.JSONSchemaProps{}
	var gvks []schema.GroupVersionKind
	for _, r := range m.ResourceRules {
		if slices.ContainsFunc(r.APIGroups, hasWildcard) || slices.ContainsFunc(r.APIVersions, hasWildcard) {
			continue
		}
		for _, g := range r.APIGroups {
			for _, v := range r.APIVersions {
				for _, res := range r.Resources {
					if strings.ContainsAny(res, "*/") || len(gvks) == maxTypesToCheck {
						continue
					}
					gvk, s, ok := c.resolve(schema.GroupVersionResource{Group: g, Version: v, Resource: res})
					if _, dup := seen[gvk]; !ok || dup {
						continue
					}
					seen[gvk] = s
					gvks = append(gvks, gvk)
				}
			}
		}
	}
	slices.SortFunc(gvks, func(a, b schema.GroupVersionKind) int {
		return strings.Compare(a.Group+"\x00"+a.Version+"\x00"+a.Kind, b.Group+"\x00"+b.Version+"\x00"+b.Kind)
	})
	var out []typedEnv
	for _, gvk := range gvks {
		env, err := kcel.DeclareResource(c.base, seen[gvk], gvk.Kind, varObject, varOldObject)
		if err != nil {
			continue // type checking never changes a policy
		}
		out = append(out, typedEnv{gvk: gvk, env: env})
	}
	return out
}

func hasWildcard(s string) bool { return strings.Contains(s, "*") }
