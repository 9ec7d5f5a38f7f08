package kinds

import (
	"reflect"
	"strings"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// --- policy/v1 PodDisruptionBudget ---

// PolicyGroupName is the group of PodDisruptionBudget and Eviction.
const PolicyGroupName = "policy"

// policyResources serves PodDisruptionBudgets, which make policy/v1 a
// served group beside the pods/eviction subresource's Eviction kind.
func policyResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{{
		Group: PolicyGroupName, Version: "v1", Name: "poddisruptionbudgets", SingularName: "poddisruptionbudget",
		Kind: "PodDisruptionBudget", ListKind: "PodDisruptionBudgetList", ShortNames: []string{"pdb"}, Namespaced: true,
		New:                 func() api.Object { return &policyv1.PodDisruptionBudget{} },
		StrategicMergePatch: true,
		Strategy:            pdbStrategy{},
		Schema:              gen.FromGoType(reflect.TypeOf(policyv1.PodDisruptionBudget{})),
		StatusSubresource:   true,
		Table:               pdbTable(),
	}}
}

// pdbStrategy validates as ValidatePodDisruptionBudget does.
type pdbStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy.
func (pdbStrategy) Validate(obj api.Object) field.ErrorList {
	return validatePDBSpec(&obj.(*policyv1.PodDisruptionBudget).Spec, field.NewPath("spec"))
}

// ValidateUpdate implements registry.Strategy: policy/v1 lets the spec
// change.
func (s pdbStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList { return s.Validate(obj) }

func validatePDBSpec(spec *policyv1.PodDisruptionBudgetSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(p, pdbSpecValue(spec), "minAvailable and maxUnavailable cannot be both set"))
	}
	if spec.MinAvailable != nil {
		errs = append(errs, validatePositiveIntOrPercent(*spec.MinAvailable, p.Child("minAvailable"))...)
		errs = append(errs, isNotMoreThan100Percent(*spec.MinAvailable, p.Child("minAvailable"))...)
	}
	if spec.MaxUnavailable != nil {
		errs = append(errs, validatePositiveIntOrPercent(*spec.MaxUnavailable, p.Child("maxUnavailable"))...)
		errs = append(errs, isNotMoreThan100Percent(*spec.MaxUnavailable, p.Child("maxUnavailable"))...)
	}
	if spec.Selector != nil {
		if _, err := api.LabelSelectorAsSelector(spec.Selector); err != nil {
			errs = append(errs, field.Invalid(p.Child("selector"), spec.Selector, err.Error()))
		}
	}
	if pol := spec.UnhealthyPodEvictionPolicy; pol != nil && *pol != policyv1.IfHealthyBudget && *pol != policyv1.AlwaysAllow {
		errs = append(errs, field.NotSupported(p.Child("unhealthyPodEvictionPolicy"), *pol,
			[]string{string(policyv1.AlwaysAllow), string(policyv1.IfHealthyBudget)}))
	}
	return errs
}

// pdbSpecValue is how the refused spec prints in the message (a struct,
// printed as Go prints it would be unreadable).
func pdbSpecValue(spec *policyv1.PodDisruptionBudgetSpec) string {
	return "minAvailable: " + spec.MinAvailable.String() + ", maxUnavailable: " + spec.MaxUnavailable.String()
}

// validatePositiveIntOrPercent is apps validation's: a non-negative
// integer, or a string "N%".
func validatePositiveIntOrPercent(v intstr.IntOrString, p *field.Path) field.ErrorList {
	switch v.Type {
	case intstr.String:
		if !strings.HasSuffix(v.StrVal, "%") || !isDigits(strings.TrimSuffix(v.StrVal, "%")) {
			return field.ErrorList{field.Invalid(p, v.StrVal, "must be an integer or percentage (e.g '5%')")}
		}
	default:
		if v.IntVal < 0 {
			return field.ErrorList{field.Invalid(p, int64(v.IntVal), "must be greater than or equal to 0")}
		}
	}
	return nil
}

func isNotMoreThan100Percent(v intstr.IntOrString, p *field.Path) field.ErrorList {
	if v.Type != intstr.String {
		return nil
	}
	if n, err := intstr.GetScaledValueFromIntOrPercent(&v, 100, false); err == nil && n > 100 {
		return field.ErrorList{field.Invalid(p, v.StrVal, "must not be greater than 100%")}
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// pdbTable: NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE
// (printPodDisruptionBudget).
func pdbTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Min Available", "string", "The minimum number of pods that must be available."),
			col("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
			col("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			pdb := obj.(*policyv1.PodDisruptionBudget)
			minAvailable, maxUnavailable := "N/A", "N/A"
			if pdb.Spec.MinAvailable != nil {
				minAvailable = pdb.Spec.MinAvailable.String()
			}
			if pdb.Spec.MaxUnavailable != nil {
				maxUnavailable = pdb.Spec.MaxUnavailable.String()
			}
			return []any{pdb.Name, minAvailable, maxUnavailable, int64(pdb.Status.DisruptionsAllowed), age(pdb.CreationTimestamp.Time, now)}
		},
	}
}
