package kinds

import (
	"reflect"
	"strconv"
	"strings"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// --- discovery.k8s.io/v1 EndpointSlice ---

// MaxEndpointsPerSlice is the API's cap (the controller's default
// --max-endpoints-per-slice is 100).
const MaxEndpointsPerSlice = 1000

// discoveryResources serves EndpointSlices, kept by the endpointslice
// controller beside each Service's Endpoints.
func discoveryResources(gen *schema.Generator) []*registry.Resource {
	return []*registry.Resource{{
		Group: api.DiscoveryGroupName, Version: "v1", Name: "endpointslices", SingularName: "endpointslice",
		Kind: "EndpointSlice", ListKind: "EndpointSliceList", Namespaced: true,
		New:                 func() api.Object { return &discoveryv1.EndpointSlice{} },
		StrategicMergePatch: true,
		Strategy:            endpointSliceStrategy{},
		Schema:              gen.FromGoType(reflect.TypeOf(discoveryv1.EndpointSlice{})),
		Table:               endpointSliceTable(),
	}}
}

type endpointSliceStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy (ValidateEndpointSlice, in part).
func (endpointSliceStrategy) Validate(obj api.Object) field.ErrorList {
	s := obj.(*discoveryv1.EndpointSlice)
	var errs field.ErrorList
	switch s.AddressType {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN:
	case "":
		errs = append(errs, field.Required(field.NewPath("addressType"), ""))
	default:
		errs = append(errs, field.NotSupported(field.NewPath("addressType"), s.AddressType,
			[]string{string(discoveryv1.AddressTypeFQDN), string(discoveryv1.AddressTypeIPv4), string(discoveryv1.AddressTypeIPv6)}))
	}
	if len(s.Endpoints) > MaxEndpointsPerSlice {
		errs = append(errs, field.TooMany(field.NewPath("endpoints"), len(s.Endpoints), MaxEndpointsPerSlice))
	}
	for i, ep := range s.Endpoints {
		if len(ep.Addresses) == 0 {
			errs = append(errs, field.Required(field.NewPath("endpoints").Index(i).Child("addresses"), "must contain at least 1 address"))
		}
	}
	return errs
}

// ValidateUpdate implements registry.Strategy: the address type is fixed.
func (s endpointSliceStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	errs := s.Validate(obj)
	if n, o := obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice); n.AddressType != o.AddressType {
		errs = append(errs, field.Invalid(field.NewPath("addressType"), n.AddressType, "field is immutable"))
	}
	return errs
}

// endpointSliceTable: NAME ADDRESSTYPE PORTS ENDPOINTS AGE
// (printEndpointSlice).
func endpointSliceTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("AddressType", "string", "The type of address of endpoints in this slice."),
			col("Ports", "string", "Ports supported by endpoints in this slice."),
			col("Endpoints", "string", "Endpoints in this slice."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			s := obj.(*discoveryv1.EndpointSlice)
			return []any{s.Name, string(s.AddressType), formatSlicePorts(s.Ports), formatSliceEndpoints(s.Endpoints), age(s.CreationTimestamp.Time, now)}
		},
	}
}

// formatSlicePorts is formatDiscoveryPorts: up to three, then "+ N more...".
func formatSlicePorts(ports []discoveryv1.EndpointPort) string {
	var list []string
	for _, p := range ports {
		switch {
		case p.Port != nil:
			list = append(list, strconv.Itoa(int(*p.Port)))
		case p.Name != nil:
			list = append(list, *p.Name)
		default:
			list = append(list, "*")
		}
	}
	return listWithMore(list, 3)
}

// formatSliceEndpoints is formatDiscoveryEndpoints.
func formatSliceEndpoints(eps []discoveryv1.Endpoint) string {
	var list []string
	for _, ep := range eps {
		list = append(list, ep.Addresses...)
	}
	return listWithMore(list, 3)
}

// listWithMore is listWithMoreString.
func listWithMore(list []string, max int) string {
	if len(list) > max {
		return strings.Join(list[:max], ",") + " + " + strconv.Itoa(len(list)-max) + " more..."
	}
	if len(list) == 0 {
		return "<unset>"
	}
	return strings.Join(list, ",")
}
