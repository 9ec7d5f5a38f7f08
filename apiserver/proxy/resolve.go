package proxy

import (
	"context"
	"fmt"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// Lookup finds the storage of a resource (the server's Store method).
type Lookup func(group, version, resource string) (*registry.Store, bool)

// Reason says why a Service's port has no address. The values are
// kube-aggregator's reasons of an APIService's Available condition.
type Reason string

// The reasons.
const (
	ServiceNotFound   Reason = "ServiceNotFound"
	ServicePortError  Reason = "ServicePortError"
	EndpointsNotFound Reason = "EndpointsNotFound"
	MissingEndpoints  Reason = "MissingEndpoints"
)

// Unresolved is ResolveEndpoints' error: what is missing, for each caller
// to word as its Kubernetes counterpart does (Error is the wording of
// ResolveEndpoint, which the webhooks report).
type Unresolved struct {
	Reason          Reason
	Namespace, Name string
	// Port is the service port asked for; PortName the name of the
	// service port found, which the endpoints' ports are matched by.
	Port     int32
	PortName string
}

func (u *Unresolved) Error() string {
	switch u.Reason {
	case ServiceNotFound:
		return fmt.Sprintf("service %q not found", u.Name)
	case ServicePortError:
		return fmt.Sprintf("no service port %d found for service %q", u.Port, u.Name)
	case EndpointsNotFound:
		return fmt.Sprintf("endpoints %q not found", u.Name)
	}
	return fmt.Sprintf("no endpoints available for service %q", u.Name)
}

// ResolveEndpoints returns host:port of every ready address behind port
// of the Service namespace/name, in the Endpoints' order (the port is the
// endpoint port named as the service port is), or the external name with
// port for an ExternalName Service. The error is an *Unresolved.
func ResolveEndpoints(ctx context.Context, stores Lookup, namespace, name string, port int32) ([]string, error) {
	u := &Unresolved{Namespace: namespace, Name: name, Port: port}
	obj, err := get(ctx, stores, "services", namespace, name)
	if err != nil {
		u.Reason = ServiceNotFound
		return nil, u
	}
	svc := obj.(*corev1.Service)
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return []string{net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(port)))}, nil
	}
	var sp *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			sp = &svc.Spec.Ports[i]
		}
	}
	if sp == nil {
		u.Reason = ServicePortError
		return nil, u
	}
	u.PortName = sp.Name
	obj, err = get(ctx, stores, "endpoints", namespace, name)
	if err != nil {
		u.Reason = EndpointsNotFound
		return nil, u
	}
	var addrs []string
	for _, a := range api.EndpointsOfPort(obj.(*corev1.Endpoints), sp.Name) {
		addrs = append(addrs, net.JoinHostPort(a.IP, strconv.Itoa(int(a.Port))))
	}
	if len(addrs) == 0 {
		u.Reason = MissingEndpoints
		return nil, u
	}
	return addrs, nil
}

// get reads a core/v1 object shared: the resolver only reads it.
func get(ctx context.Context, stores Lookup, resource, namespace, name string) (api.Object, error) {
	st, ok := stores("", "v1", resource)
	if !ok {
		return nil, api.NewNotFound(schema.GroupResource{Resource: resource}, name)
	}
	return st.GetShared(ctx, namespace, name)
}
