package kinds

import (
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// --- node.k8s.io/v1 RuntimeClass ---

// NodeGroupName is the group of RuntimeClasses.
const NodeGroupName = "node.k8s.io"

// runtimeClassResources serves RuntimeClasses. What they do is elsewhere:
// the RuntimeClass admission plugin copies a class's overhead and
// scheduling into the pods that name it (admission.RuntimeClass), and the
// kubelet runs a pod only with a handler its runtime knows.
func runtimeClassResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{{
		Group: NodeGroupName, Version: "v1", Name: "runtimeclasses", SingularName: "runtimeclass",
		Kind: "RuntimeClass", ListKind: "RuntimeClassList",
		New:                 func() api.Object { return &nodev1.RuntimeClass{} },
		StrategicMergePatch: true,
		Strategy:            runtimeClassStrategy{},
		Schema:              gen.FromGoType(reflect.TypeOf(nodev1.RuntimeClass{})),
		Table:               runtimeClassTable(),
	}}
}

type runtimeClassStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy (ValidateRuntimeClass): the
// handler is a DNS label, the overhead is not negative, the scheduling
// constraints are a valid node selector and valid tolerations.
func (runtimeClassStrategy) Validate(obj api.Object) field.ErrorList {
	rc := obj.(*nodev1.RuntimeClass)
	var errs field.ErrorList
	for _, msg := range IsDNS1123Label(rc.Handler) {
		errs = append(errs, field.Invalid(field.NewPath("handler"), rc.Handler, msg))
	}
	if rc.Overhead != nil {
		errs = append(errs, validateResources(&corev1.ResourceRequirements{Limits: rc.Overhead.PodFixed}, field.NewPath("overhead"))...)
	}
	if s := rc.Scheduling; s != nil {
		p := field.NewPath("scheduling")
		errs = append(errs, validateLabels(s.NodeSelector, p.Child("nodeSelector"))...)
		errs = append(errs, validateTolerations(s.Tolerations, p.Child("tolerations"))...)
	}
	return errs
}

// ValidateUpdate implements registry.Strategy: the handler is fixed
// (ValidateRuntimeClassUpdate).
func (s runtimeClassStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	rc, o := obj.(*nodev1.RuntimeClass), old.(*nodev1.RuntimeClass)
	errs := s.Validate(obj)
	if rc.Handler != o.Handler {
		errs = append(errs, field.Invalid(field.NewPath("handler"), rc.Handler, immutableErrMsg))
	}
	return errs
}

// runtimeClassTable: NAME HANDLER AGE (printRuntimeClass).
func runtimeClassTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Handler", "string", "Handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			rc := obj.(*nodev1.RuntimeClass)
			return []any{rc.Name, rc.Handler, age(rc.CreationTimestamp.Time, now)}
		},
	}
}
