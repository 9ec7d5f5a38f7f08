package admission

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
)

func class(name string, def bool, created time.Time) *api.StorageClass {
	sc := &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: name, CreationTimestamp: api.NewTime(created)}}
	if def {
		sc.Annotations = map[string]string{api.AnnDefaultStorageClass: "true"}
	}
	return sc
}

func TestDefaultClass(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		classes []*api.StorageClass
		want    string
	}{
		{"none", nil, ""},
		{"no default", []*api.StorageClass{class("a", false, t0)}, ""},
		{"one default", []*api.StorageClass{class("a", false, t0), class("standard", true, t0)}, "standard"},
		{"newest of two wins", []*api.StorageClass{class("old", true, t0), class("new", true, t0.Add(time.Hour))}, "new"},
		{"same age: first by name", []*api.StorageClass{class("b", true, t0), class("a", true, t0)}, "a"},
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

func pvcAttrs(pvc *api.PersistentVolumeClaim) *Attributes {
	return &Attributes{Operation: Create, Resource: api.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"},
		Namespace: "default", Name: pvc.Name, Object: pvc}
}

func TestDefaultStorageClassAdmit(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := &DefaultStorageClass{List: func(context.Context) ([]*api.StorageClass, error) {
		return []*api.StorageClass{class("standard", true, t0)}, nil
	}}
	pvc := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data"}}
	require.NoError(t, d.Admit(context.Background(), pvcAttrs(pvc)))
	require.NotNil(t, pvc.Spec.StorageClassName)
	assert.Equal(t, "standard", *pvc.Spec.StorageClassName)

	// "" asks for no class and stays.
	empty := ""
	none := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "static"}, Spec: api.PersistentVolumeClaimSpec{StorageClassName: &empty}}
	require.NoError(t, d.Admit(context.Background(), pvcAttrs(none)))
	assert.Equal(t, "", *none.Spec.StorageClassName)

	// An update never changes the class.
	upd := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data"}}
	a := pvcAttrs(upd)
	a.Operation = Update
	require.NoError(t, d.Admit(context.Background(), a))
	assert.Nil(t, upd.Spec.StorageClassName)
}

func TestStorageObjectInUseProtection(t *testing.T) {
	pvc := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data"}}
	require.NoError(t, StorageObjectInUseProtection{}.Admit(context.Background(), pvcAttrs(pvc)))
	assert.Equal(t, []string{api.PVCProtectionFinalizer}, pvc.Finalizers)
	// Idempotent.
	require.NoError(t, StorageObjectInUseProtection{}.Admit(context.Background(), pvcAttrs(pvc)))
	assert.Equal(t, []string{api.PVCProtectionFinalizer}, pvc.Finalizers)

	pv := &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: "pv-1"}}
	require.NoError(t, StorageObjectInUseProtection{}.Admit(context.Background(), &Attributes{Operation: Create,
		Resource: api.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}, Name: "pv-1", Object: pv}))
	assert.Equal(t, []string{api.PVProtectionFinalizer}, pv.Finalizers)
}
