package kinds

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// storageResources are PersistentVolumeClaims, PersistentVolumes (core/v1)
// and StorageClasses (storage.k8s.io/v1). Their
// strategies follow pkg/registry/core/persistentvolume{,claim} and
// pkg/registry/storage/storageclass; validation pkg/apis/core/validation
// and pkg/apis/storage/validation.
func storageResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{
		{
			Version: "v1", Name: "persistentvolumeclaims", SingularName: "persistentvolumeclaim",
			Kind: "PersistentVolumeClaim", ListKind: "PersistentVolumeClaimList",
			ShortNames: []string{"pvc"}, Namespaced: true,
			New:                 func() api.Object { return &corev1.PersistentVolumeClaim{} },
			StrategicMergePatch: true,
			Strategy:            pvcStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.PersistentVolumeClaim{})),
			StatusSubresource:   true,
			Table:               pvcTable(),
		},
		{
			Version: "v1", Name: "persistentvolumes", SingularName: "persistentvolume",
			Kind: "PersistentVolume", ListKind: "PersistentVolumeList",
			ShortNames:          []string{"pv"},
			New:                 func() api.Object { return &corev1.PersistentVolume{} },
			StrategicMergePatch: true,
			Strategy:            pvStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(corev1.PersistentVolume{})),
			StatusSubresource:   true,
			Table:               pvTable(),
		},
		{
			Group: api.StorageGroupName, Version: "v1", Name: "storageclasses", SingularName: "storageclass",
			Kind: "StorageClass", ListKind: "StorageClassList",
			ShortNames:          []string{"sc"},
			New:                 func() api.Object { return &storagev1.StorageClass{} },
			StrategicMergePatch: true,
			Strategy:            storageClassStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(storagev1.StorageClass{})),
			Table:               storageClassTable(),
		},
	}
}

var (
	supportedAccessModes  = []string{string(corev1.ReadOnlyMany), string(corev1.ReadWriteMany), string(corev1.ReadWriteOnce), string(corev1.ReadWriteOncePod)}
	supportedVolumeModes  = []string{string(corev1.PersistentVolumeBlock), string(corev1.PersistentVolumeFilesystem)}
	supportedPVReclaim    = []string{string(corev1.PersistentVolumeReclaimDelete), string(corev1.PersistentVolumeReclaimRecycle), string(corev1.PersistentVolumeReclaimRetain)}
	supportedClassReclaim = []string{string(corev1.PersistentVolumeReclaimDelete), string(corev1.PersistentVolumeReclaimRetain)}
	supportedBindingModes = []string{string(storagev1.VolumeBindingImmediate), string(storagev1.VolumeBindingWaitForFirstConsumer)}
)

// --- PersistentVolumeClaim ---

type pvcStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate starts every claim Pending, as the PV controller would
// see it.
func (pvcStrategy) PrepareForCreate(obj api.Object) {
	obj.(*corev1.PersistentVolumeClaim).Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
}

// Default is SetDefaults_PersistentVolumeClaim: volumeMode Filesystem.
func (pvcStrategy) Default(obj api.Object) {
	DefaultPersistentVolumeClaimSpec(&obj.(*corev1.PersistentVolumeClaim).Spec)
}

// DefaultPersistentVolumeClaimSpec sets volumeMode Filesystem; the
// StatefulSet defaulting applies it to volumeClaimTemplates too.
func DefaultPersistentVolumeClaimSpec(s *corev1.PersistentVolumeClaimSpec) {
	if s.VolumeMode == nil {
		s.VolumeMode = ptr(corev1.PersistentVolumeFilesystem)
	}
}

// Validate implements registry.Strategy.
func (pvcStrategy) Validate(obj api.Object) field.ErrorList {
	return ValidatePersistentVolumeClaimSpec(&obj.(*corev1.PersistentVolumeClaim).Spec, field.NewPath("spec"))
}

// ValidateUpdate is ValidatePersistentVolumeClaimUpdate: the spec is
// immutable, except that volumeName may be set once (by the PV
// controller) and a bound claim's storage request may change.
func (s pvcStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	pvc, o := obj.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim)
	errs := s.Validate(obj)
	newSpec, oldSpec := pvc.Spec.DeepCopy(), o.Spec.DeepCopy()
	if oldSpec.VolumeName == "" {
		oldSpec.VolumeName = newSpec.VolumeName
	}
	if pvc.Status.Phase == corev1.ClaimBound && newSpec.Resources.Requests != nil {
		if q, ok := oldSpec.Resources.Requests[corev1.ResourceStorage]; ok {
			newSpec.Resources.Requests[corev1.ResourceStorage] = q
		}
	}
	newSpec.VolumeAttributesClassName, oldSpec.VolumeAttributesClassName = nil, nil
	if !jsonEqual(newSpec, oldSpec) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"))
	}
	return errs
}

// ValidatePersistentVolumeClaimSpec checks a claim's spec (also a
// StatefulSet's volumeClaimTemplates), in Kubernetes' words.
func ValidatePersistentVolumeClaimSpec(s *corev1.PersistentVolumeClaimSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateAccessModes(s.AccessModes, p.Child("accessModes"))...)
	if s.Selector != nil {
		errs = append(errs, validateLabelSelector(s.Selector, p.Child("selector"))...)
	}
	rp := p.Child("resources")
	q, ok := s.Resources.Requests[corev1.ResourceStorage]
	switch {
	case !ok:
		errs = append(errs, field.Required(rp.Key(string(corev1.ResourceStorage)), ""))
	case q.Sign() <= 0:
		errs = append(errs, field.Invalid(rp.Child("requests").Key(string(corev1.ResourceStorage)), q.String(), "must be greater than zero"))
	}
	if s.StorageClassName != nil && *s.StorageClassName != "" {
		for _, msg := range labels.IsDNS1123Subdomain(*s.StorageClassName) {
			errs = append(errs, field.Invalid(p.Child("storageClassName"), *s.StorageClassName, msg))
		}
	}
	if s.VolumeMode != nil && !slices.Contains(supportedVolumeModes, string(*s.VolumeMode)) {
		errs = append(errs, field.NotSupported(p.Child("volumeMode"), *s.VolumeMode, supportedVolumeModes))
	}
	return errs
}

func validateAccessModes(modes []corev1.PersistentVolumeAccessMode, p *field.Path) field.ErrorList {
	if len(modes) == 0 {
		return field.ErrorList{field.Required(p, "at least 1 access mode is required")}
	}
	var errs field.ErrorList
	for _, m := range modes {
		if !slices.Contains(supportedAccessModes, string(m)) {
			errs = append(errs, field.NotSupported(p, m, supportedAccessModes))
		}
	}
	if slices.Contains(modes, corev1.ReadWriteOncePod) && len(modes) > 1 {
		errs = append(errs, field.Forbidden(p, "may not use ReadWriteOncePod with other access modes"))
	}
	return errs
}

// --- PersistentVolume ---

type pvStrategy struct{ registry.DefaultStrategy }

// PrepareForCreate starts every volume Pending.
func (pvStrategy) PrepareForCreate(obj api.Object) {
	obj.(*corev1.PersistentVolume).Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending}
}

// Default is SetDefaults_PersistentVolume: reclaim policy Retain (a static
// volume is the administrator's to clean), volumeMode Filesystem.
func (pvStrategy) Default(obj api.Object) {
	pv := obj.(*corev1.PersistentVolume)
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		pv.Spec.VolumeMode = ptr(corev1.PersistentVolumeFilesystem)
	}
	if pv.Status.Phase == "" {
		pv.Status.Phase = corev1.VolumePending
	}
}

// Validate is ValidatePersistentVolumeSpec.
func (pvStrategy) Validate(obj api.Object) field.ErrorList {
	pv := obj.(*corev1.PersistentVolume)
	s, p := &pv.Spec, field.NewPath("spec")
	errs := validateAccessModes(s.AccessModes, p.Child("accessModes"))
	if len(s.Capacity) == 0 {
		errs = append(errs, field.Required(p.Child("capacity"), ""))
	} else if q, ok := s.Capacity[corev1.ResourceStorage]; !ok || len(s.Capacity) > 1 {
		for k := range s.Capacity {
			if k != corev1.ResourceStorage {
				errs = append(errs, field.NotSupported(p.Child("capacity"), k, []string{string(corev1.ResourceStorage)}))
			}
		}
	} else if q.Sign() <= 0 {
		errs = append(errs, field.Invalid(p.Child("capacity").Key(string(corev1.ResourceStorage)), q.String(), "must be greater than zero"))
	}
	if r := s.PersistentVolumeReclaimPolicy; r != "" && !slices.Contains(supportedPVReclaim, string(r)) {
		errs = append(errs, field.NotSupported(p.Child("persistentVolumeReclaimPolicy"), r, supportedPVReclaim))
	}
	if s.StorageClassName != "" {
		for _, msg := range labels.IsDNS1123Subdomain(s.StorageClassName) {
			errs = append(errs, field.Invalid(p.Child("storageClassName"), s.StorageClassName, msg))
		}
	}
	if s.VolumeMode != nil && !slices.Contains(supportedVolumeModes, string(*s.VolumeMode)) {
		errs = append(errs, field.NotSupported(p.Child("volumeMode"), *s.VolumeMode, supportedVolumeModes))
	}
	sources := 0
	if s.HostPath != nil {
		sources++
		if s.HostPath.Path == "" {
			errs = append(errs, field.Required(p.Child("hostPath", "path"), ""))
		}
	}
	if s.Local != nil {
		sources++
		if s.Local.Path == "" {
			errs = append(errs, field.Required(p.Child("local", "path"), ""))
		}
		if s.NodeAffinity == nil || s.NodeAffinity.Required == nil {
			errs = append(errs, field.Required(p.Child("nodeAffinity"), "Local volume requires node affinity"))
		}
	}
	if s.CSI != nil {
		// validateCSIPersistentVolumeSource: a driver name and a handle.
		sources++
		errs = append(errs, validateDriverName(s.CSI.Driver, p.Child("csi", "driver"))...)
		if s.CSI.VolumeHandle == "" {
			errs = append(errs, field.Required(p.Child("csi", "volumeHandle"), ""))
		}
	}
	switch {
	case sources == 0:
		errs = append(errs, field.Required(p, "must specify a volume type"))
	case sources > 1:
		errs = append(errs, field.Forbidden(p, "may not specify more than 1 volume type"))
	}
	if s.NodeAffinity != nil {
		errs = append(errs, validateVolumeNodeAffinity(s.NodeAffinity, p.Child("nodeAffinity"))...)
	}
	return errs
}

func validateVolumeNodeAffinity(a *corev1.VolumeNodeAffinity, p *field.Path) field.ErrorList {
	if a.Required == nil {
		return field.ErrorList{field.Required(p.Child("required"), "must specify required node constraints")}
	}
	rp := p.Child("required", "nodeSelectorTerms")
	if len(a.Required.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(rp, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, t := range a.Required.NodeSelectorTerms {
		for j, r := range t.MatchExpressions {
			ep := rp.Index(i).Child("matchExpressions").Index(j)
			switch r.Operator {
			case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
				if len(r.Values) == 0 {
					errs = append(errs, field.Required(ep.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
				}
			case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
				if len(r.Values) > 0 {
					errs = append(errs, field.Forbidden(ep.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
				}
			case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
				if len(r.Values) != 1 {
					errs = append(errs, field.Required(ep.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
				}
			default:
				errs = append(errs, field.Invalid(ep.Child("operator"), r.Operator, "not a valid selector operator"))
			}
		}
	}
	return errs
}

// ValidateUpdate is ValidatePersistentVolumeUpdate: the source and the
// volume mode never change, node affinity only from unset.
func (s pvStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	pv, o := obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume)
	errs := s.Validate(obj)
	if !jsonEqual(pv.Spec.PersistentVolumeSource, o.Spec.PersistentVolumeSource) {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "persistentvolumesource"), "spec.persistentvolumesource is immutable after creation"))
	}
	if !jsonEqual(pv.Spec.VolumeMode, o.Spec.VolumeMode) {
		errs = append(errs, field.Invalid(field.NewPath("volumeMode"), pv.Spec.VolumeMode, immutableErrMsg))
	}
	if o.Spec.NodeAffinity != nil && !jsonEqual(pv.Spec.NodeAffinity, o.Spec.NodeAffinity) {
		errs = append(errs, field.Invalid(field.NewPath("nodeAffinity"), pv.Spec.NodeAffinity, immutableErrMsg))
	}
	return errs
}

// --- StorageClass ---

type storageClassStrategy struct{ registry.DefaultStrategy }

// Default is SetDefaults_StorageClass: reclaim policy Delete (a
// provisioned volume goes with its claim), binding mode Immediate.
func (storageClassStrategy) Default(obj api.Object) {
	sc := obj.(*storagev1.StorageClass)
	if sc.ReclaimPolicy == nil {
		sc.ReclaimPolicy = ptr(corev1.PersistentVolumeReclaimDelete)
	}
	if sc.VolumeBindingMode == nil {
		sc.VolumeBindingMode = ptr(storagev1.VolumeBindingImmediate)
	}
}

// Validate is ValidateStorageClass.
func (storageClassStrategy) Validate(obj api.Object) field.ErrorList {
	sc := obj.(*storagev1.StorageClass)
	var errs field.ErrorList
	pp := field.NewPath("provisioner")
	if sc.Provisioner == "" {
		errs = append(errs, field.Required(pp, ""))
	} else {
		for _, msg := range labels.IsQualifiedName(strings.ToLower(sc.Provisioner)) {
			errs = append(errs, field.Invalid(pp, sc.Provisioner, msg))
		}
	}
	if sc.ReclaimPolicy != nil && !slices.Contains(supportedClassReclaim, string(*sc.ReclaimPolicy)) {
		errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), *sc.ReclaimPolicy, supportedClassReclaim))
	}
	bp := field.NewPath("volumeBindingMode")
	if sc.VolumeBindingMode == nil {
		errs = append(errs, field.Required(bp, ""))
	} else if !slices.Contains(supportedBindingModes, string(*sc.VolumeBindingMode)) {
		errs = append(errs, field.NotSupported(bp, *sc.VolumeBindingMode, supportedBindingModes))
	}
	return errs
}

// ValidateUpdate is ValidateStorageClassUpdate: provisioner, parameters,
// reclaim policy and binding mode are fixed at creation.
func (s storageClassStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	sc, o := obj.(*storagev1.StorageClass), old.(*storagev1.StorageClass)
	errs := s.Validate(obj)
	if !reflect.DeepEqual(sc.Parameters, o.Parameters) {
		errs = append(errs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	if sc.Provisioner != o.Provisioner {
		errs = append(errs, field.Forbidden(field.NewPath("provisioner"), "updates to provisioner are forbidden."))
	}
	if !jsonEqual(sc.ReclaimPolicy, o.ReclaimPolicy) {
		errs = append(errs, field.Forbidden(field.NewPath("reclaimPolicy"), "updates to reclaimPolicy are forbidden."))
	}
	if !jsonEqual(sc.VolumeBindingMode, o.VolumeBindingMode) {
		errs = append(errs, field.Invalid(field.NewPath("volumeBindingMode"), sc.VolumeBindingMode, immutableErrMsg))
	}
	return errs
}

// IsDefaultStorageClass reports the default-class annotation (or its beta
// twin) set to "true", as storageutil.IsDefaultAnnotation does.
func IsDefaultStorageClass(sc *storagev1.StorageClass) bool {
	return sc.Annotations[api.AnnDefaultStorageClass] == "true" ||
		sc.Annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true"
}

// --- tables (printPersistentVolumeClaim, printPersistentVolume, printStorageClass) ---

// AccessModesString is helper.GetAccessModesAsString: RWO,ROX,RWX,RWOP.
func AccessModesString(modes []corev1.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"}, {corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"}} {
		if slices.Contains(modes, m.mode) {
			out = append(out, m.short)
		}
	}
	return strings.Join(out, ",")
}

// PVCClass is the class a claim asks for: the beta annotation wins over
// spec.storageClassName (helper.GetPersistentVolumeClaimClass).
func PVCClass(pvc *corev1.PersistentVolumeClaim) string {
	if c, ok := pvc.Annotations["volume.beta.kubernetes.io/storage-class"]; ok {
		return c
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}

func unsetOr(s *string) string {
	if s == nil || *s == "" {
		return "<unset>"
	}
	return *s
}

func volumeModeCell(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return "<unset>"
	}
	return string(*m)
}

func pvcTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Status", "string", "phase represents the current phase of PersistentVolumeClaim."),
			col("Volume", "string", "volumeName is the binding reference to the PersistentVolume backing this claim."),
			col("Capacity", "string", "capacity represents the actual resources of the underlying volume."),
			col("Access Modes", "string", "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"),
			col("StorageClass", "string", "StorageClass of the pvc"),
			col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
			registry.AgeColumn,
			wide(col("VolumeMode", "string", "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.")),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			pvc := obj.(*corev1.PersistentVolumeClaim)
			phase := string(pvc.Status.Phase)
			if pvc.DeletionTimestamp != nil {
				phase = "Terminating"
			}
			capacity, modes := "", ""
			if pvc.Spec.VolumeName != "" {
				modes = AccessModesString(pvc.Status.AccessModes)
				q := pvc.Status.Capacity[corev1.ResourceStorage]
				capacity = q.String()
			}
			return []any{pvc.Name, phase, pvc.Spec.VolumeName, capacity, modes, PVCClass(pvc),
				unsetOr(pvc.Spec.VolumeAttributesClassName), age(pvc.CreationTimestamp.Time, now), volumeModeCell(pvc.Spec.VolumeMode)}
		},
	}
}

func pvTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Capacity", "string", "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"),
			col("Access Modes", "string", "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"),
			col("Reclaim Policy", "string", "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"),
			col("Status", "string", "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"),
			col("Claim", "string", "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"),
			col("StorageClass", "string", "StorageClass of the pv"),
			col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
			col("Reason", "string", "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI."),
			registry.AgeColumn,
			wide(col("VolumeMode", "string", "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.")),
		},
		Cells: func(obj api.Object, now time.Time) []any {
			pv := obj.(*corev1.PersistentVolume)
			claim := ""
			if r := pv.Spec.ClaimRef; r != nil {
				claim = r.Namespace + "/" + r.Name
			}
			phase := string(pv.Status.Phase)
			if pv.DeletionTimestamp != nil {
				phase = "Terminating"
			}
			q := pv.Spec.Capacity[corev1.ResourceStorage]
			return []any{pv.Name, q.String(), AccessModesString(pv.Spec.AccessModes), string(pv.Spec.PersistentVolumeReclaimPolicy),
				phase, claim, pv.Spec.StorageClassName, unsetOr(pv.Spec.VolumeAttributesClassName), pv.Status.Reason,
				age(pv.CreationTimestamp.Time, now), volumeModeCell(pv.Spec.VolumeMode)}
		},
	}
}

func storageClassTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Provisioner", "string", "provisioner indicates the type of the provisioner."),
			col("ReclaimPolicy", "string", "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete."),
			col("VolumeBindingMode", "string", "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature."),
			col("AllowVolumeExpansion", "string", "allowVolumeExpansion shows whether the storage class allow volume expand."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			sc := obj.(*storagev1.StorageClass)
			name := sc.Name
			if IsDefaultStorageClass(sc) {
				name += " (default)"
			}
			reclaim := string(corev1.PersistentVolumeReclaimDelete)
			if sc.ReclaimPolicy != nil {
				reclaim = string(*sc.ReclaimPolicy)
			}
			mode := string(storagev1.VolumeBindingImmediate)
			if sc.VolumeBindingMode != nil {
				mode = string(*sc.VolumeBindingMode)
			}
			expand := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
			return []any{name, sc.Provisioner, reclaim, mode, fmt.Sprint(expand), age(sc.CreationTimestamp.Time, now)}
		},
	}
}
