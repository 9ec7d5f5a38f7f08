package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

// The Priority admission plugin (plugin/pkg/admission/priority): a pod's
// spec.priorityClassName becomes spec.priority and
// spec.preemptionPolicy, the global default class's when it names none;
// a class that does not exist refuses the pod. On PriorityClass writes it
// keeps a single global default.

// PriorityClassLister lists the cluster's priority classes.
type PriorityClassLister func(ctx context.Context) ([]*schedulingv1.PriorityClass, error)

// Priority is the plugin.
type Priority struct {
	List PriorityClassLister
}

// PluginName is the name kube-apiserver gives the plugin, in the trace
// and the admission metrics.
func (*Priority) PluginName() string { return "Priority" }

func isPodCreate(a *Attributes) bool {
	return a.Operation == Create && a.Resource.Group == "" && a.Resource.Resource == "pods" && a.Subresource == ""
}

func isPodUpdate(a *Attributes) bool {
	return a.Operation == Update && a.Resource.Group == "" && a.Resource.Resource == "pods" && a.Subresource == ""
}

func isPriorityClassWrite(a *Attributes) bool {
	return (a.Operation == Create || a.Operation == Update) && a.Resource.Group == api.SchedulingGroupName &&
		a.Resource.Resource == "priorityclasses" && a.Subresource == ""
}

// Admit implements Mutator: it resolves the pod's priority.
func (p *Priority) Admit(ctx context.Context, a *Attributes) error {
	if isPodUpdate(a) {
		// The priority set at creation is kept when an update leaves it
		// out (a PUT of the manifest as written); a change is left to
		// validation, which refuses it.
		pod, ok1 := a.Object.(*corev1.Pod)
		old, ok2 := a.OldObject.(*corev1.Pod)
		if ok1 && ok2 {
			if pod.Spec.Priority == nil && old.Spec.Priority != nil {
				v := *old.Spec.Priority
				pod.Spec.Priority = &v
			}
			if pod.Spec.PreemptionPolicy == nil && old.Spec.PreemptionPolicy != nil {
				v := *old.Spec.PreemptionPolicy
				pod.Spec.PreemptionPolicy = &v
			}
		}
		return nil
	}
	if !isPodCreate(a) {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil
	}
	classes, err := p.List(ctx)
	if err != nil {
		return api.NewInternalError(err)
	}
	forbidden := func(err error) error { return api.NewForbidden(schema.GroupResource{Resource: "pods"}, a.Name, err) }
	var class *schedulingv1.PriorityClass
	if pod.Spec.PriorityClassName == "" {
		class = DefaultPriorityClass(classes)
	} else {
		for _, c := range classes {
			if c.Name == pod.Spec.PriorityClassName {
				class = c
			}
		}
		if class == nil {
			return forbidden(fmt.Errorf("no PriorityClass with name %s was found", pod.Spec.PriorityClassName))
		}
	}
	value, policy := int32(0), corev1.PreemptLowerPriority
	if class != nil {
		pod.Spec.PriorityClassName = class.Name
		value = class.Value
		if class.PreemptionPolicy != nil {
			policy = *class.PreemptionPolicy
		}
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != value {
		return forbidden(fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, value))
	}
	pod.Spec.Priority = &value
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != policy {
		return forbidden(fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, policy))
	}
	pod.Spec.PreemptionPolicy = &policy
	return nil
}

// DefaultPriorityClass is the global default class, the lowest valued if
// several claim it (as getDefaultPriorityClass picks), or nil.
func DefaultPriorityClass(classes []*schedulingv1.PriorityClass) *schedulingv1.PriorityClass {
	var def *schedulingv1.PriorityClass
	for _, c := range classes {
		if c.GlobalDefault && (def == nil || c.Value < def.Value) {
			def = c
		}
	}
	return def
}

// Validate implements Validator: one global default at most.
func (p *Priority) Validate(ctx context.Context, a *Attributes) error {
	if !isPriorityClassWrite(a) {
		return nil
	}
	pc, ok := a.Object.(*schedulingv1.PriorityClass)
	if !ok || !pc.GlobalDefault {
		return nil
	}
	classes, err := p.List(ctx)
	if err != nil {
		return api.NewInternalError(err)
	}
	for _, c := range classes {
		if c.GlobalDefault && c.Name != pc.Name {
			return api.NewForbidden(schema.GroupResource{Group: api.SchedulingGroupName, Resource: "priorityclasses"}, a.Name,
				fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", c.Name))
		}
	}
	return nil
}
