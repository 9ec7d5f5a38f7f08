package admission

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

// The storage admission plugins: DefaultStorageClass
// (plugin/pkg/admission/storage/storageclass/setdefault) and
// StorageObjectInUseProtection (plugin/pkg/admission/storage/
// storageobjectinuseprotection). Both only mutate, on create.

var (
	pvcResource = schema.GroupResource{Resource: "persistentvolumeclaims"}
	pvResource  = schema.GroupResource{Resource: "persistentvolumes"}
)

// StorageClassLister lists the StorageClasses.
type StorageClassLister func(ctx context.Context) ([]*storagev1.StorageClass, error)

// DefaultStorageClass gives a new claim that names no class the default
// StorageClass, so that the class's provisioner makes its volume.
type DefaultStorageClass struct {
	List StorageClassLister
}

// PluginName is the name kube-apiserver gives the plugin, in the trace
// and the admission metrics.
func (*DefaultStorageClass) PluginName() string { return "DefaultStorageClass" }

// Admit implements Mutator.
func (d *DefaultStorageClass) Admit(ctx context.Context, a *Attributes) error {
	if a.Operation != Create || a.Subresource != "" || a.Resource.GroupResource() != pvcResource {
		return nil
	}
	pvc, ok := a.Object.(*corev1.PersistentVolumeClaim)
	// storageClassName "" asks for a volume without class: only nil gets
	// the default. The beta annotation is a class name too.
	if !ok || pvc.Spec.StorageClassName != nil {
		return nil
	}
	if _, set := pvc.Annotations["volume.beta.kubernetes.io/storage-class"]; set {
		return nil
	}
	classes, err := d.List(ctx)
	if err != nil {
		return api.NewInternalError(err)
	}
	if def := DefaultClass(classes); def != nil {
		name := def.Name
		pvc.Spec.StorageClassName = &name
	}
	return nil
}

// DefaultClass is the default StorageClass among classes: of several, the
// newest (then the first by name) wins, as since Kubernetes 1.26; nil when
// none is marked.
func DefaultClass(classes []*storagev1.StorageClass) *storagev1.StorageClass {
	var def *storagev1.StorageClass
	for _, c := range classes {
		if c.Annotations[api.AnnDefaultStorageClass] != "true" && c.Annotations["storageclass.beta.kubernetes.io/is-default-class"] != "true" {
			continue
		}
		if def == nil || c.CreationTimestamp.After(def.CreationTimestamp.Time) ||
			(c.CreationTimestamp.Equal(&def.CreationTimestamp) && c.Name < def.Name) {
			def = c
		}
	}
	return def
}

// StorageObjectInUseProtection puts the protection finalizers on every new
// claim and volume: the pvc-protection and pv-protection controllers take
// them off once nothing uses the object, so a claim in use by a pod (a
// volume bound to a claim) is not removed under it.
type StorageObjectInUseProtection struct{}

// PluginName is the name kube-apiserver gives the plugin, in the trace
// and the admission metrics.
func (StorageObjectInUseProtection) PluginName() string { return "StorageObjectInUseProtection" }

// Admit implements Mutator.
func (StorageObjectInUseProtection) Admit(_ context.Context, a *Attributes) error {
	if a.Operation != Create || a.Subresource != "" {
		return nil
	}
	var meta *metav1.ObjectMeta
	var finalizer string
	switch o := a.Object.(type) {
	case *corev1.PersistentVolumeClaim:
		if a.Resource.GroupResource() != pvcResource {
			return nil
		}
		meta, finalizer = &o.ObjectMeta, api.PVCProtectionFinalizer
	case *corev1.PersistentVolume:
		if a.Resource.GroupResource() != pvResource {
			return nil
		}
		meta, finalizer = &o.ObjectMeta, api.PVProtectionFinalizer
	default:
		return nil
	}
	if !slices.Contains(meta.Finalizers, finalizer) {
		meta.Finalizers = append(meta.Finalizers, finalizer)
	}
	return nil
}
