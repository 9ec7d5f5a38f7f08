package api

import (
	schema "k8s.io/apimachinery/pkg/runtime/schema"
)

// FromAPIVersionAndKind builds a GroupVersionKind from TypeMeta's fields;
// an unparsable apiVersion is kept whole as the version, as Kubernetes does.
func FromAPIVersionAndKind(apiVersion, kind string) schema.GroupVersionKind {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupVersionKind{Version: apiVersion, Kind: kind}
	}
	return gv.WithKind(kind)
}
