package api

import (
	"encoding/json"
	"fmt"
	"reflect"
)

//go:generate go run ../hack/deepcopy-gen -dir . -skip jsonschema.go

// Object is what every kind stored by the API server is: an object with
// type fields and metadata that can be deep-copied. It plays the part of
// runtime.Object plus metav1.Object in Kubernetes. Every kind implements it
// with pointer receivers (*Pod, *Deployment...); GetObjectKind and
// GetObjectMeta are promoted from the embedded TypeMeta and ObjectMeta,
// DeepCopyObject is generated.
type Object interface {
	// GetObjectKind gives access to apiVersion and kind.
	GetObjectKind() *TypeMeta
	// GetObjectMeta gives access to the metadata.
	GetObjectMeta() *ObjectMeta
	// DeepCopyObject returns a copy sharing no memory with the original.
	DeepCopyObject() Object
}

// ListObject is what every list kind (PodList, DeploymentList...) is.
type ListObject interface {
	// GetObjectKind gives access to apiVersion and kind.
	GetObjectKind() *TypeMeta
	// GetListMeta gives access to resourceVersion and continue.
	GetListMeta() *ListMeta
	// DeepCopyObject returns a copy sharing no memory with the original.
	DeepCopyObject() ListObject
	// GetItems returns pointers to the items; they stay inside the list.
	GetItems() []Object
}

// DeepCopyJSON copies a JSON object decoded into map[string]any.
func DeepCopyJSON(x map[string]any) map[string]any {
	if x == nil {
		return nil
	}
	return DeepCopyJSONValue(x).(map[string]any)
}

// DeepCopyJSONValue copies a JSON value: maps and slices are copied
// recursively, scalars returned as they are. Like Kubernetes'
// runtime.DeepCopyJSONValue it panics on values that cannot come from
// JSON and hold references (pointers, channels, other maps), because
// sharing them silently would be a bug.
func DeepCopyJSONValue(x any) any {
	switch x := x.(type) {
	case nil, string, bool, json.Number, int64, float64, int, int32:
		return x
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = DeepCopyJSONValue(v)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = DeepCopyJSONValue(v)
		}
		return out
	case json.RawMessage:
		if x == nil {
			return x
		}
		return append(json.RawMessage(nil), x...)
	}
	switch reflect.ValueOf(x).Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		panic(fmt.Sprintf("cannot deep copy %T", x))
	}
	// Other scalars and plain structs (a Time in a table cell) are values.
	return x
}
