package kinds

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// --- core/v1 ResourceQuota and LimitRange ---

// quotaResources serves ResourceQuota (its status.used kept by the
// resourcequota controller, enforced by the ResourceQuota admission
// plugin) and LimitRange (applied by the LimitRanger admission plugin).
func quotaResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{
		{
			Version: "v1", Name: "resourcequotas", SingularName: "resourcequota", Kind: "ResourceQuota", ListKind: "ResourceQuotaList",
			ShortNames: []string{"quota"}, Namespaced: true,
			New:                 func() api.Object { return &corev1.ResourceQuota{} },
			StrategicMergePatch: true,
			Strategy:            resourceQuotaStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.ResourceQuota{})),
			StatusSubresource:   true,
			Table:               resourceQuotaTable(),
		},
		{
			Version: "v1", Name: "limitranges", SingularName: "limitrange", Kind: "LimitRange", ListKind: "LimitRangeList",
			ShortNames: []string{"limits"}, Namespaced: true,
			New:                 func() api.Object { return &corev1.LimitRange{} },
			StrategicMergePatch: true,
			Strategy:            limitRangeStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.LimitRange{})),
			Table:               limitRangeTable(),
		},
	}
}

type resourceQuotaStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy (ValidateResourceQuota: the
// amounts may not be negative).
func (resourceQuotaStrategy) Validate(obj api.Object) field.ErrorList {
	q := obj.(*corev1.ResourceQuota)
	var errs field.ErrorList
	p := field.NewPath("spec", "hard")
	for _, name := range slices.Sorted(mapsKeys(q.Spec.Hard)) {
		v := q.Spec.Hard[name]
		if v.Sign() < 0 {
			errs = append(errs, field.Invalid(p.Key(string(name)), v.String(), "must be greater than or equal to 0"))
		}
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (s resourceQuotaStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return s.Validate(obj)
}

func mapsKeys(rl corev1.ResourceList) func(func(corev1.ResourceName) bool) {
	return func(yield func(corev1.ResourceName) bool) {
		for k := range rl {
			if !yield(k) {
				return
			}
		}
	}
}

type limitRangeStrategy struct{ registry.DefaultStrategy }

// Default implements registry.Strategy (SetDefaults_LimitRangeItem): a
// Container item's default limit is its max, its default request its
// default limit, else its min.
func (limitRangeStrategy) Default(obj api.Object) {
	lr := obj.(*corev1.LimitRange)
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		if item.Default == nil {
			item.Default = corev1.ResourceList{}
		}
		if item.DefaultRequest == nil {
			item.DefaultRequest = corev1.ResourceList{}
		}
		// In this order: max fills the default limit, which with min
		// then fills the default request.
		for _, from := range []struct{ src, dst corev1.ResourceList }{
			{item.Max, item.Default}, {item.Default, item.DefaultRequest}, {item.Min, item.DefaultRequest},
		} {
			for k, v := range from.src {
				if _, ok := from.dst[k]; !ok {
					from.dst[k] = v.DeepCopy()
				}
			}
		}
	}
}

// Validate implements registry.Strategy (ValidateLimitRange: min <=
// defaultRequest <= default <= max, for each resource of an item).
func (limitRangeStrategy) Validate(obj api.Object) field.ErrorList {
	lr := obj.(*corev1.LimitRange)
	var errs field.ErrorList
	for i, item := range lr.Spec.Limits {
		p := field.NewPath("spec", "limits").Index(i)
		switch item.Type {
		case corev1.LimitTypePod, corev1.LimitTypeContainer, corev1.LimitTypePersistentVolumeClaim:
		default:
			errs = append(errs, field.NotSupported(p.Child("type"), item.Type,
				[]string{string(corev1.LimitTypeContainer), string(corev1.LimitTypePersistentVolumeClaim), string(corev1.LimitTypePod)}))
		}
		if item.Type == corev1.LimitTypePod && (len(item.Default) > 0 || len(item.DefaultRequest) > 0) {
			errs = append(errs, field.Forbidden(p.Child("default"), "may not be specified when `type` is 'Pod'"))
		}
		for _, name := range slices.Sorted(mapsKeys(item.Max)) {
			max := item.Max[name]
			if min, ok := item.Min[name]; ok && min.Cmp(max) > 0 {
				errs = append(errs, field.Invalid(p.Child("min").Key(string(name)), min.String(),
					fmt.Sprintf("min value %s is greater than max value %s", min.String(), max.String())))
			}
			if d, ok := item.Default[name]; ok && d.Cmp(max) > 0 {
				errs = append(errs, field.Invalid(p.Child("default").Key(string(name)), d.String(),
					fmt.Sprintf("default value %s is greater than max value %s", d.String(), max.String())))
			}
			if d, ok := item.DefaultRequest[name]; ok && d.Cmp(max) > 0 {
				errs = append(errs, field.Invalid(p.Child("defaultRequest").Key(string(name)), d.String(),
					fmt.Sprintf("default request value %s is greater than max value %s", d.String(), max.String())))
			}
		}
		for _, name := range slices.Sorted(mapsKeys(item.DefaultRequest)) {
			dr := item.DefaultRequest[name]
			if d, ok := item.Default[name]; ok && dr.Cmp(d) > 0 {
				errs = append(errs, field.Invalid(p.Child("defaultRequest").Key(string(name)), dr.String(),
					fmt.Sprintf("default request value %s is greater than default limit value %s", dr.String(), d.String())))
			}
		}
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (s limitRangeStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList { return s.Validate(obj) }

// resourceQuotaTable: NAME AGE REQUEST LIMIT (printResourceQuota): each
// cell "resource: used/hard, ...", the limits.* ones under LIMIT.
func resourceQuotaTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			registry.AgeColumn,
			col("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
			col("Limit", "string", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			q := obj.(*corev1.ResourceQuota)
			var request, limit []string
			for _, name := range slices.Sorted(mapsKeys(q.Status.Hard)) {
				used, hard := q.Status.Used[name], q.Status.Hard[name]
				cell := fmt.Sprintf("%s: %s/%s", name, used.String(), hard.String())
				if strings.HasPrefix(string(name), "limits.") {
					limit = append(limit, cell)
				} else {
					request = append(request, cell)
				}
			}
			return []any{q.Name, age(q.CreationTimestamp.Time, now), strings.Join(request, ", "), strings.Join(limit, ", ")}
		},
	}
}

// limitRangeTable: NAME CREATED AT (printLimitRange).
func limitRangeTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Created At", "date", "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"),
		},
		Cells: func(obj api.Object, _ time.Time) []any {
			lr := obj.(*corev1.LimitRange)
			return []any{lr.Name, lr.CreationTimestamp.UTC().Format(time.RFC3339)}
		},
	}
}
