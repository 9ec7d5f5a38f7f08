package admission

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

// DefaultIngressClass (plugin/pkg/admission/network/defaultingressclass)
// gives a new Ingress that names no class the cluster's default
// IngressClass, the one annotated ingressclass.kubernetes.io/is-default-class:
// "true", so that its controller serves it. It only mutates, on create.

var ingressResource = schema.GroupResource{Group: networkingv1.GroupName, Resource: "ingresses"}

// legacyIngressClassAnnotation names a class the old way; an Ingress
// that has it names a class.
const legacyIngressClassAnnotation = "kubernetes.io/ingress.class"

// IngressClassLister lists the IngressClasses.
type IngressClassLister func(ctx context.Context) ([]*networkingv1.IngressClass, error)

// DefaultIngressClass is the plugin.
type DefaultIngressClass struct {
	List IngressClassLister
}

// PluginName is the name kube-apiserver gives the plugin, in the trace
// and the admission metrics.
func (*DefaultIngressClass) PluginName() string { return "DefaultIngressClass" }

// Handles implements Handler: creates only, as kube-apiserver's.
func (*DefaultIngressClass) Handles(op Operation) bool { return op == Create }

// Admit implements Mutator.
func (d *DefaultIngressClass) Admit(ctx context.Context, a *Attributes) error {
	if a.Operation != Create || a.Subresource != "" || a.Resource.GroupResource() != ingressResource {
		return nil
	}
	ing, ok := a.Object.(*networkingv1.Ingress)
	if !ok || ing.Spec.IngressClassName != nil {
		return nil
	}
	if _, set := ing.Annotations[legacyIngressClassAnnotation]; set {
		return nil
	}
	classes, err := d.List(ctx)
	if err != nil {
		return api.NewInternalError(err)
	}
	if def := DefaultIngressClassOf(classes); def != nil {
		name := def.Name
		ing.Spec.IngressClassName = &name
	}
	return nil
}

// DefaultIngressClassOf is the default class among classes: of several,
// the newest (then the first by name) wins; nil when none is marked.
func DefaultIngressClassOf(classes []*networkingv1.IngressClass) *networkingv1.IngressClass {
	var def *networkingv1.IngressClass
	for _, c := range classes {
		if c.Annotations[networkingv1.AnnotationIsDefaultIngressClass] != "true" {
			continue
		}
		if def == nil || c.CreationTimestamp.After(def.CreationTimestamp.Time) ||
			(c.CreationTimestamp.Equal(&def.CreationTimestamp) && c.Name < def.Name) {
			def = c
		}
	}
	return def
}
