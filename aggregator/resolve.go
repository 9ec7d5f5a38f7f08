package aggregator

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/kubesim/kubesim/api"
)

// Reasons of the Available condition, as kube-aggregator words them.
const (
	ReasonLocal                = "Local"
	ReasonPassed               = "Passed"
	ReasonServiceNotFound      = "ServiceNotFound"
	ReasonServicePortError     = "ServicePortError"
	ReasonEndpointsNotFound    = "EndpointsNotFound"
	ReasonMissingEndpoints     = "MissingEndpoints"
	ReasonFailedDiscoveryCheck = "FailedDiscoveryCheck"
)

// unreachable says why an APIService's backend cannot be reached.
type unreachable struct{ reason, message string }

// resolve finds the host:port a request for s goes to: a ready endpoint
// of its Service (the port the service port targets), or the external
// name of an ExternalName Service.
func (a *Aggregator) resolve(ctx context.Context, s *api.APIService) (string, *unreachable) {
	ref := s.Spec.Service
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	svcStore, ok := a.cfg.Store("", "v1", "services")
	if !ok {
		return "", &unreachable{ReasonServiceNotFound, fmt.Sprintf("service/%s in %q is not present", ref.Name, ref.Namespace)}
	}
	obj, err := svcStore.Get(ctx, ref.Namespace, ref.Name)
	if err != nil {
		return "", &unreachable{ReasonServiceNotFound, fmt.Sprintf("service/%s in %q is not present", ref.Name, ref.Namespace)}
	}
	svc := obj.(*api.Service)
	if svc.Spec.Type == api.ServiceTypeExternalName {
		return net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(port))), nil
	}
	var sp *api.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			sp = &svc.Spec.Ports[i]
		}
	}
	if sp == nil {
		return "", &unreachable{ReasonServicePortError, fmt.Sprintf("service/%s in %q is not listening on port %d", ref.Name, ref.Namespace, port)}
	}
	epStore, ok := a.cfg.Store("", "v1", "endpoints")
	var eps *api.Endpoints
	if ok {
		if obj, err := epStore.Get(ctx, ref.Namespace, ref.Name); err == nil {
			eps = obj.(*api.Endpoints)
		}
	}
	if eps == nil {
		return "", &unreachable{ReasonEndpointsNotFound, fmt.Sprintf("cannot find endpoints for service/%s in %q", ref.Name, ref.Namespace)}
	}
	var addrs []string
	for _, sub := range eps.Subsets {
		for _, p := range sub.Ports {
			if p.Name != sp.Name {
				continue
			}
			for _, ad := range sub.Addresses {
				addrs = append(addrs, net.JoinHostPort(ad.IP, strconv.Itoa(int(p.Port))))
			}
		}
	}
	if len(addrs) == 0 {
		return "", &unreachable{ReasonMissingEndpoints, fmt.Sprintf("endpoints for service/%s in %q have no addresses with port name %q",
			ref.Name, ref.Namespace, sp.Name)}
	}
	n := a.next.Add(1)
	return addrs[int(n%uint64(len(addrs)))], nil
}

// Availability is the result of checking one APIService.
type Availability struct {
	Available bool
	Reason    string
	Message   string
}

// CheckAvailability checks s as kube-aggregator's availability
// controller does: local ones are always available; a remote one needs
// its Service, a ready endpoint, and an answer to discovery
// (GET /apis/GROUP/VERSION) within 5 seconds.
func (a *Aggregator) CheckAvailability(ctx context.Context, s *api.APIService) Availability {
	if s.Spec.Service == nil {
		return Availability{true, ReasonLocal, "Local APIServices are always available"}
	}
	target, u := a.resolve(ctx, s)
	if u != nil {
		return Availability{false, u.reason, u.message}
	}
	url := "https://" + target + "/apis/" + s.Spec.Group + "/" + s.Spec.Version
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Availability{false, ReasonFailedDiscoveryCheck, fmt.Sprintf("failing or missing response from %s: %v", url, err)}
	}
	// As the aggregator itself, proven by the client certificate of the
	// transport: nothing sent here can be replayed elsewhere.
	SetRemoteUser(req.Header, &loopbackUser)
	resp, err := a.transport(s).RoundTrip(req)
	if err != nil {
		return Availability{false, ReasonFailedDiscoveryCheck, fmt.Sprintf("failing or missing response from %s: %v", url, err)}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return Availability{false, ReasonFailedDiscoveryCheck, fmt.Sprintf("failing or missing response from %s: bad status from %s: %d", url, url, resp.StatusCode)}
	}
	return Availability{true, ReasonPassed, "all checks passed"}
}
