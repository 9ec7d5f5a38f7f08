package admission

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func ingressClass(name string, def bool, created time.Time) *networkingv1.IngressClass {
	c := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)},
		Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	if def {
		c.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
	}
	return c
}

func TestDefaultIngressClassOf(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		classes []*networkingv1.IngressClass
		want    string
	}{
		{"none", nil, ""},
		{"no default", []*networkingv1.IngressClass{ingressClass("nginx", false, t0)}, ""},
		{"one default", []*networkingv1.IngressClass{ingressClass("nginx", false, t0), ingressClass("traefik", true, t0)}, "traefik"},
		{"newest of two wins", []*networkingv1.IngressClass{ingressClass("old", true, t0), ingressClass("new", true, t0.Add(time.Hour))}, "new"},
		{"same age: first by name", []*networkingv1.IngressClass{ingressClass("b", true, t0), ingressClass("a", true, t0)}, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DefaultIngressClassOf(tc.classes)
			if tc.want == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tc.want, got.Name)
		})
	}
}

func ingressAttrs(op Operation, ing *networkingv1.Ingress) *Attributes {
	return &Attributes{Operation: op, Resource: schema.GroupVersionResource{Group: networkingv1.GroupName, Version: "v1", Resource: "ingresses"},
		Namespace: "default", Name: ing.Name, Object: ing}
}

// A new Ingress without a class gets the default one; one that names a
// class (in the field or the old annotation) keeps it; updates are left
// alone.
func TestDefaultIngressClassAdmit(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := &DefaultIngressClass{List: func(context.Context) ([]*networkingv1.IngressClass, error) {
		return []*networkingv1.IngressClass{ingressClass("nginx", true, t0), ingressClass("traefik", false, t0)}, nil
	}}
	ctx := context.Background()
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	require.NoError(t, d.Admit(ctx, ingressAttrs(Create, ing)))
	require.NotNil(t, ing.Spec.IngressClassName)
	assert.Equal(t, "nginx", *ing.Spec.IngressClassName)

	named := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	traefik := "traefik"
	named.Spec.IngressClassName = &traefik
	require.NoError(t, d.Admit(ctx, ingressAttrs(Create, named)))
	assert.Equal(t, "traefik", *named.Spec.IngressClassName)

	annotated := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{"kubernetes.io/ingress.class": "traefik"}}}
	require.NoError(t, d.Admit(ctx, ingressAttrs(Create, annotated)))
	assert.Nil(t, annotated.Spec.IngressClassName)

	upd := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	assert.False(t, d.Handles(Update))
	require.NoError(t, d.Admit(ctx, ingressAttrs(Update, upd)))
	assert.Nil(t, upd.Spec.IngressClassName)
}
