package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

func samplePVC(meta metav1.ObjectMeta) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: meta, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		VolumeName:  "pvc-1", StorageClassName: ptr("standard"), VolumeMode: ptr(corev1.PersistentVolumeFilesystem)},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}
}

func samplePV(meta metav1.ObjectMeta) *corev1.PersistentVolume {
	meta.Namespace = ""
	return &corev1.PersistentVolume{ObjectMeta: meta, Spec: corev1.PersistentVolumeSpec{
		Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")},
		PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}},
		AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadOnlyMany},
		ClaimRef:                      &corev1.ObjectReference{Namespace: "default", Name: "data"},
		PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain, StorageClassName: "manual"},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound}}
}

func sampleStorageClass(meta metav1.ObjectMeta) *storagev1.StorageClass {
	meta.Namespace = ""
	meta.Name = "standard"
	meta.Annotations = map[string]string{api.AnnDefaultStorageClass: "true"}
	return &storagev1.StorageClass{ObjectMeta: meta, Provisioner: "kubesim.io/hostpath",
		VolumeBindingMode: ptr(storagev1.VolumeBindingWaitForFirstConsumer)}
}

func TestStorageTableCells(t *testing.T) {
	objs := sampleObjects()
	cells := func(name string) []any { return builtin(t, name).Table.Cells(objs[name], tableNow) }
	assert.Equal(t, []any{"x", "Bound", "pvc-1", "1Gi", "RWO", "standard", "<unset>", "3h", "Filesystem"}, cells("persistentvolumeclaims"))
	assert.Equal(t, []any{"x", "5Gi", "RWO,ROX", "Retain", "Bound", "default/data", "manual", "<unset>", "", "3h", "<unset>"}, cells("persistentvolumes"))
	assert.Equal(t, []any{"standard (default)", "kubesim.io/hostpath", "Delete", "WaitForFirstConsumer", "false", "3h"}, cells("storageclasses"))
	// A pending claim shows neither capacity nor access modes.
	pending := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	got := builtin(t, "persistentvolumeclaims").Table.Cells(pending, tableNow)
	assert.Equal(t, []any{"", "Pending", "", "", "", ""}, got[:6])
}

func TestStorageDefaults(t *testing.T) {
	pv := &corev1.PersistentVolume{}
	pvStrategy{}.Default(pv)
	assert.Equal(t, corev1.PersistentVolumeReclaimRetain, pv.Spec.PersistentVolumeReclaimPolicy, "a static volume is retained")
	assert.Equal(t, corev1.PersistentVolumeFilesystem, *pv.Spec.VolumeMode)

	sc := &storagev1.StorageClass{}
	storageClassStrategy{}.Default(sc)
	assert.Equal(t, corev1.PersistentVolumeReclaimDelete, *sc.ReclaimPolicy)
	assert.Equal(t, storagev1.VolumeBindingImmediate, *sc.VolumeBindingMode)

	pvc := &corev1.PersistentVolumeClaim{}
	pvcStrategy{}.PrepareForCreate(pvc)
	pvcStrategy{}.Default(pvc)
	assert.Equal(t, corev1.ClaimPending, pvc.Status.Phase)
	assert.Equal(t, corev1.PersistentVolumeFilesystem, *pvc.Spec.VolumeMode)

	ss := &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{}}}}
	DefaultStatefulSet(ss)
	assert.Equal(t, appsv1.RetainPersistentVolumeClaimRetentionPolicyType, ss.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted)
	assert.Equal(t, appsv1.RetainPersistentVolumeClaimRetentionPolicyType, ss.Spec.PersistentVolumeClaimRetentionPolicy.WhenScaled)
	assert.Equal(t, corev1.PersistentVolumeFilesystem, *ss.Spec.VolumeClaimTemplates[0].Spec.VolumeMode)
}

func TestValidatePersistentVolumeClaim(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "data", Namespace: "default"}
	for _, tc := range []struct {
		name string
		spec corev1.PersistentVolumeClaimSpec
		want []string
	}{
		{"valid", samplePVC(meta).Spec, nil},
		{"no access modes, no storage", corev1.PersistentVolumeClaimSpec{}, []string{
			"spec.accessModes: Required value: at least 1 access mode is required",
			"spec.resources[storage]: Required value"}},
		{"bad mode", corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{"ReadSometimes"},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("0")}}}, []string{
			`spec.accessModes: Unsupported value: "ReadSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`,
			`spec.resources.requests[storage]: Invalid value: "0": must be greater than zero`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := pvcStrategy{}.Validate(&corev1.PersistentVolumeClaim{ObjectMeta: meta, Spec: tc.spec})
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestPersistentVolumeClaimSpecIsImmutable(t *testing.T) {
	old := samplePVC(metav1.ObjectMeta{Name: "data", Namespace: "default"})
	old.Spec.VolumeName = ""
	old.Status.Phase = corev1.ClaimPending
	// The PV controller sets volumeName once.
	bound := old.DeepCopy()
	bound.Spec.VolumeName = "pv-1"
	assert.Empty(t, pvcStrategy{}.ValidateUpdate(bound, old))
	// Nobody changes the access modes.
	changed := bound.DeepCopy()
	changed.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
	errs := pvcStrategy{}.ValidateUpdate(changed, bound)
	require.Len(t, errs, 1)
	assert.Equal(t, "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims", errs[0].Error())
}

func TestValidatePersistentVolume(t *testing.T) {
	pv := samplePV(metav1.ObjectMeta{Name: "pv-1"})
	assert.Empty(t, pvStrategy{}.Validate(pv))
	empty := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-2"}}
	var got []string
	for _, e := range (pvStrategy{}).Validate(empty) {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		"spec.accessModes: Required value: at least 1 access mode is required",
		"spec.capacity: Required value",
		"spec: Required value: must specify a volume type",
	}, got)
	local := pv.DeepCopy()
	local.Spec.HostPath, local.Spec.Local = nil, &corev1.LocalVolumeSource{Path: "/mnt/disk"}
	errs := pvStrategy{}.Validate(local)
	require.Len(t, errs, 1)
	assert.Equal(t, "spec.nodeAffinity: Required value: Local volume requires node affinity", errs[0].Error())

	moved := pv.DeepCopy()
	moved.Spec.HostPath.Path = "/elsewhere"
	errs = pvStrategy{}.ValidateUpdate(moved, pv)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation")
}

func TestValidateStorageClass(t *testing.T) {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}}
	storageClassStrategy{}.Default(sc)
	errs := storageClassStrategy{}.Validate(sc)
	require.Len(t, errs, 1)
	assert.Equal(t, "provisioner: Required value", errs[0].Error())

	sc.Provisioner = "kubesim.io/hostpath"
	require.Empty(t, storageClassStrategy{}.Validate(sc))
	upd := sc.DeepCopy()
	upd.Provisioner = "example.com/other"
	upd.Parameters = map[string]string{"type": "ssd"}
	upd.ReclaimPolicy = ptr(corev1.PersistentVolumeReclaimRetain)
	upd.VolumeBindingMode = ptr(storagev1.VolumeBindingWaitForFirstConsumer)
	var got []string
	for _, e := range (storageClassStrategy{}).ValidateUpdate(upd, sc) {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		"parameters: Forbidden: updates to parameters are forbidden.",
		"provisioner: Forbidden: updates to provisioner are forbidden.",
		"reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.",
		`volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable`,
	}, got)
	// Annotations (the default-class mark) may change.
	ann := sc.DeepCopy()
	ann.Annotations = map[string]string{api.AnnDefaultStorageClass: "true"}
	assert.Empty(t, storageClassStrategy{}.ValidateUpdate(ann, sc))
	assert.True(t, IsDefaultStorageClass(ann))
}

func TestStorageResourcesRegistered(t *testing.T) {
	for name, want := range map[string]struct {
		group, short, kind string
		namespaced         bool
	}{
		"persistentvolumeclaims": {"", "pvc", "PersistentVolumeClaim", true},
		"persistentvolumes":      {"", "pv", "PersistentVolume", false},
		"storageclasses":         {"storage.k8s.io", "sc", "StorageClass", false},
	} {
		r := builtin(t, name)
		assert.Equal(t, want.group, r.Group, name)
		assert.Equal(t, "v1", r.Version, name)
		assert.Equal(t, want.kind, r.Kind, name)
		assert.Equal(t, []string{want.short}, r.ShortNames, name)
		assert.Equal(t, want.namespaced, r.Namespaced, name)
		assert.Equal(t, name != "storageclasses", r.StatusSubresource, name)
		assert.Empty(t, r.Categories, name, "not in kubectl get all")
	}
}
