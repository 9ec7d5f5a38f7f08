package aggregator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver/proxy"
)

// Reasons of the Available condition, as kube-aggregator words them.
const (
	ReasonLocal                = "Local"
	ReasonPassed               = "Passed"
	ReasonServiceNotFound      = string(proxy.ServiceNotFound)
	ReasonServicePortError     = string(proxy.ServicePortError)
	ReasonEndpointsNotFound    = string(proxy.EndpointsNotFound)
	ReasonMissingEndpoints     = string(proxy.MissingEndpoints)
	ReasonFailedDiscoveryCheck = "FailedDiscoveryCheck"
)

// unreachable says why an APIService's backend cannot be reached.
type unreachable struct{ reason, message string }

// resolve finds the host:port a request for s goes to: a ready endpoint
// of its Service (the port the service port targets), taken in turn, or
// the external name of an ExternalName Service.
func (a *Aggregator) resolve(ctx context.Context, s *apiregistrationv1.APIService) (string, *unreachable) {
	ref := s.Spec.Service
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	addrs, err := proxy.ResolveEndpoints(ctx, a.cfg.Store, ref.Namespace, ref.Name, port)
	var u *proxy.Unresolved
	if errors.As(err, &u) {
		return "", &unreachable{string(u.Reason), availabilityMessage(u)}
	}
	n := a.next.Add(1)
	return addrs[int(n%uint64(len(addrs)))], nil
}

// availabilityMessage words u as kube-aggregator's availability
// controller does.
func availabilityMessage(u *proxy.Unresolved) string {
	switch u.Reason {
	case proxy.ServiceNotFound:
		return fmt.Sprintf("service/%s in %q is not present", u.Name, u.Namespace)
	case proxy.ServicePortError:
		return fmt.Sprintf("service/%s in %q is not listening on port %d", u.Name, u.Namespace, u.Port)
	case proxy.EndpointsNotFound:
		return fmt.Sprintf("cannot find endpoints for service/%s in %q", u.Name, u.Namespace)
	}
	return fmt.Sprintf("endpoints for service/%s in %q have no addresses with port name %q", u.Name, u.Namespace, u.PortName)
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
func (a *Aggregator) CheckAvailability(ctx context.Context, s *apiregistrationv1.APIService) Availability {
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
