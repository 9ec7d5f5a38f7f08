package admission

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

func class(name string, def bool, created time.Time) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)}}
	if def {
		sc.Annotations = map[string]string{api.AnnDefaultStorageClass: "true"}
	}
	return sc
}

func TestDefaultClass(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		classes []*storagev1.StorageClass
		want    string
	}{
		{"none", nil, ""},
		{"no default", []*storagev1.StorageClass{class("a", false, t0)}, ""},
		{"one default", []*storagev1.StorageClass{class("a", false, t0), class("standard", true, t0)}, "standard"},
		{"newest of two wins", []*storagev1.StorageClass{class("old", true, t0), class("new", true, t0.Add(time.Hour))}, "new"},
		{"same age: first by name", []*storagev1.StorageClass{class("b", true, t0), class("a", true, t0)}, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DefaultClass(tc.classes)
			if tc.want == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tc.want, got.Name)
		})
	}
}

func pvcAttrs(pvc *corev1.PersistentVolumeClaim) *Attributes {
	return &Attributes{Operation: Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"},
		Namespace: "default", Name: pvc.Name, Object: pvc}
}

func TestDefaultStorageClassAdmit(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := &DefaultStorageClass{List: func(context.Context) ([]*storagev1.StorageClass, error) {
		return []*storagev1.StorageClass{class("standard", true, t0)}, nil
	}}
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"}}
	require.NoError(t, d.Admit(context.Background(), pvcAttrs(pvc)))
	require.NotNil(t, pvc.Spec.StorageClassName)
	assert.Equal(t, "standard", *pvc.Spec.StorageClassName)

	// "" asks for no class and stays.
	empty := ""
	none := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "static"}, Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &empty}}
	require.NoError(t, d.Admit(context.Background(), pvcAttrs(none)))
	assert.Equal(t, "", *none.Spec.StorageClassName)

	// An update never changes the class.
	upd := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"}}
	a := pvcAttrs(upd)
	a.Operation = Update
	require.NoError(t, d.Admit(context.Background(), a))
	assert.Nil(t, upd.Spec.StorageClassName)
}

func TestStorageObjectInUseProtection(t *testing.T) {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"}}
	require.NoError(t, StorageObjectInUseProtection{}.Admit(context.Background(), pvcAttrs(pvc)))
	assert.Equal(t, []string{api.PVCProtectionFinalizer}, pvc.Finalizers)
	// Idempotent.
	require.NoError(t, StorageObjectInUseProtection{}.Admit(context.Background(), pvcAttrs(pvc)))
	assert.Equal(t, []string{api.PVCProtectionFinalizer}, pvc.Finalizers)

	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}}
	require.NoError(t, StorageObjectInUseProtection{}.Admit(context.Background(), &Attributes{Operation: Create,
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}, Name: "pv-1", Object: pv}))
	assert.Equal(t, []string{api.PVProtectionFinalizer}, pv.Finalizers)
}
