package kinds

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/admission/policy"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// --- admissionregistration.k8s.io/v1 admission policies ---

// admissionPolicyResources serves ValidatingAdmissionPolicy and
// ValidatingAdmissionPolicyBinding; the strategy compiles every expression,
// so a policy that cannot run is refused when it is written.
func admissionPolicyResources(gen *schema.Generator) []*registry.Resource {
	compiler, err := policy.NewCompiler()
	if err != nil {
		panic(err) // the environment is built from constants
	}
	return []*registry.Resource{
		{
			Group: api.AdmissionRegistrationGroupName, Version: "v1", Name: "validatingadmissionpolicies", SingularName: "validatingadmissionpolicy",
			Kind: "ValidatingAdmissionPolicy", ListKind: "ValidatingAdmissionPolicyList", Categories: []string{"api-extensions"},
			New:                 func() api.Object { return &admissionregistrationv1.ValidatingAdmissionPolicy{} },
			StrategicMergePatch: true,
			Strategy:            admissionPolicyStrategy{compiler: compiler},
			Schema:              gen.FromGoType(reflect.TypeOf(admissionregistrationv1.ValidatingAdmissionPolicy{})),
			StatusSubresource:   true,
			Table:               admissionPolicyTable(),
		},
		{
			Group: api.AdmissionRegistrationGroupName, Version: "v1", Name: "validatingadmissionpolicybindings", SingularName: "validatingadmissionpolicybinding",
			Kind: "ValidatingAdmissionPolicyBinding", ListKind: "ValidatingAdmissionPolicyBindingList", Categories: []string{"api-extensions"},
			New:                 func() api.Object { return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{} },
			StrategicMergePatch: true,
			Strategy:            admissionPolicyBindingStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(admissionregistrationv1.ValidatingAdmissionPolicyBinding{})),
			Table:               admissionPolicyBindingTable(),
		},
	}
}

type admissionPolicyStrategy struct {
	registry.DefaultStrategy
	compiler *policy.Compiler
}

// Default implements registry.Strategy (the v1 defaults).
func (admissionPolicyStrategy) Default(obj api.Object) {
	policy.SetPolicyDefaults(obj.(*admissionregistrationv1.ValidatingAdmissionPolicy))
}

// Validate implements registry.Strategy (ValidateValidatingAdmissionPolicy).
func (s admissionPolicyStrategy) Validate(obj api.Object) field.ErrorList {
	return s.compiler.ValidatePolicy(obj.(*admissionregistrationv1.ValidatingAdmissionPolicy))
}

// ValidateUpdate implements registry.Strategy.
func (s admissionPolicyStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return s.Validate(obj)
}

type admissionPolicyBindingStrategy struct{ registry.DefaultStrategy }

// Default implements registry.Strategy.
func (admissionPolicyBindingStrategy) Default(obj api.Object) {
	policy.SetBindingDefaults(obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding))
}

// Validate implements registry.Strategy.
func (admissionPolicyBindingStrategy) Validate(obj api.Object) field.ErrorList {
	return policy.ValidateBinding(obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding))
}

// ValidateUpdate implements registry.Strategy.
func (s admissionPolicyBindingStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return s.Validate(obj)
}

// admissionPolicyTable: NAME, VALIDATIONS, PARAMKIND, AGE.
func admissionPolicyTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Validations", "integer", "Validations indicates the number of validation rules defined in this configuration"),
			col("ParamKind", "string", "ParamKind specifies the kind of resources used to parameterize this policy"),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			p := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
			paramKind := "<unset>"
			if pk := p.Spec.ParamKind; pk != nil {
				paramKind = pk.APIVersion + "/" + pk.Kind
			}
			return []any{p.Name, int64(len(p.Spec.Validations)), paramKind, age(p.CreationTimestamp.Time, now)}
		},
	}
}

// admissionPolicyBindingTable: NAME, POLICYNAME, PARAMREF, AGE.
func admissionPolicyBindingTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("PolicyName", "string", "PolicyName indicates the policy definition which the policy binding binded to"),
			col("ParamRef", "string", "ParamRef indicates the param resource which sets the configration param"),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			b := obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
			paramRef := "<unset>"
			if r := b.Spec.ParamRef; r != nil {
				switch {
				case r.Name != "" && r.Namespace != "":
					paramRef = r.Namespace + "/" + r.Name
				case r.Name != "":
					paramRef = "*/" + r.Name
				default:
					paramRef = fmt.Sprintf("*/%s", strings.TrimSpace(selectorString(r.Selector)))
				}
			}
			return []any{b.Name, b.Spec.PolicyName, paramRef, age(b.CreationTimestamp.Time, now)}
		},
	}
}

func selectorString(s *metav1.LabelSelector) string {
	sel, err := api.LabelSelectorAsSelector(s)
	if err != nil {
		return "<error>"
	}
	return sel.String()
}
