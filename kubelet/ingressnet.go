package kubelet

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/kubelet/shell"
	"github.com/kubesim/kubesim/network/ingress"
	"github.com/kubesim/kubesim/network/policy"
)

// The ingress-nginx controller's proxy, as the pod network carries a
// container's connection to it: a request to the controller Service's
// address (ingress-nginx/ingress-nginx-controller, port 80) is routed by
// network/ingress over the Ingresses the controller serves and sent to an
// endpoint of the backend Service, as nginx does with the configuration
// the controller writes. kubesim runs no controller pod: the proxy reads
// the Ingresses when asked, with the controller's identity
// (Config.IngressClient), and the connection to the backend leaves from
// the controller's pod as policies see it (ingressControllerPod), so a
// NetworkPolicy that admits only the ingress-nginx namespace works as in
// kind. nginx's answers: 404 when no rule matches, 503 when the backend
// has no endpoint, 502 when the endpoint refuses, 504 after its
// proxy_connect_timeout when a policy drops the connection.

// proxyConnectTimeout is ingress-nginx's proxy-connect-timeout (5
// seconds; nginx's own default is 60): how long nginx waits for a backend
// that does not answer before it answers 504. (With several endpoints
// ingress-nginx tries the next ones too; kubesim tries one.)
const proxyConnectTimeout = 5 * time.Second

// ingressClient is the client of the ingress controller's proxy.
func (k *Kubelet) ingressClient() *client.Client {
	if k.cfg.IngressClient != nil {
		return k.cfg.IngressClient
	}
	return k.c
}

// isIngressController reports whether ip:port is the controller's HTTP
// address (its Service's cluster IP, port 80).
func (n clusterNetwork) isIngressController(ctx context.Context, ip, port string) bool {
	if port != strconv.Itoa(ingress.HTTPPort) {
		return false
	}
	svc, err := n.k.c.Services().Get(ctx, ingress.Namespace, ingress.ServiceName)
	return err == nil && svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP == ip
}

// ingressHostAddresses answers a name that is an Ingress's host with the
// Ingress's address.
func (n clusterNetwork) ingressHostAddresses(ctx context.Context, name string) []string {
	list, err := n.k.ingressClient().Ingresses().List(ctx, "", client.ListOptions{})
	if err != nil {
		return nil
	}
	return ingress.HostAddresses(list.Items, name)
}

// ingressGet is one request through the controller.
func (n clusterNetwork) ingressGet(ctx context.Context, req shell.HTTPRequest) (shell.HTTPResponse, error) {
	controller := policy.Peer{Pod: ingressControllerPod(), NamespaceLabels: n.namespaceLabels(ctx, ingress.Namespace)}
	if !n.allowed(ctx, n.self(ctx), controller, corev1.ProtocolTCP, strconv.Itoa(ingress.HTTPPort)) {
		return shell.HTTPResponse{}, shell.ErrTimedOut
	}
	ic := n.k.ingressClient()
	classes, err := ic.IngressClasses().List(ctx, "", client.ListOptions{})
	if err != nil {
		n.k.logger.Warn("ingress-nginx: listing IngressClasses", "err", err)
		return nginxError(http.StatusServiceUnavailable, 0), nil
	}
	all, err := ic.Ingresses().List(ctx, "", client.ListOptions{})
	if err != nil {
		n.k.logger.Warn("ingress-nginx: listing Ingresses", "err", err)
		return nginxError(http.StatusServiceUnavailable, 0), nil
	}
	var served []*networkingv1.Ingress
	for _, ing := range all.Items {
		if ingress.Handles(ing, classes.Items) {
			served = append(served, ing)
		}
	}
	path, _, _ := strings.Cut(req.Path, "?")
	b, ok := ingress.Route(served, req.Host, path)
	if !ok {
		return nginxError(http.StatusNotFound, 0), nil
	}
	if b.Service == nil {
		return nginxError(http.StatusServiceUnavailable, 0), nil // a resource backend: ingress-nginx has none
	}
	svc, err := ic.Services().Get(ctx, b.Namespace, b.Service.Name)
	if err != nil {
		return nginxError(http.StatusServiceUnavailable, 0), nil
	}
	ep, err := ic.Endpoints().Get(ctx, b.Namespace, b.Service.Name)
	if err != nil {
		ep = nil
	}
	addrs := ingress.Endpoints(*b.Service, svc, ep)
	if len(addrs) == 0 {
		return nginxError(http.StatusServiceUnavailable, 0), nil
	}
	a := addrs[(n.k.proxyTurn.Add(1)-1)%uint64(len(addrs))]
	port := strconv.Itoa(int(a.Port))
	if !n.allowed(ctx, controller, n.peerAt(ctx, a.IP), corev1.ProtocolTCP, port) {
		return nginxError(http.StatusGatewayTimeout, proxyConnectTimeout), nil
	}
	// The controller's connection leaves from its pod, which kubesim
	// gives no address: the node's stands in for it.
	code, body, err := n.podGet(ctx, n.k.cfg.InternalIP, a.IP, port, req.Path, req.Host)
	if err != nil {
		return nginxError(http.StatusBadGateway, 0), nil
	}
	return shell.HTTPResponse{Code: code, Body: body}, nil
}

// nginxError is nginx's answer with an error page, after a wait.
func nginxError(code int, after time.Duration) shell.HTTPResponse {
	return shell.HTTPResponse{Code: code, Reason: ingress.StatusText(code), Body: ingress.ErrorPage(code), After: after}
}
