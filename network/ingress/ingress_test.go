package ingress

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func backend(svc string) networkingv1.IngressBackend {
	return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: 80}}}
}

func path(t networkingv1.PathType, p, svc string) networkingv1.HTTPIngressPath {
	return networkingv1.HTTPIngressPath{Path: p, PathType: &t, Backend: backend(svc)}
}

func rule(host string, paths ...networkingv1.HTTPIngressPath) networkingv1.IngressRule {
	return networkingv1.IngressRule{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}}}
}

func ing(name string, age time.Duration, rules ...networkingv1.IngressRule) *networkingv1.Ingress {
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, CreationTimestamp: metav1.NewTime(t0.Add(-age))},
		Spec: networkingv1.IngressSpec{Rules: rules}}
}

const (
	exact    = networkingv1.PathTypeExact
	prefix   = networkingv1.PathTypePrefix
	implSpec = networkingv1.PathTypeImplementationSpecific
)

func TestRoute(t *testing.T) {
	withDefault := ing("shop", time.Hour, rule("shop.example.com", path(prefix, "/cart", "cart")))
	d := backend("shop-home")
	withDefault.Spec.DefaultBackend = &d
	catchAllDefault := ing("fallback", 2*time.Hour)
	fd := backend("fallback")
	catchAllDefault.Spec.DefaultBackend = &fd

	ingresses := []*networkingv1.Ingress{
		ing("fruit", 3*time.Hour, rule("fruit.example.com",
			path(prefix, "/apple", "apple"),
			path(prefix, "/apple/green/", "green-apple"),
			path(exact, "/banana", "banana-exact"),
			path(prefix, "/banana", "banana"),
			path(implSpec, "/kiwi", "kiwi"))),
		ing("newer-fruit", time.Minute, rule("fruit.example.com", path(prefix, "/apple", "newer-apple"))),
		ing("wild", time.Hour, rule("*.wild.example.com", path(prefix, "/", "wild"))),
		ing("any-host", time.Hour, rule("", path(prefix, "/echo", "echo"))),
		withDefault, catchAllDefault,
	}
	for _, tc := range []struct {
		name, host, path string
		want             string // backend service, "" for a 404
	}{
		{"prefix: the path itself", "fruit.example.com", "/apple", "apple"},
		{"prefix: below it", "fruit.example.com", "/apple/red", "apple"},
		{"prefix: not a longer element", "fruit.example.com", "/applesauce", ""},
		{"longest prefix wins; the rule's trailing slash is ignored", "fruit.example.com", "/apple/green/1", "green-apple"},
		{"the rule's trailing slash: the path without it matches too", "fruit.example.com", "/apple/green", "green-apple"},
		{"exact before prefix at the same length", "fruit.example.com", "/banana", "banana-exact"},
		{"exact is exact", "fruit.example.com", "/banana/", "banana"},
		{"ImplementationSpecific is nginx's plain prefix", "fruit.example.com", "/kiwifruit", "kiwi"},
		{"the older Ingress wins a duplicate", "fruit.example.com", "/apple/x", "apple"},
		{"host is case-insensitive, port ignored", "FRUIT.example.com:80", "/apple", "apple"},
		{"no path matches and no default: 404", "fruit.example.com", "/", ""},
		{"wildcard: one label", "a.wild.example.com", "/x", "wild"},
		{"wildcard: not the bare domain", "wild.example.com", "/echo", "echo"},
		{"wildcard: not two labels", "a.b.wild.example.com", "/x", "fallback"},
		{"an unknown host: the rules without host", "10.96.0.80", "/echo/hi", "echo"},
		{"an unknown host, no path: the catch-all default", "nothing.example.com", "/", "fallback"},
		{"a host's own default backend", "shop.example.com", "/", "shop-home"},
		{"a host's paths before its default", "shop.example.com", "/cart/1", "cart"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, ok := Route(ingresses, tc.host, tc.path)
			if tc.want == "" {
				assert.False(t, ok, "routed to %+v", b)
				return
			}
			if assert.True(t, ok) {
				assert.Equal(t, tc.want, b.Service.Name)
				assert.Equal(t, "default", b.Namespace)
			}
		})
	}

	// Without an Ingress serving the catch-all, an unknown host is a 404.
	_, ok := Route(ingresses[:1], "other.example.com", "/apple")
	assert.False(t, ok)
}

func TestHandles(t *testing.T) {
	classes := []*networkingv1.IngressClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: ControllerName}},
		{ObjectMeta: metav1.ObjectMeta{Name: "internal"}, Spec: networkingv1.IngressClassSpec{Controller: ControllerName}},
		{ObjectMeta: metav1.ObjectMeta{Name: "traefik"}, Spec: networkingv1.IngressClassSpec{Controller: "traefik.io/ingress-controller"}},
	}
	named := func(class string) *networkingv1.Ingress {
		i := ing("x", 0)
		i.Spec.IngressClassName = &class
		return i
	}
	annotated := func(class string) *networkingv1.Ingress {
		i := ing("x", 0)
		i.Annotations = map[string]string{ClassAnnotation: class}
		return i
	}
	assert.True(t, Handles(named("nginx"), classes))
	assert.True(t, Handles(named("internal"), classes), "any class of the controller")
	assert.False(t, Handles(named("traefik"), classes))
	assert.False(t, Handles(named("missing"), classes))
	assert.True(t, Handles(annotated("nginx"), classes))
	assert.False(t, Handles(annotated("traefik"), classes))
	assert.True(t, Handles(ing("x", 0), classes), "no class: --watch-ingress-without-class")
}

func TestEndpoints(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}, {Name: "admin", Port: 9000}}}}
	ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{
		Addresses: []corev1.EndpointAddress{{IP: "10.244.1.2"}, {IP: "10.244.2.2"}},
		Ports:     []corev1.EndpointPort{{Name: "http", Port: 8080}, {Name: "admin", Port: 9090}},
	}}}
	byNumber := networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}
	assert.Equal(t, []Address{{IP: "10.244.1.2", Port: 8080}, {IP: "10.244.2.2", Port: 8080}}, Endpoints(byNumber, svc, ep))
	byName := networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Name: "admin"}}
	assert.Equal(t, []Address{{IP: "10.244.1.2", Port: 9090}, {IP: "10.244.2.2", Port: 9090}}, Endpoints(byName, svc, ep))
	missing := networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 81}}
	assert.Empty(t, Endpoints(missing, svc, ep))
	assert.Empty(t, Endpoints(byNumber, svc, nil), "no Endpoints object")
}

func TestHostAddresses(t *testing.T) {
	a := ing("a", 0, rule("web.example.com"), rule("*.apps.example.com"))
	a.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "10.96.0.80"}}
	pending := ing("b", 0, rule("pending.example.com"))
	assert.Equal(t, []string{"10.96.0.80"}, HostAddresses([]*networkingv1.Ingress{a, pending}, "web.example.com"))
	assert.Equal(t, []string{"10.96.0.80"}, HostAddresses([]*networkingv1.Ingress{a, pending}, "shop.apps.example.com."))
	assert.Empty(t, HostAddresses([]*networkingv1.Ingress{a, pending}, "pending.example.com"), "no address yet")
	assert.Empty(t, HostAddresses([]*networkingv1.Ingress{a, pending}, "other.example.com"))
}

func TestErrorPage(t *testing.T) {
	assert.Equal(t, "<html>\n<head><title>404 Not Found</title></head>\n<body>\n<center><h1>404 Not Found</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n", string(ErrorPage(404)))
	assert.True(t, strings.Contains(string(ErrorPage(503)), "503 Service Temporarily Unavailable"))
}
