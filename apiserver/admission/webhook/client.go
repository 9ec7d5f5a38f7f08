package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// DialFunc opens a connection, as net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// ResolveFunc finds host:port of a ready endpoint behind port of the
// Service namespace/name, or says why there is none.
type ResolveFunc func(ctx context.Context, namespace, name string, port int32) (string, error)

// Clients holds one HTTP transport per caBundle: connections to a webhook
// are reused across calls, as kube-apiserver's client manager does. The
// admission webhooks and the CRD conversion webhooks (package crd) share
// this one piece of code.
type Clients struct {
	resolve ResolveFunc
	dial    DialFunc

	mu         sync.Mutex
	transports map[string]*http.Transport
}

// NewClients returns clients that reach a Service's name through
// resolve and dial (nil: net.Dialer).
func NewClients(resolve ResolveFunc, dial DialFunc) *Clients {
	if dial == nil {
		dial = (&net.Dialer{Timeout: 5 * time.Second}).DialContext
	}
	return &Clients{resolve: resolve, dial: dial, transports: map[string]*http.Transport{}}
}

// Endpoint is where a webhook is called: what the clientConfig of an
// admission webhook (admissionregistration/v1) and of a CRD's conversion
// webhook (apiextensions/v1) say alike, in two types of the same shape.
type Endpoint struct {
	// URL, when set, is called as it is.
	URL *string
	// Service, when set, names the Service whose endpoints are called.
	Service *ServiceEndpoint
	// CABundle verifies the webhook's serving certificate.
	CABundle []byte
}

// ServiceEndpoint is a Service's namespace, name, port and path.
type ServiceEndpoint struct {
	Namespace, Name string
	Path            *string
	Port            *int32
}

// AdmissionEndpoint is an admission webhook's clientConfig.
func AdmissionEndpoint(cc admissionregistrationv1.WebhookClientConfig) Endpoint {
	e := Endpoint{URL: cc.URL, CABundle: cc.CABundle}
	if s := cc.Service; s != nil {
		e.Service = &ServiceEndpoint{Namespace: s.Namespace, Name: s.Name, Path: s.Path, Port: s.Port}
	}
	return e
}

// ConversionEndpoint is a CRD conversion webhook's clientConfig.
func ConversionEndpoint(cc apiextensionsv1.WebhookClientConfig) Endpoint {
	e := Endpoint{URL: cc.URL, CABundle: cc.CABundle}
	if s := cc.Service; s != nil {
		e.Service = &ServiceEndpoint{Namespace: s.Namespace, Name: s.Name, Path: s.Path, Port: s.Port}
	}
	return e
}

// URL is where a webhook is called: its URL, or https://<service>.<ns>.svc
// with the port (443 by default) and path, which the transport resolves.
func URL(cc Endpoint, timeout time.Duration) (string, error) {
	var base string
	switch {
	case cc.URL != nil:
		base = *cc.URL
	case cc.Service != nil:
		port := int32(443)
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		path := ""
		if cc.Service.Path != nil {
			path = *cc.Service.Path
		}
		base = "https://" + net.JoinHostPort(cc.Service.Name+"."+cc.Service.Namespace+".svc", strconv.Itoa(int(port))) + path
		if path == "" {
			base += "/"
		}
	default:
		return "", fmt.Errorf("invalid webhook client config: neither url nor service is set")
	}
	// client-go's REST client tells the server how long it will wait.
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "timeout=" + strconv.Itoa(int(timeout/time.Second)) + "s", nil
}

// Transport returns the transport trusting caBundle (the system's roots
// when empty).
func (c *Clients) Transport(caBundle []byte) (*http.Transport, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := string(caBundle)
	if t, ok := c.transports[key]; ok {
		return t, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, fmt.Errorf("unable to load root certificates: unable to parse bytes as PEM block")
		}
		tc.RootCAs = pool
	}
	t := &http.Transport{DialContext: c.dialService, TLSClientConfig: tc, MaxIdleConnsPerHost: 16,
		IdleConnTimeout: 30 * time.Second, ForceAttemptHTTP2: false}
	c.transports[key] = t
	return t, nil
}

// dialService dials a Service's name (<svc>.<ns>.svc:port) through a ready
// endpoint, and anything else as it is; TLS is still checked against the
// Service's name.
func (c *Clients) dialService(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if svc, ok := strings.CutSuffix(host, ".svc"); ok && c.resolve != nil {
		if name, ns, ok := strings.Cut(svc, "."); ok {
			port, _ := strconv.Atoi(portText)
			ep, err := c.resolve(ctx, ns, name, int32(port))
			if err != nil {
				return nil, err
			}
			addr = ep
		}
	}
	return c.dial(ctx, network, addr)
}
