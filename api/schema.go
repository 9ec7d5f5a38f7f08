package api

import (
	"fmt"
	"strings"
)

// GroupVersion names one version of an API group, such as apps/v1. The
// core group has the empty name and prints as just "v1".
type GroupVersion struct {
	Group   string
	Version string
}

// Empty reports whether both parts are unset.
func (gv GroupVersion) Empty() bool { return gv.Group == "" && gv.Version == "" }

// String prints the apiVersion form: "v1" for core, "apps/v1" otherwise.
func (gv GroupVersion) String() string {
	if gv.Group == "" {
		return gv.Version
	}
	return gv.Group + "/" + gv.Version
}

// WithKind names a kind in this group version.
func (gv GroupVersion) WithKind(kind string) GroupVersionKind {
	return GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}
}

// WithResource names a resource in this group version.
func (gv GroupVersion) WithResource(resource string) GroupVersionResource {
	return GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: resource}
}

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
type GroupVersionKind struct {
	Group   string
	Version string
	Kind    string
}

// Empty reports whether all parts are unset.
func (gvk GroupVersionKind) Empty() bool {
	return gvk.Group == "" && gvk.Version == "" && gvk.Kind == ""
}

// GroupVersion drops the kind.
func (gvk GroupVersionKind) GroupVersion() GroupVersion {
	return GroupVersion{Group: gvk.Group, Version: gvk.Version}
}

// GroupKind drops the version.
func (gvk GroupVersionKind) GroupKind() GroupKind {
	return GroupKind{Group: gvk.Group, Kind: gvk.Kind}
}

// ToAPIVersionAndKind gives the two TypeMeta fields.
func (gvk GroupVersionKind) ToAPIVersionAndKind() (apiVersion, kind string) {
	return gvk.GroupVersion().String(), gvk.Kind
}

// String prints as Kubernetes does: "apps/v1, Kind=Deployment" and
// "/v1, Kind=Pod" for the core group.
func (gvk GroupVersionKind) String() string {
	return gvk.Group + "/" + gvk.Version + ", Kind=" + gvk.Kind
}

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
type GroupVersionResource struct {
	Group    string
	Version  string
	Resource string
}

// Empty reports whether all parts are unset.
func (gvr GroupVersionResource) Empty() bool {
	return gvr.Group == "" && gvr.Version == "" && gvr.Resource == ""
}

// GroupResource drops the version.
func (gvr GroupVersionResource) GroupResource() GroupResource {
	return GroupResource{Group: gvr.Group, Resource: gvr.Resource}
}

// GroupVersion drops the resource.
func (gvr GroupVersionResource) GroupVersion() GroupVersion {
	return GroupVersion{Group: gvr.Group, Version: gvr.Version}
}

// String prints as Kubernetes does: "apps/v1, Resource=deployments".
func (gvr GroupVersionResource) String() string {
	return gvr.Group + "/" + gvr.Version + ", Resource=" + gvr.Resource
}

// GroupResource names a resource regardless of version; API errors use it
// ("pods", "replicasets.apps").
type GroupResource struct {
	Group    string
	Resource string
}

// Empty reports whether both parts are unset.
func (gr GroupResource) Empty() bool { return gr.Group == "" && gr.Resource == "" }

// WithVersion adds a version.
func (gr GroupResource) WithVersion(version string) GroupVersionResource {
	return GroupVersionResource{Group: gr.Group, Version: version, Resource: gr.Resource}
}

// String prints "pods" for the core group and "replicasets.apps" otherwise,
// the form kubectl accepts and error messages print.
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// GroupKind names a kind regardless of version; validation errors use it
// ("Pod", "ReplicaSet.apps").
type GroupKind struct {
	Group string
	Kind  string
}

// Empty reports whether both parts are unset.
func (gk GroupKind) Empty() bool { return gk.Group == "" && gk.Kind == "" }

// WithVersion adds a version.
func (gk GroupKind) WithVersion(version string) GroupVersionKind {
	return GroupVersionKind{Group: gk.Group, Version: version, Kind: gk.Kind}
}

// String prints "Pod" for the core group and "ReplicaSet.apps" otherwise.
func (gk GroupKind) String() string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}
