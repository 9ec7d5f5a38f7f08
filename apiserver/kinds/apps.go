package kinds

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// --- defaults (pkg/apis/apps/v1/defaults.go) ---

// DefaultReplicaSet fills replicas and the pod template.
func DefaultReplicaSet(rs *appsv1.ReplicaSet) {
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = ptr(int32(1))
	}
	DefaultPodSpec(&rs.Spec.Template.Spec)
}

// DefaultDeployment fills replicas, a RollingUpdate strategy of 25%/25%,
// revisionHistoryLimit 10, progressDeadlineSeconds 600 and the template.
func DefaultDeployment(d *appsv1.Deployment) {
	s := &d.Spec
	if s.Replicas == nil {
		s.Replicas = ptr(int32(1))
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if s.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if s.Strategy.RollingUpdate.MaxUnavailable == nil {
			s.Strategy.RollingUpdate.MaxUnavailable = ptr(intstr.FromString("25%"))
		}
		if s.Strategy.RollingUpdate.MaxSurge == nil {
			s.Strategy.RollingUpdate.MaxSurge = ptr(intstr.FromString("25%"))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr(int32(10))
	}
	if s.ProgressDeadlineSeconds == nil {
		s.ProgressDeadlineSeconds = ptr(int32(600))
	}
	DefaultPodSpec(&s.Template.Spec)
}

// DefaultStatefulSet fills replicas, OrderedReady, a RollingUpdate with
// partition 0, revisionHistoryLimit 10 and the template.
func DefaultStatefulSet(ss *appsv1.StatefulSet) {
	s := &ss.Spec
	if s.Replicas == nil {
		s.Replicas = ptr(int32(1))
	}
	if s.PodManagementPolicy == "" {
		s.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
	}
	if s.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType {
		if s.UpdateStrategy.RollingUpdate == nil {
			s.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
		if s.UpdateStrategy.RollingUpdate.Partition == nil {
			s.UpdateStrategy.RollingUpdate.Partition = ptr(int32(0))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr(int32(10))
	}
	DefaultPodSpec(&s.Template.Spec)
	// Claims outlive their StatefulSet unless asked otherwise (the
	// StatefulSetAutoDeletePVC defaults), and templates are claims.
	if s.PersistentVolumeClaimRetentionPolicy == nil {
		s.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	for i := range s.VolumeClaimTemplates {
		// Every template reads as a v1 PersistentVolumeClaim, whatever
		// apiVersion and kind were sent: kube-apiserver's conversion to
		// apps/v1 sets them (Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec),
		// and protobuf, which carries no nested apiVersion or kind, could
		// not keep others.
		s.VolumeClaimTemplates[i].APIVersion = "v1"
		s.VolumeClaimTemplates[i].Kind = "PersistentVolumeClaim"
		DefaultPersistentVolumeClaimSpec(&s.VolumeClaimTemplates[i].Spec)
		if s.VolumeClaimTemplates[i].Status.Phase == "" {
			s.VolumeClaimTemplates[i].Status.Phase = corev1.ClaimPending
		}
	}
}

// --- validation (pkg/apis/apps/validation) ---

// validateSelectorAndTemplate is the part ReplicaSets, Deployments and
// StatefulSets share: the selector is required, not empty, valid, and
// selects the template's labels.
func validateSelectorAndTemplate(sel *metav1.LabelSelector, t *corev1.PodTemplateSpec, kind string, validateSpec bool) field.ErrorList {
	var errs field.ErrorList
	sp := field.NewPath("spec")
	if sel == nil {
		errs = append(errs, field.Required(sp.Child("selector"), ""))
	} else {
		errs = append(errs, validateLabelSelector(sel, sp.Child("selector"))...)
		if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(sp.Child("selector"), selectorValue{*sel}, "empty selector is invalid for "+kind))
		}
	}
	tp := sp.Child("template")
	selector, err := api.LabelSelectorAsSelector(sel)
	if err != nil {
		return append(errs, field.Invalid(sp.Child("selector"), selectorValue{*sel}, "invalid label selector"))
	}
	if !selector.Empty() && !selector.Matches(labelsOf(t.Labels)) {
		errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
	}
	if validateSpec {
		errs = append(errs, ValidatePodTemplateSpec(t, tp)...)
	} else {
		errs = append(errs, validateLabels(t.Labels, tp.Child("labels"))...)
	}
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), t.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		name := map[string]string{"deployment": "ReplicaSet", "replicaset": "ReplicaSet", "statefulset": "StatefulSet", "daemonset": "DaemonSet"}[kind]
		errs = append(errs, field.Forbidden(tp.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in "+name+" is not Supported"))
	}
	return errs
}

// validateSelectorUnchanged is the apps/v1 strategies' rule that a
// selector, once set, stays.
func validateSelectorUnchanged(sel, old *metav1.LabelSelector) field.ErrorList {
	if jsonEqual(sel, old) {
		return nil
	}
	var v any
	if sel != nil {
		v = selectorValue{*sel}
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), v, immutableErrMsg)}
}

func replicasErrs(r *int32) field.ErrorList {
	if r == nil {
		return nil
	}
	return validateNonnegative(int64(*r), field.NewPath("spec", "replicas"))
}

// --- ReplicaSet (pkg/registry/apps/replicaset/strategy.go) ---

type replicaSetStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate implements registry.Strategy.
func (replicaSetStrategy) PrepareForCreate(obj api.Object) {
	obj.(*appsv1.ReplicaSet).Status = appsv1.ReplicaSetStatus{}
}

// Default implements registry.Strategy.
func (replicaSetStrategy) Default(obj api.Object) { DefaultReplicaSet(obj.(*appsv1.ReplicaSet)) }

// Validate implements registry.Strategy.
func (replicaSetStrategy) Validate(obj api.Object) field.ErrorList {
	return validateReplicaSet(obj.(*appsv1.ReplicaSet))
}

// ValidateUpdate implements registry.Strategy.
func (replicaSetStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	rs := obj.(*appsv1.ReplicaSet)
	errs := validateReplicaSet(rs)
	return append(errs, validateSelectorUnchanged(rs.Spec.Selector, old.(*appsv1.ReplicaSet).Spec.Selector)...)
}

func validateReplicaSet(rs *appsv1.ReplicaSet) field.ErrorList {
	errs := replicasErrs(rs.Spec.Replicas)
	errs = append(errs, validateNonnegative(int64(rs.Spec.MinReadySeconds), field.NewPath("spec", "minReadySeconds"))...)
	// "for deployment" is Kubernetes' own wording for ReplicaSets too.
	return append(errs, validateSelectorAndTemplate(rs.Spec.Selector, &rs.Spec.Template, "deployment", true)...)
}

func replicaSetFields(obj api.Object) fields.Set {
	return fields.Set{"status.replicas": itoa(int(obj.(*appsv1.ReplicaSet).Status.Replicas))}
}

// --- Deployment (pkg/registry/apps/deployment/strategy.go) ---

type deploymentStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate implements registry.Strategy.
func (deploymentStrategy) PrepareForCreate(obj api.Object) {
	obj.(*appsv1.Deployment).Status = appsv1.DeploymentStatus{}
}

// Default implements registry.Strategy.
func (deploymentStrategy) Default(obj api.Object) { DefaultDeployment(obj.(*appsv1.Deployment)) }

// Validate implements registry.Strategy.
func (deploymentStrategy) Validate(obj api.Object) field.ErrorList {
	return validateDeployment(obj.(*appsv1.Deployment))
}

// ValidateUpdate implements registry.Strategy.
func (deploymentStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	d := obj.(*appsv1.Deployment)
	errs := validateDeployment(d)
	return append(errs, validateSelectorUnchanged(d.Spec.Selector, old.(*appsv1.Deployment).Spec.Selector)...)
}

func validateDeployment(d *appsv1.Deployment) field.ErrorList {
	s := &d.Spec
	sp := field.NewPath("spec")
	errs := replicasErrs(s.Replicas)
	errs = append(errs, validateSelectorAndTemplate(s.Selector, &s.Template, "deployment", true)...)
	stp := sp.Child("strategy")
	switch s.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if s.Strategy.RollingUpdate != nil {
			errs = append(errs, field.Forbidden(stp.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"))
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		ru := s.Strategy.RollingUpdate
		if ru == nil {
			errs = append(errs, field.Required(stp.Child("rollingUpdate"), "this should be defaulted and never be nil"))
			break
		}
		rp := stp.Child("rollingUpdate")
		if ru.MaxUnavailable != nil {
			errs = append(errs, validatePercentOrInt(*ru.MaxUnavailable, rp.Child("maxUnavailable"))...)
		}
		if ru.MaxSurge != nil {
			errs = append(errs, validatePercentOrInt(*ru.MaxSurge, rp.Child("maxSurge"))...)
		}
		if intOrPercent(ru.MaxUnavailable) == 0 && intOrPercent(ru.MaxSurge) == 0 {
			errs = append(errs, field.Invalid(rp.Child("maxUnavailable"), ru.MaxUnavailable, "may not be 0 when `maxSurge` is 0"))
		}
		if ru.MaxUnavailable != nil {
			if n, ok := percentValue(*ru.MaxUnavailable); ok && n > 100 {
				errs = append(errs, field.Invalid(rp.Child("maxUnavailable"), ru.MaxUnavailable, "must not be greater than 100%"))
			}
		}
	default:
		errs = append(errs, field.NotSupported(stp, s.Strategy, []string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)}))
	}
	errs = append(errs, validateNonnegative(int64(s.MinReadySeconds), sp.Child("minReadySeconds"))...)
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, validateNonnegative(int64(*s.RevisionHistoryLimit), sp.Child("revisionHistoryLimit"))...)
	}
	if p := s.ProgressDeadlineSeconds; p != nil {
		errs = append(errs, validateNonnegative(int64(*p), sp.Child("progressDeadlineSeconds"))...)
		if *p <= s.MinReadySeconds {
			errs = append(errs, field.Invalid(sp.Child("progressDeadlineSeconds"), *p, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// --- StatefulSet (pkg/registry/apps/statefulset/strategy.go) ---

type statefulSetStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate implements registry.Strategy.
func (statefulSetStrategy) PrepareForCreate(obj api.Object) {
	obj.(*appsv1.StatefulSet).Status = appsv1.StatefulSetStatus{}
}

// Default implements registry.Strategy.
func (statefulSetStrategy) Default(obj api.Object) { DefaultStatefulSet(obj.(*appsv1.StatefulSet)) }

// Validate implements registry.Strategy.
func (statefulSetStrategy) Validate(obj api.Object) field.ErrorList {
	return validateStatefulSet(obj.(*appsv1.StatefulSet))
}

// ValidateUpdate allows only replicas, template, updateStrategy and
// minReadySeconds to change, in Kubernetes' words.
func (statefulSetStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	ss, o := obj.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet)
	errs := validateStatefulSet(ss)
	clone := ss.Spec.DeepCopy()
	clone.Replicas = o.Spec.Replicas
	clone.Template = o.Spec.Template
	clone.UpdateStrategy = o.Spec.UpdateStrategy
	clone.MinReadySeconds = o.Spec.MinReadySeconds
	clone.PersistentVolumeClaimRetentionPolicy = o.Spec.PersistentVolumeClaimRetentionPolicy
	if !jsonEqual(clone, &o.Spec) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"))
	}
	return errs
}

// validateStatefulSet follows ValidateStatefulSetSpec, which (as its TODO
// says) checks the template's labels but not its pod spec: a StatefulSet
// with a bad template is accepted and its pods fail at creation.
func validateStatefulSet(ss *appsv1.StatefulSet) field.ErrorList {
	s := &ss.Spec
	sp := field.NewPath("spec")
	var errs field.ErrorList
	switch s.PodManagementPolicy {
	case "":
		errs = append(errs, field.Required(sp.Child("podManagementPolicy"), ""))
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	default:
		errs = append(errs, field.Invalid(sp.Child("podManagementPolicy"), s.PodManagementPolicy, "must be 'OrderedReady' or 'Parallel'"))
	}
	up := sp.Child("updateStrategy")
	switch s.UpdateStrategy.Type {
	case "":
		errs = append(errs, field.Required(up, ""))
	case appsv1.OnDeleteStatefulSetStrategyType:
		if s.UpdateStrategy.RollingUpdate != nil {
			errs = append(errs, field.Invalid(up.Child("rollingUpdate"), s.UpdateStrategy.RollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"))
		}
	case appsv1.RollingUpdateStatefulSetStrategyType:
		if ru := s.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
			errs = append(errs, validateNonnegative(int64(*ru.Partition), up.Child("rollingUpdate", "partition"))...)
		}
	default:
		errs = append(errs, field.Invalid(up, s.UpdateStrategy, "must be 'RollingUpdate' or 'OnDelete'"))
	}
	errs = append(errs, replicasErrs(s.Replicas)...)
	errs = append(errs, validateNonnegative(int64(s.MinReadySeconds), sp.Child("minReadySeconds"))...)
	if rp := s.PersistentVolumeClaimRetentionPolicy; rp != nil {
		policies := []string{string(appsv1.RetainPersistentVolumeClaimRetentionPolicyType), string(appsv1.DeletePersistentVolumeClaimRetentionPolicyType)}
		pp := sp.Child("persistentVolumeClaimRetentionPolicy")
		if !slices.Contains(policies, string(rp.WhenDeleted)) {
			errs = append(errs, field.NotSupported(pp.Child("whenDeleted"), rp.WhenDeleted, policies))
		}
		if !slices.Contains(policies, string(rp.WhenScaled)) {
			errs = append(errs, field.NotSupported(pp.Child("whenScaled"), rp.WhenScaled, policies))
		}
	}
	return append(errs, validateSelectorAndTemplate(s.Selector, &s.Template, "statefulset", false)...)
}

// --- ControllerRevision (pkg/registry/apps/controllerrevision/strategy.go) ---

type controllerRevisionStrategy struct{ registry.DefaultStrategy }

// Validate is ValidateControllerRevision: data is mandatory and the
// revision not negative.
func (controllerRevisionStrategy) Validate(obj api.Object) field.ErrorList {
	cr := obj.(*appsv1.ControllerRevision)
	var errs field.ErrorList
	if len(cr.Data.Raw) == 0 || string(cr.Data.Raw) == "null" {
		errs = append(errs, field.Required(field.NewPath("data"), "data is mandatory"))
	}
	return append(errs, validateNonnegative(cr.Revision, field.NewPath("revision"))...)
}

// ValidateUpdate adds ValidateControllerRevisionUpdate's rule: the data of
// a revision never changes (only its revision number may, when a rollback
// makes an old revision the newest again).
func (s controllerRevisionStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	cr, o := obj.(*appsv1.ControllerRevision), old.(*appsv1.ControllerRevision)
	errs := s.Validate(obj)
	if !jsonEqual(cr.Data.Raw, o.Data.Raw) {
		errs = append(errs, field.Invalid(field.NewPath("data"), string(cr.Data.Raw), immutableErrMsg))
	}
	return errs
}
