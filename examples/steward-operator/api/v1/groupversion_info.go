// Package v1 is the oam.crd.fp.net/v1 API group of the Steward operator:
// the seed's `kubebuilder init --domain crd.fp.net` followed by
// `kubebuilder create api --group oam --version v1 --kind Steward`
// (kubebuilder joins group and domain, so the API group is oam.crd.fp.net).
//
// +kubebuilder:object:generate=true
// +groupName=oam.crd.fp.net
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of every kind in this package.
var GroupVersion = schema.GroupVersion{Group: "oam.crd.fp.net", Version: "v1"}

// AddToScheme adds the kinds of this group-version to a scheme.
// kubebuilder's scaffold registers them from an init() through a
// package-level SchemeBuilder; kubesim's rule is no init() and no global
// registries, so the registration is this explicit function instead.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Steward{}, &StewardList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
