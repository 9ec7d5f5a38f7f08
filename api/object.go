package api

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Object is what every kind stored by the API server is: Kubernetes'
// runtime.Object (type fields, deep copy) with the metadata accessors of
// metav1.Object. Every kind of k8s.io/api implements it with pointer
// receivers (*corev1.Pod...), and so does unstructured.Unstructured.
// GetObjectMeta is promoted from the embedded metav1.ObjectMeta; Meta
// gives the struct itself for the code that reads many of its fields.
type Object interface {
	runtime.Object
	metav1.Object
	// GetObjectMeta gives access to the metadata.
	GetObjectMeta() metav1.Object
}

// ListObject is what every list kind (PodList, DeploymentList...) is.
type ListObject interface {
	runtime.Object
	metav1.ListInterface
}

// Meta returns the object's metadata, the metav1.ObjectMeta every kind
// embeds.
func Meta(o Object) *metav1.ObjectMeta {
	return o.GetObjectMeta().(*metav1.ObjectMeta)
}

// TypeMetaOf returns the object's type fields, the metav1.TypeMeta every
// kind and list embeds.
func TypeMetaOf(o interface{ GetObjectKind() schema.ObjectKind }) *metav1.TypeMeta {
	return o.GetObjectKind().(*metav1.TypeMeta)
}

// DeepCopy copies an object: DeepCopyObject, typed back to Object.
func DeepCopy(o Object) Object {
	return o.DeepCopyObject().(Object)
}

// ListMetaOf returns the list's metadata, the metav1.ListMeta every list
// kind embeds.
func ListMetaOf(l ListObject) *metav1.ListMeta {
	return reflect.ValueOf(l).Elem().FieldByName("ListMeta").Addr().Interface().(*metav1.ListMeta)
}

// Items returns pointers to a list's items; they stay inside the list.
func Items(l ListObject) []Object {
	items := reflect.ValueOf(l).Elem().FieldByName("Items")
	out := make([]Object, items.Len())
	for i := range out {
		out[i] = items.Index(i).Addr().Interface().(Object)
	}
	return out
}
