package aggregator

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
	"github.com/kubesim/kubesim/store"
)

// Group is the API group of APIServices.
const Group = "apiregistration.k8s.io"

// Resource is the plural name of APIServices.
const ResourceName = "apiservices"

// AutoManagedLabel marks the local APIServices the API server creates and
// deletes itself: "onstart" for those present at start, "true" for those
// that follow CustomResourceDefinitions, as in Kubernetes.
const AutoManagedLabel = "kube-aggregator.kubernetes.io/automanaged"

// GVK is the kind of APIServices.
var GVK = k8sschema.GroupVersionKind{Group: Group, Version: "v1", Kind: "APIService"}

// Resource is the apiservices resource; its storage reports every write to
// the aggregator's routing table.
func (a *Aggregator) Resource() *registry.Resource {
	return &registry.Resource{
		Group: Group, Version: "v1", Name: ResourceName, SingularName: "apiservice", Kind: "APIService",
		ListKind: "APIServiceList", Categories: []string{"api-extensions"},
		New:                func() api.Object { return &apiregistrationv1.APIService{} },
		Strategy:           apiServiceStrategy{servedLocally: a.servedLocally},
		Schema:             schema.FromGoType(reflect.TypeOf(apiregistrationv1.APIService{})),
		StatusSubresource:  true,
		KeepStatusOnCreate: true,
		Table:              apiServiceTable(),
		ValidateName:       validateAPIServiceName,
		DecorateStorage: func(st store.Interface) store.Interface {
			return store.WithWriteHook(st, a.afterWrite)
		},
	}
}

// validateAPIServiceName accepts "<version>.<group>", where the group
// may be empty ("v1." is the core group's).
func validateAPIServiceName(name string) []string {
	version, group, ok := strings.Cut(name, ".")
	if !ok {
		return []string{"must be of the form <version>.<group>"}
	}
	if msgs := kinds.IsDNS1123Label(version); len(msgs) > 0 {
		return msgs
	}
	if group == "" {
		return nil
	}
	return labels.IsDNS1123Subdomain(group)
}

// apiServiceTable prints NAME SERVICE AVAILABLE AGE, as kubectl shows
// APIServices.
func apiServiceTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{registry.NameColumn,
			{Name: "Service", Type: "string", Description: "The reference to the service that hosts this API endpoint."},
			{Name: "Available", Type: "string", Description: "Whether this service is available."},
			registry.AgeColumn},
		Cells: func(obj api.Object, now time.Time) []any {
			s := obj.(*apiregistrationv1.APIService)
			return []any{s.Name, ServiceColumn(s), AvailableColumn(s), registry.HumanDuration(now.Sub(s.CreationTimestamp.Time))}
		},
	}
}

// ServiceColumn is "Local" or "namespace/name".
func ServiceColumn(s *apiregistrationv1.APIService) string {
	if s.Spec.Service == nil {
		return "Local"
	}
	return s.Spec.Service.Namespace + "/" + s.Spec.Service.Name
}

// AvailableColumn is "True", "False (Reason)" or "Unknown".
func AvailableColumn(s *apiregistrationv1.APIService) string {
	c := api.GetAPIServiceConditionByType(s, apiregistrationv1.Available)
	switch {
	case c == nil:
		return "Unknown"
	case c.Status == apiregistrationv1.ConditionTrue:
		return "True"
	case c.Reason != "":
		return fmt.Sprintf("%s (%s)", c.Status, c.Reason)
	}
	return string(c.Status)
}

// APIServiceName is the name an APIService for group/version must have.
func APIServiceName(group, version string) string { return version + "." + group }

// apiServiceStrategy is pkg/registry/apiservice's strategy, with one guard
// of its own: a group-version this server serves itself cannot be pointed
// at a Service. Kubernetes' autoregister controller puts such an
// APIService back after the fact; refusing the write says the same thing
// at once, and a stepped scenario stays deterministic.
type apiServiceStrategy struct {
	registry.DefaultStrategy
	servedLocally func(group, version string) bool
}

// servedLocally reports whether this API server serves group/version
// itself (a built-in group or a CRD's).
func (a *Aggregator) servedLocally(group, version string) bool {
	for _, r := range a.cfg.Resources() {
		if r.Group == group && r.Version == version {
			return true
		}
	}
	return false
}

// validateLocal refuses to route a locally served group-version to a
// Service, and to drop the automanaged label of a local APIService.
func (st apiServiceStrategy) validateLocal(s, old *apiregistrationv1.APIService) field.ErrorList {
	var errs field.ErrorList
	if s.Spec.Service != nil && st.servedLocally != nil && st.servedLocally(s.Spec.Group, s.Spec.Version) {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "service"),
			fmt.Sprintf("%s is served by this API server; its APIService is managed by it (%s) and may not route to a service", s.Name, AutoManagedLabel)))
	}
	if old != nil && old.Labels[AutoManagedLabel] != "" && s.Labels[AutoManagedLabel] != old.Labels[AutoManagedLabel] && st.servedLocally != nil && st.servedLocally(s.Spec.Group, s.Spec.Version) {
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "labels").Key(AutoManagedLabel),
			"the API server manages this APIService"))
	}
	return errs
}

// Default gives a service reference port 443, as SetDefaults_ServiceReference.
func (apiServiceStrategy) Default(obj api.Object) {
	if ref := obj.(*apiregistrationv1.APIService).Spec.Service; ref != nil && ref.Port == nil {
		p := int32(443)
		ref.Port = &p
	}
}

// Validate is ValidateAPIService.
func (st apiServiceStrategy) Validate(obj api.Object) field.ErrorList {
	s := obj.(*apiregistrationv1.APIService)
	return append(validateAPIService(s), st.validateLocal(s, nil)...)
}

// ValidateUpdate is ValidateAPIServiceUpdate (nothing is immutable).
func (st apiServiceStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	s := obj.(*apiregistrationv1.APIService)
	return append(validateAPIService(s), st.validateLocal(s, old.(*apiregistrationv1.APIService))...)
}

func validateAPIService(s *apiregistrationv1.APIService) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if s.Spec.Version == "" {
		errs = append(errs, field.Required(spec.Child("version"), ""))
	}
	if want := APIServiceName(s.Spec.Group, s.Spec.Version); s.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), s.Name,
			fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", want)))
	}
	if p := s.Spec.GroupPriorityMinimum; p <= 0 || p > 20000 {
		errs = append(errs, field.Invalid(spec.Child("groupPriorityMinimum"), p, "must be positive and less than 20000"))
	}
	if p := s.Spec.VersionPriority; p <= 0 || p > 1000 {
		errs = append(errs, field.Invalid(spec.Child("versionPriority"), p, "must be positive and less than 1000"))
	}
	if ref := s.Spec.Service; ref != nil {
		if ref.Namespace == "" {
			errs = append(errs, field.Required(spec.Child("service", "namespace"), ""))
		}
		if ref.Name == "" {
			errs = append(errs, field.Required(spec.Child("service", "name"), ""))
		}
		if ref.Port != nil && (*ref.Port < 1 || *ref.Port > 65535) {
			errs = append(errs, field.Invalid(spec.Child("service", "port"), *ref.Port, "must be a valid port number"))
		}
		if s.Spec.InsecureSkipTLSVerify && len(s.Spec.CABundle) > 0 {
			errs = append(errs, field.Invalid(spec.Child("insecureSkipTLSVerify"), s.Spec.InsecureSkipTLSVerify,
				"may not be true if caBundle is present"))
		}
	} else if len(s.Spec.CABundle) > 0 || s.Spec.InsecureSkipTLSVerify {
		errs = append(errs, field.Forbidden(spec.Child("service"), "local APIServices may not have a caBundle or insecureSkipTLSVerify"))
	}
	return errs
}
