package kinds

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// --- scheduling.k8s.io/v1 PriorityClass ---

// schedulingResources serves PriorityClasses; the API server creates the
// two system classes at start (SystemPriorityClasses).
func schedulingResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{{
		Group: api.SchedulingGroupName, Version: "v1", Name: "priorityclasses", SingularName: "priorityclass",
		Kind: "PriorityClass", ListKind: "PriorityClassList", ShortNames: []string{"pc"},
		New:                 func() api.Object { return &schedulingv1.PriorityClass{} },
		StrategicMergePatch: true,
		Strategy:            priorityClassStrategy{},
		Schema:              gen.FromGoType(reflect.TypeOf(schedulingv1.PriorityClass{})),
		Table:               priorityClassTable(),
	}}
}

// SystemPriorityClasses are the classes every cluster has
// (pkg/apis/scheduling.SystemPriorityClasses).
func SystemPriorityClasses() []*schedulingv1.PriorityClass {
	return []*schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: api.SystemNodeCritical}, Value: api.SystemCriticalPriority + 1000,
			Description: "Used for system critical pods that must not be moved from their current node."},
		{ObjectMeta: metav1.ObjectMeta{Name: api.SystemClusterCritical}, Value: api.SystemCriticalPriority,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
	}
}

type priorityClassStrategy struct{ registry.DefaultStrategy }

// Default implements registry.Strategy: PreemptLowerPriority unless said.
func (priorityClassStrategy) Default(obj api.Object) {
	pc := obj.(*schedulingv1.PriorityClass)
	if pc.PreemptionPolicy == nil {
		p := corev1.PreemptLowerPriority
		pc.PreemptionPolicy = &p
	}
}

// Validate implements registry.Strategy (ValidatePriorityClass).
func (priorityClassStrategy) Validate(obj api.Object) field.ErrorList {
	pc := obj.(*schedulingv1.PriorityClass)
	var errs field.ErrorList
	if strings.HasPrefix(pc.Name, api.SystemPriorityClassPrefix) {
		known := false
		for _, sys := range SystemPriorityClasses() {
			if sys.Name == pc.Name {
				known = true
				if pc.Value != sys.Value {
					errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
						fmt.Sprintf("value of system priority class `%s` must be %d", pc.Name, sys.Value)))
				}
			}
		}
		if !known {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with '"+api.SystemPriorityClassPrefix+"' prefix are reserved for system use only"))
		}
	} else if pc.Value > api.HighestUserDefinablePriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"),
			fmt.Sprintf("maximum allowed value of a user defined priority is %d", api.HighestUserDefinablePriority)))
	}
	if p := pc.PreemptionPolicy; p != nil && *p != corev1.PreemptLowerPriority && *p != corev1.PreemptNever {
		errs = append(errs, field.NotSupported(field.NewPath("preemptionPolicy"), *p,
			[]string{string(corev1.PreemptLowerPriority), string(corev1.PreemptNever)}))
	}
	return errs
}

// ValidateUpdate implements registry.Strategy: the value and the
// preemption policy are fixed once set.
func (s priorityClassStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	pc, o := obj.(*schedulingv1.PriorityClass), old.(*schedulingv1.PriorityClass)
	errs := s.Validate(obj)
	if pc.Value != o.Value {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	if !reflect.DeepEqual(pc.PreemptionPolicy, o.PreemptionPolicy) {
		errs = append(errs, field.Invalid(field.NewPath("preemptionPolicy"), pc.PreemptionPolicy, "field is immutable"))
	}
	return errs
}

// priorityClassTable: NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY
// (printPriorityClass).
func priorityClassTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Value", "integer", "The value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec."),
			col("Global-Default", "boolean", "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class."),
			registry.AgeColumn,
			col("PreemptionPolicy", "string", "PreemptionPolicy is the Policy for preempting pods with lower priority."),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			pc := obj.(*schedulingv1.PriorityClass)
			policy := "<none>"
			if pc.PreemptionPolicy != nil {
				policy = string(*pc.PreemptionPolicy)
			}
			return []any{pc.Name, int64(pc.Value), pc.GlobalDefault, age(pc.CreationTimestamp.Time, now), policy}
		},
	}
}
