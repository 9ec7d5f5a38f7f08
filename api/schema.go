package api

import (
	"fmt"
	"strings"

	schema "k8s.io/apimachinery/pkg/runtime/schema"
)

// ParseGroupVersion splits an apiVersion string: "" and "v1" have the core
// group, "apps/v1" has group apps. More than one slash is an error.
func ParseGroupVersion(gv string) (schema.GroupVersion, error) {
	if gv == "" || gv == "/" {
		return schema.GroupVersion{}, nil
	}
	switch strings.Count(gv, "/") {
	case 0:
		return schema.GroupVersion{Version: gv}, nil
	case 1:
		i := strings.Index(gv, "/")
		return schema.GroupVersion{Group: gv[:i], Version: gv[i+1:]}, nil
	}
	return schema.GroupVersion{}, fmt.Errorf("unexpected GroupVersion string: %v", gv)
}

// FromAPIVersionAndKind builds a GroupVersionKind from TypeMeta's fields;
// an unparsable apiVersion is kept whole as the version, as Kubernetes does.
func FromAPIVersionAndKind(apiVersion, kind string) schema.GroupVersionKind {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupVersionKind{Version: apiVersion, Kind: kind}
	}
	return gv.WithKind(kind)
}
