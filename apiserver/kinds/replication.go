package kinds

import (
	stdmaps "maps"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// --- core/v1 PodTemplate and ReplicationController ---

// replicationResources serves PodTemplates and ReplicationControllers, the
// core group's pod templates and the ReplicaSet's ancestor: kubesim's
// ReplicaSet controller keeps them through an adapter, as
// kube-controller-manager does (controllers/replicaset/replication.go).
func replicationResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{
		{
			Version: "v1", Name: "podtemplates", SingularName: "podtemplate", Kind: "PodTemplate", ListKind: "PodTemplateList",
			Namespaced:          true,
			New:                 func() api.Object { return &corev1.PodTemplate{} },
			StrategicMergePatch: true,
			Strategy:            podTemplateStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.PodTemplate{})),
			Table:               podTemplateTable(),
		},
		{
			Version: "v1", Name: "replicationcontrollers", SingularName: "replicationcontroller", Kind: "ReplicationController",
			ListKind: "ReplicationControllerList", ShortNames: []string{"rc"}, Categories: []string{"all"}, Namespaced: true,
			New:                 func() api.Object { return &corev1.ReplicationController{} },
			StrategicMergePatch: true,
			Strategy:            replicationControllerStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.ReplicationController{})),
			StatusSubresource:   true,
			// The selector is a plain label map here; /scale prints it
			// "app=web" all the same (handlers.selectorString).
			Scale: &registry.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas",
				LabelSelectorPath: ".spec.selector"},
			Table: replicationControllerTable(),
			Fields: func(obj api.Object) fields.Set {
				return fields.Set{"status.replicas": itoa(int(obj.(*corev1.ReplicationController).Status.Replicas))}
			},
		},
	}
}

// --- PodTemplate (pkg/registry/core/podtemplate/strategy.go) ---

type podTemplateStrategy struct{ registry.DefaultStrategy }

// Default implements registry.Strategy: the template's pod spec gets a
// pod's defaults.
func (podTemplateStrategy) Default(obj api.Object) {
	DefaultPodSpec(&obj.(*corev1.PodTemplate).Template.Spec)
}

// Validate implements registry.Strategy (ValidatePodTemplate).
func (podTemplateStrategy) Validate(obj api.Object) field.ErrorList {
	pt := obj.(*corev1.PodTemplate)
	return ValidatePodTemplateSpec(&pt.Template, field.NewPath("template"))
}

// ValidateUpdate implements registry.Strategy.
func (s podTemplateStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return s.Validate(obj)
}

// podTemplateTable: NAME CONTAINERS IMAGES POD LABELS, no AGE
// (printPodTemplate).
func podTemplateTable() *registry.Table {
	return &registry.Table{
		Columns: append(append([]metav1.TableColumnDefinition{registry.NameColumn}, containerColumns()...),
			col("Pod Labels", "string", "The labels for the pod template.")),
		Cells: func(obj api.Object, _ time.Time) []any {
			pt := obj.(*corev1.PodTemplate)
			names, images := containerCells(&pt.Template.Spec)
			return []any{pt.Name, names, images, formatLabels(pt.Template.Labels)}
		},
	}
}

// --- ReplicationController (pkg/registry/core/replicationcontroller) ---

// DefaultReplicationController is SetDefaults_ReplicationController: a
// controller without a selector selects its template's labels, one
// without labels takes them too, and replicas defaults to 1.
func DefaultReplicationController(rc *corev1.ReplicationController) {
	if t := rc.Spec.Template; t != nil && t.Labels != nil {
		if len(rc.Spec.Selector) == 0 {
			rc.Spec.Selector = stdmaps.Clone(t.Labels)
		}
		if len(rc.Labels) == 0 {
			rc.Labels = stdmaps.Clone(t.Labels)
		}
	}
	if rc.Spec.Replicas == nil {
		rc.Spec.Replicas = ptr(int32(1))
	}
	if rc.Spec.Template != nil {
		DefaultPodSpec(&rc.Spec.Template.Spec)
	}
}

type replicationControllerStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate implements registry.Strategy.
func (replicationControllerStrategy) PrepareForCreate(obj api.Object) {
	obj.(*corev1.ReplicationController).Status = corev1.ReplicationControllerStatus{}
}

// Default implements registry.Strategy.
func (replicationControllerStrategy) Default(obj api.Object) {
	DefaultReplicationController(obj.(*corev1.ReplicationController))
}

// Validate implements registry.Strategy (ValidateReplicationController).
func (replicationControllerStrategy) Validate(obj api.Object) field.ErrorList {
	return validateReplicationController(obj.(*corev1.ReplicationController))
}

// ValidateUpdate implements registry.Strategy. Unlike a ReplicaSet's, an
// RC's selector may change (ValidateReplicationControllerUpdate checks
// the new object only).
func (replicationControllerStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return validateReplicationController(obj.(*corev1.ReplicationController))
}

// validateReplicationController is ValidateReplicationControllerSpec: a
// non-empty selector that selects the template, which is required.
func validateReplicationController(rc *corev1.ReplicationController) field.ErrorList {
	sp := field.NewPath("spec")
	errs := replicasErrs(rc.Spec.Replicas)
	errs = append(errs, validateNonnegative(int64(rc.Spec.MinReadySeconds), sp.Child("minReadySeconds"))...)
	if len(rc.Spec.Selector) == 0 {
		errs = append(errs, field.Required(sp.Child("selector"), ""))
	} else {
		errs = append(errs, validateLabels(rc.Spec.Selector, sp.Child("selector"))...)
	}
	tp := sp.Child("template")
	t := rc.Spec.Template
	if t == nil {
		return append(errs, field.Required(tp, ""))
	}
	if len(rc.Spec.Selector) > 0 && !labelsOf(rc.Spec.Selector).AsSelector().Matches(labelsOf(t.Labels)) {
		errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, ValidatePodTemplateSpec(t, tp)...)
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), t.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(tp.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicationController is not Supported"))
	}
	return errs
}

// replicationControllerTable: NAME DESIRED CURRENT READY AGE, and
// CONTAINERS IMAGES SELECTOR with -o wide (printReplicationController),
// a ReplicaSet's table.
func replicationControllerTable() *registry.Table {
	return replicasTable("replication controller", func(obj api.Object) replicasRow {
		rc := obj.(*corev1.ReplicationController)
		var template *corev1.PodSpec
		if rc.Spec.Template != nil {
			template = &rc.Spec.Template.Spec
		}
		return replicasRow{&rc.ObjectMeta, rc.Spec.Replicas, rc.Status.Replicas, rc.Status.ReadyReplicas,
			template, formatLabels(rc.Spec.Selector)}
	})
}
