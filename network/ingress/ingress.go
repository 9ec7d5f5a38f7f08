package ingress

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubesim/kubesim/api"
)

// The install, as kind's ingress-nginx manifest names it.
const (
	// ControllerName is the IngressClasses' spec.controller of
	// ingress-nginx.
	ControllerName = "k8s.io/ingress-nginx"
	// ClassName is the IngressClass the install creates.
	ClassName = "nginx"
	// Namespace holds the controller and its Service.
	Namespace = "ingress-nginx"
	// ServiceName is the controller's Service, whose address the
	// Ingresses report.
	ServiceName = "ingress-nginx-controller"
	// ServiceAccountName is the controller's identity.
	ServiceAccountName = "ingress-nginx"
	// HTTPPort is the port the controller serves HTTP on.
	HTTPPort = 80
	// ClassAnnotation names a class the way older Ingresses do.
	ClassAnnotation = "kubernetes.io/ingress.class"
)

// Labels are the controller pod's labels in kind's install: what a
// NetworkPolicy that lets the ingress controller in selects.
func Labels() map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      "ingress-nginx",
		"app.kubernetes.io/instance":  "ingress-nginx",
		"app.kubernetes.io/component": "controller",
	}
}

// Handles reports whether ingress-nginx serves ing: its
// ingressClassName names a class of controller k8s.io/ingress-nginx, or
// (without one) its class annotation says "nginx", or it names no class
// at all (--watch-ingress-without-class=true).
func Handles(ing *networkingv1.Ingress, classes []*networkingv1.IngressClass) bool {
	if name := ing.Spec.IngressClassName; name != nil {
		for _, c := range classes {
			if c.Name == *name {
				return c.Spec.Controller == ControllerName
			}
		}
		return false // a class that does not exist: nobody serves it
	}
	if v, ok := ing.Annotations[ClassAnnotation]; ok {
		return v == ClassName
	}
	return true
}

// Backend is where a request goes: the backend of the Ingress (in
// namespace Namespace) whose rule, or default backend, matched.
type Backend struct {
	Namespace, Ingress string
	networkingv1.IngressBackend
}

// route is one location of a server: a path of an Ingress's rule.
type route struct {
	path    string
	exact   bool
	nginx   bool // ImplementationSpecific: nginx's plain prefix
	backend Backend
}

// server is one nginx server block: a host's locations and its default.
type server struct {
	routes []route
	def    *Backend
}

// catchAll is the server of the rules without host (nginx's "_").
const catchAll = "_"

// Route returns the backend of a request for host and path among
// ingresses (those the controller serves); ok is false when nothing
// matches, which nginx answers with 404.
func Route(ingresses []*networkingv1.Ingress, host, path string) (Backend, bool) {
	servers := buildServers(ingresses)
	s := servers[pickServer(servers, NormalizeHost(host))]
	if s == nil {
		return Backend{}, false
	}
	if path == "" {
		path = "/"
	}
	var best *route
	for i := range s.routes {
		r := &s.routes[i]
		if !r.matches(path) {
			continue
		}
		// Longer paths first, Exact before Prefix; among equals the
		// older Ingress, which came first.
		if best == nil || len(r.path) > len(best.path) || len(r.path) == len(best.path) && r.exact && !best.exact {
			best = r
		}
	}
	switch {
	case best != nil:
		return best.backend, true
	case s.def != nil:
		return *s.def, true
	}
	return Backend{}, false
}

// NormalizeHost is the host nginx matches server names with: lower
// case, without port or final dot.
func NormalizeHost(host string) string {
	host = strings.ToLower(host)
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host = host[:i]
	}
	return strings.TrimSuffix(host, ".")
}

// pickServer is nginx's server_name choice: the exact name, then the
// wildcard one label up, then the catch-all.
func pickServer(servers map[string]*server, host string) string {
	if _, ok := servers[host]; ok && host != "" {
		return host
	}
	if _, rest, ok := strings.Cut(host, "."); ok {
		if _, ok := servers["*."+rest]; ok {
			return "*." + rest
		}
	}
	return catchAll
}

// buildServers is ingress-nginx's createServers and getBackendServers:
// the Ingresses oldest first, each host a server whose default is the
// defaultBackend of the Ingress that made it, the catch-all's that of the
// first Ingress without rules.
func buildServers(ingresses []*networkingv1.Ingress) map[string]*server {
	sorted := slices.Clone(ingresses)
	slices.SortStableFunc(sorted, func(a, b *networkingv1.Ingress) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	servers := map[string]*server{catchAll: {}}
	for _, ing := range sorted {
		var def *Backend
		if ing.Spec.DefaultBackend != nil {
			def = &Backend{Namespace: ing.Namespace, Ingress: ing.Name, IngressBackend: *ing.Spec.DefaultBackend}
			if len(ing.Spec.Rules) == 0 && servers[catchAll].def == nil {
				servers[catchAll].def = def
			}
		}
		for _, rule := range ing.Spec.Rules {
			host := NormalizeHost(rule.Host)
			if host == "" {
				host = catchAll
			}
			s := servers[host]
			if s == nil {
				s = &server{def: def}
				servers[host] = s
			}
			if rule.HTTP == nil {
				continue
			}
			for _, p := range rule.HTTP.Paths {
				r := route{path: p.Path, backend: Backend{Namespace: ing.Namespace, Ingress: ing.Name, IngressBackend: p.Backend}}
				if r.path == "" {
					r.path = "/"
				}
				if p.PathType != nil {
					r.exact = *p.PathType == networkingv1.PathTypeExact
					r.nginx = *p.PathType == networkingv1.PathTypeImplementationSpecific
				}
				s.routes = append(s.routes, r)
			}
		}
	}
	return servers
}

// matches reports whether the location serves path.
func (r route) matches(path string) bool {
	switch {
	case r.exact:
		return path == r.path
	case r.nginx:
		return strings.HasPrefix(path, r.path)
	}
	// Prefix: whole elements; a trailing slash in the rule is ignored.
	p := strings.TrimSuffix(r.path, "/")
	return p == "" || path == p || strings.HasPrefix(path, p+"/")
}

// Address is an endpoint a request is proxied to.
type Address = api.EndpointAddress

// Endpoints resolves a Service backend to the ready endpoints of the
// Service port it names (by number or by name), as ingress-nginx sends
// traffic to the pods straight, not through the Service's cluster IP.
// None: nginx answers 503.
func Endpoints(b networkingv1.IngressServiceBackend, svc *corev1.Service, ep *corev1.Endpoints) []Address {
	if svc == nil || ep == nil {
		return nil
	}
	var sp *corev1.ServicePort
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if b.Port.Name != "" && p.Name == b.Port.Name || b.Port.Name == "" && p.Port == b.Port.Number {
			sp = p
		}
	}
	if sp == nil {
		return nil
	}
	return api.EndpointsOfPort(ep, sp.Name)
}

// HostAddresses are the addresses that name resolves to as an Ingress
// host: those its Ingresses report in status.loadBalancer. kubesim's
// cluster DNS answers them, standing in for the DNS record a user makes
// for an Ingress (or that external-dns makes).
func HostAddresses(ingresses []*networkingv1.Ingress, name string) []string {
	name = NormalizeHost(name)
	var out []string
	for _, ing := range ingresses {
		for _, rule := range ing.Spec.Rules {
			h := NormalizeHost(rule.Host)
			_, rest, _ := strings.Cut(name, ".")
			if h == "" || h != name && h != "*."+rest {
				continue
			}
			for _, in := range ing.Status.LoadBalancer.Ingress {
				if in.IP != "" && !slices.Contains(out, in.IP) {
					out = append(out, in.IP)
				}
			}
		}
	}
	return out
}

// ErrorPage is nginx's page for an error status (404, 502, 503, 504).
func ErrorPage(code int) []byte {
	title := strconv.Itoa(code) + " " + StatusText(code)
	return []byte("<html>\n<head><title>" + title + "</title></head>\n<body>\n<center><h1>" + title +
		"</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n")
}

// StatusText is nginx's reason phrase for the codes it answers.
func StatusText(code int) string {
	switch code {
	case 404:
		return "Not Found"
	case 502:
		return "Bad Gateway"
	case 503:
		return "Service Temporarily Unavailable"
	case 504:
		return "Gateway Time-out"
	}
	return ""
}
