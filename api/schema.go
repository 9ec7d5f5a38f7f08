package api

import (
	"fmt"
	"strings"

	schema "k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion names one version of an API group, such as apps/v1. The
// core group has the empty name and prints as just "v1".
type GroupVersion = schema.GroupVersion

// ParseGroupVersion splits an apiVersion string: "" and "v1" have the core
// group, "apps/v1" has group apps. More than one slash is an error.
func ParseGroupVersion(gv string) (GroupVersion, error) {
	if gv == "" || gv == "/" {
		return GroupVersion{}, nil
	}
	switch strings.Count(gv, "/") {
	case 0:
		return GroupVersion{Version: gv}, nil
	case 1:
		i := strings.Index(gv, "/")
		return GroupVersion{Group: gv[:i], Version: gv[i+1:]}, nil
	}
	return GroupVersion{}, fmt.Errorf("unexpected GroupVersion string: %v", gv)
}

// GroupVersionKind identifies a kind unambiguously: the type of an object.
type GroupVersionKind = schema.GroupVersionKind

// FromAPIVersionAndKind builds a GroupVersionKind from TypeMeta's fields;
// an unparsable apiVersion is kept whole as the version, as Kubernetes does.
func FromAPIVersionAndKind(apiVersion, kind string) GroupVersionKind {
	gv, err := ParseGroupVersion(apiVersion)
	if err != nil {
		return GroupVersionKind{Version: apiVersion, Kind: kind}
	}
	return gv.WithKind(kind)
}

// GroupVersionResource identifies a resource (the plural in a URL path)
// in one version.
type GroupVersionResource = schema.GroupVersionResource

// GroupResource names a resource regardless of version; API errors use it
// ("pods", "replicasets.apps").
type GroupResource = schema.GroupResource

// GroupKind names a kind regardless of version; validation errors use it
// ("Pod", "ReplicaSet.apps").
type GroupKind = schema.GroupKind
