package kinds

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// daemonSetResources is apps/v1 DaemonSet: one pod per
// eligible node, kept by controllers/daemonset; its history lives in the
// ControllerRevisions served beside the StatefulSets'.
func daemonSetResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{{
		Group: "apps", Version: "v1", Name: "daemonsets", SingularName: "daemonset", Kind: "DaemonSet", ListKind: "DaemonSetList",
		ShortNames: []string{"ds"}, Categories: []string{"all"}, Namespaced: true,
		New:                 func() api.Object { return &appsv1.DaemonSet{} },
		StrategicMergePatch: true,
		Strategy:            daemonSetStrategy{},
		Schema:              gen.FromGoType(reflect.TypeOf(appsv1.DaemonSet{})),
		StatusSubresource:   true,
		Table:               daemonSetTable(),
	}}
}

// DefaultDaemonSet is SetDefaults_DaemonSet: a RollingUpdate with
// maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10, and the pod
// template's defaults.
func DefaultDaemonSet(ds *appsv1.DaemonSet) {
	s := &ds.Spec
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if s.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if s.UpdateStrategy.RollingUpdate == nil {
			s.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if s.UpdateStrategy.RollingUpdate.MaxUnavailable == nil {
			s.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr(intstr.FromInt32(1))
		}
		if s.UpdateStrategy.RollingUpdate.MaxSurge == nil {
			s.UpdateStrategy.RollingUpdate.MaxSurge = ptr(intstr.FromInt32(0))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr(int32(10))
	}
	DefaultPodSpec(&s.Template.Spec)
}

// --- DaemonSet (pkg/registry/apps/daemonset/strategy.go) ---

type daemonSetStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate implements registry.Strategy.
func (daemonSetStrategy) PrepareForCreate(obj api.Object) {
	obj.(*appsv1.DaemonSet).Status = appsv1.DaemonSetStatus{}
}

// Default implements registry.Strategy.
func (daemonSetStrategy) Default(obj api.Object) { DefaultDaemonSet(obj.(*appsv1.DaemonSet)) }

// Validate implements registry.Strategy.
func (daemonSetStrategy) Validate(obj api.Object) field.ErrorList {
	return validateDaemonSet(obj.(*appsv1.DaemonSet))
}

// ValidateUpdate adds ValidateDaemonSetUpdate's rule: the selector stays.
func (daemonSetStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	ds := obj.(*appsv1.DaemonSet)
	errs := validateDaemonSet(ds)
	return append(errs, validateSelectorUnchanged(ds.Spec.Selector, old.(*appsv1.DaemonSet).Spec.Selector)...)
}

// validateDaemonSet is ValidateDaemonSetSpec: the selector and template as
// for the other workloads (restartPolicy Always), then the update
// strategy, where exactly one of maxUnavailable and maxSurge is non-zero.
func validateDaemonSet(ds *appsv1.DaemonSet) field.ErrorList {
	s := &ds.Spec
	sp := field.NewPath("spec")
	errs := validateSelectorAndTemplate(s.Selector, &s.Template, "daemonset", true)
	errs = append(errs, validateNonnegative(int64(s.MinReadySeconds), sp.Child("minReadySeconds"))...)
	errs = append(errs, validateDaemonSetUpdateStrategy(&s.UpdateStrategy, sp.Child("updateStrategy"))...)
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, validateNonnegative(int64(*s.RevisionHistoryLimit), sp.Child("revisionHistoryLimit"))...)
	}
	return errs
}

func validateDaemonSetUpdateStrategy(st *appsv1.DaemonSetUpdateStrategy, p *field.Path) field.ErrorList {
	switch st.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
		return nil
	case appsv1.RollingUpdateDaemonSetStrategyType:
		if st.RollingUpdate == nil {
			return field.ErrorList{field.Required(p.Child("rollingUpdate"), "")}
		}
		return validateRollingUpdateDaemonSet(st.RollingUpdate, p.Child("rollingUpdate"))
	default:
		return field.ErrorList{field.NotSupported(p, *st, []string{string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)})}
	}
}

// validateRollingUpdateDaemonSet is ValidateRollingUpdateDaemonSet.
func validateRollingUpdateDaemonSet(ru *appsv1.RollingUpdateDaemonSet, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct {
		v    *intstr.IntOrString
		name string
	}{{ru.MaxUnavailable, "maxUnavailable"}, {ru.MaxSurge, "maxSurge"}} {
		if f.v == nil {
			continue
		}
		errs = append(errs, validatePercentOrInt(*f.v, p.Child(f.name))...)
		if n, ok := percentValue(*f.v); ok && n > 100 {
			errs = append(errs, field.Invalid(p.Child(f.name), f.v, "must not be greater than 100%"))
		}
	}
	hasUnavailable, hasSurge := intOrPercent(ru.MaxUnavailable) != 0, intOrPercent(ru.MaxSurge) != 0
	switch {
	case hasUnavailable && hasSurge:
		errs = append(errs, field.Invalid(p.Child("maxSurge"), ru.MaxSurge, "may not be set when maxUnavailable is non-zero"))
	case !hasUnavailable && !hasSurge:
		errs = append(errs, field.Required(p.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
	}
	return errs
}

// daemonSetTable is printDaemonSet: DESIRED CURRENT READY UP-TO-DATE
// AVAILABLE NODE SELECTOR AGE, and in -o wide the containers, images and
// selector.
func daemonSetTable() *registry.Table {
	return &registry.Table{
		Columns: append([]metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Desired", "integer", "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod)."),
			col("Current", "integer", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod."),
			col("Ready", "integer", "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition."),
			col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"),
			col("Available", "integer", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)"),
			col("Node Selector", "string", "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node."),
			registry.AgeColumn,
		}, templateColumns(true)...),
		Cells: func(obj api.Object, now time.Time) []any {
			ds := obj.(*appsv1.DaemonSet)
			st := &ds.Status
			names, images := containerCells(&ds.Spec.Template.Spec)
			selector := "<invalid>"
			if s, err := api.LabelSelectorAsSelector(ds.Spec.Selector); err == nil {
				selector = s.String()
			}
			return []any{ds.Name, int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
				int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable), formatLabels(ds.Spec.Template.Spec.NodeSelector),
				age(ds.CreationTimestamp.Time, now), names, images, selector}
		},
	}
}

// formatLabels is labels.FormatLabels: k=v pairs sorted by key, "<none>"
// for none.
func formatLabels(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	pairs := make([]string, 0, len(m))
	for k, v := range m {
		pairs = append(pairs, fmt.Sprintf("%s=%s", k, v))
	}
	sort.Strings(pairs)
	return strings.Join(pairs, ",")
}
