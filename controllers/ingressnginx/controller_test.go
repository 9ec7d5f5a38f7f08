package ingressnginx

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/network/ingress"
	"github.com/kubesim/kubesim/runmode"
)

func classNamed(name, controller string) *networkingv1.IngressClass {
	return &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressClassSpec{Controller: controller}}
}

func ingressOf(class *string) *networkingv1.Ingress {
	b := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: networkingv1.IngressSpec{IngressClassName: class, DefaultBackend: &b}}
}

func TestDesiredStatus(t *testing.T) {
	classes := []*networkingv1.IngressClass{classNamed("nginx", ingress.ControllerName), classNamed("traefik", "traefik.io/ingress-controller")}
	svc := &corev1.Service{Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.80"}}
	nginx, traefik := "nginx", "traefik"
	addr := []networkingv1.IngressLoadBalancerIngress{{IP: "10.96.0.80"}}
	for _, tc := range []struct {
		name  string
		ing   *networkingv1.Ingress
		svc   *corev1.Service
		want  []networkingv1.IngressLoadBalancerIngress
		serve bool
	}{
		{"its class: the Service's address", ingressOf(&nginx), svc, addr, true},
		{"no class: served too", ingressOf(nil), svc, addr, true},
		{"another controller's class: left alone", ingressOf(&traefik), svc, nil, false},
		{"no Service: no address", ingressOf(&nginx), nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, serve := DesiredStatus(tc.ing, classes, tc.svc)
			assert.Equal(t, tc.serve, serve)
			assert.Equal(t, tc.want, want)
		})
	}
}

// settle syncs the informers and reconciles until nothing is queued.
func settle(t *testing.T, c *Controller) {
	t.Helper()
	ctx := context.Background()
	for range 100 {
		for _, l := range c.Controllers() {
			require.NoError(t, l.Sync(ctx))
		}
		progressed := false
		for _, l := range c.Controllers() {
			if info, ok := l.Step(ctx); ok {
				progressed = true
				require.NoError(t, info.Err)
			}
		}
		if !progressed {
			return
		}
	}
	t.Fatal("the controller did not settle")
}

// The controller publishes its Service's address on the Ingresses of its
// class, follows the Service when it is remade, and leaves the Ingresses
// of another controller alone.
func TestPublishesTheServiceAddress(t *testing.T) {
	env := apiservertest.New(t)
	ctx := context.Background()
	cl := env.Client
	c, err := New(Config{BaseConfig: controllers.BaseConfig{Client: cl, Clock: env.Clock, Mode: runmode.Step}})
	require.NoError(t, err)
	_, err = cl.Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ingress.Namespace}})
	require.NoError(t, err)
	for _, ic := range []*networkingv1.IngressClass{classNamed("nginx", ingress.ControllerName), classNamed("traefik", "traefik.io/ingress-controller")} {
		_, err = cl.IngressClasses().Create(ctx, ic)
		require.NoError(t, err)
	}
	nginx, traefik := "nginx", "traefik"
	mine := ingressOf(&nginx)
	theirs := ingressOf(&traefik)
	theirs.Name = "other"
	for _, ing := range []*networkingv1.Ingress{mine, theirs} {
		_, err = cl.Ingresses().Create(ctx, ing)
		require.NoError(t, err)
	}
	settle(t, c)
	got, err := cl.Ingresses().Get(ctx, "default", "web")
	require.NoError(t, err)
	assert.Empty(t, got.Status.LoadBalancer.Ingress, "no Service yet: nothing to publish")

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: ingress.ServiceName, Namespace: ingress.Namespace},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	created, err := cl.Services().Create(ctx, svc)
	require.NoError(t, err)
	settle(t, c)
	got, err = cl.Ingresses().Get(ctx, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, []networkingv1.IngressLoadBalancerIngress{{IP: created.Spec.ClusterIP}}, got.Status.LoadBalancer.Ingress)
	other, err := cl.Ingresses().Get(ctx, "default", "other")
	require.NoError(t, err)
	assert.Empty(t, other.Status.LoadBalancer.Ingress, "traefik's Ingress is not ours")

	// The Service remade with another address: the Ingress follows.
	require.NoError(t, cl.Services().Delete(ctx, ingress.Namespace, ingress.ServiceName, nil))
	svc.Spec.ClusterIP = "10.96.0.99"
	_, err = cl.Services().Create(ctx, svc)
	require.NoError(t, err)
	settle(t, c)
	got, err = cl.Ingresses().Get(ctx, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, []networkingv1.IngressLoadBalancerIngress{{IP: "10.96.0.99"}}, got.Status.LoadBalancer.Ingress)

	// Nothing more to do: a settled controller writes nothing.
	rv := got.ResourceVersion
	settle(t, c)
	got, err = cl.Ingresses().Get(ctx, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, rv, got.ResourceVersion)
}

// A controller without its client or clock is refused, not built to fail
// later.
func TestNewRequiresClientAndClock(t *testing.T) {
	_, err := New(Config{})
	assert.ErrorContains(t, err, "Client and Clock are required")
	_, err = New(Config{BaseConfig: controllers.BaseConfig{Client: apiservertest.New(t).Client}})
	assert.ErrorContains(t, err, "Client and Clock are required")
}
