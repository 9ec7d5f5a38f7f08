package admission

import (
	"context"
	"errors"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

// The RuntimeClass admission plugin (plugin/pkg/admission/runtimeclass):
// a new pod that names a RuntimeClass gets the class's overhead in
// spec.overhead, and the class's scheduling constraints merged into its
// node selector and tolerations, so that the scheduler places it on a
// node that has the runtime; a class that does not exist refuses the pod.
// The validating half refuses an overhead that is not the class's.

// RuntimeClassGetter reads one RuntimeClass (an API NotFound error when
// there is none).
type RuntimeClassGetter func(ctx context.Context, name string) (*nodev1.RuntimeClass, error)

// RuntimeClass is the plugin.
type RuntimeClass struct {
	Get RuntimeClassGetter
}

// PluginName implements Named.
func (*RuntimeClass) PluginName() string { return "RuntimeClass" }

// Handles implements Handler: pods are checked when they are created
// (their spec cannot name another class afterwards).
func (*RuntimeClass) Handles(op Operation) bool { return op == Create }

// runtimeClassOf returns the pod being created and its class (nil when it
// names none), or the refusal when the class does not exist.
func (r *RuntimeClass) runtimeClassOf(ctx context.Context, a *Attributes) (*corev1.Pod, *nodev1.RuntimeClass, error) {
	if !isPodCreate(a) {
		return nil, nil, nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok || pod.Spec.RuntimeClassName == nil {
		return pod, nil, nil
	}
	rc, err := r.Get(ctx, *pod.Spec.RuntimeClassName)
	switch {
	case api.IsNotFound(err):
		return nil, nil, forbiddenPod(a, fmt.Errorf("pod rejected: RuntimeClass %q not found", *pod.Spec.RuntimeClassName))
	case err != nil:
		return nil, nil, api.NewInternalError(err)
	}
	return pod, rc, nil
}

func forbiddenPod(a *Attributes, err error) error {
	return api.NewForbidden(schema.GroupResource{Resource: "pods"}, a.Name, err)
}

var errOverheadMismatch = errors.New("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")

// Admit implements Mutator: setOverhead and setScheduling.
func (r *RuntimeClass) Admit(ctx context.Context, a *Attributes) error {
	pod, rc, err := r.runtimeClassOf(ctx, a)
	if err != nil || pod == nil || rc == nil {
		return err
	}
	if rc.Overhead != nil {
		if len(pod.Spec.Overhead) > 0 && !equality.Semantic.DeepEqual(rc.Overhead.PodFixed, pod.Spec.Overhead) {
			return forbiddenPod(a, errOverheadMismatch)
		}
		pod.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
	}
	if s := rc.Scheduling; s != nil {
		selector := pod.Spec.NodeSelector
		if selector == nil {
			selector = maps.Clone(s.NodeSelector)
		} else {
			for k, v := range s.NodeSelector {
				if podValue, ok := selector[k]; ok && podValue != v {
					return forbiddenPod(a, fmt.Errorf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, v, k, podValue))
				}
				selector[k] = v
			}
		}
		pod.Spec.NodeSelector = selector
		pod.Spec.Tolerations = MergeTolerations(pod.Spec.Tolerations, s.Tolerations)
	}
	return nil
}

// Validate implements Validator (validateOverhead): the pod's overhead is
// its class's, and a pod whose class has none (or that names no class)
// has none.
func (r *RuntimeClass) Validate(ctx context.Context, a *Attributes) error {
	pod, rc, err := r.runtimeClassOf(ctx, a)
	if err != nil || pod == nil {
		return err
	}
	if rc != nil && rc.Overhead != nil {
		if !equality.Semantic.DeepEqual(rc.Overhead.PodFixed, pod.Spec.Overhead) {
			return forbiddenPod(a, errOverheadMismatch)
		}
		return nil
	}
	if pod.Spec.Overhead != nil {
		return forbiddenPod(a, errors.New("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"))
	}
	return nil
}

// MergeTolerations adds to the pod's tolerations those of extra that none
// of them already tolerates (pkg/util/tolerations.MergeTolerations, which
// also drops the pod's own redundant ones; kubesim keeps the pod's list
// as it was written).
func MergeTolerations(pod, extra []corev1.Toleration) []corev1.Toleration {
	out := pod
	for _, t := range extra {
		covered := false
		for _, have := range out {
			if tolerationCovers(have, t) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, t)
		}
	}
	return out
}

// tolerationCovers reports whether a tolerates every taint b does
// (isSuperset): the same key and effect (an empty effect is every effect,
// an empty key with Exists every key), and Exists or the same value.
func tolerationCovers(a, b corev1.Toleration) bool {
	if equality.Semantic.DeepEqual(a, b) {
		return true
	}
	if a.Effect != "" && a.Effect != b.Effect {
		return false
	}
	if a.Key == "" && a.Operator == corev1.TolerationOpExists {
		return a.TolerationSeconds == nil || (b.TolerationSeconds != nil && *b.TolerationSeconds <= *a.TolerationSeconds)
	}
	if a.Key != b.Key {
		return false
	}
	if a.TolerationSeconds != nil && (b.TolerationSeconds == nil || *b.TolerationSeconds > *a.TolerationSeconds) {
		return false
	}
	switch a.Operator {
	case corev1.TolerationOpExists:
		return true
	case "", corev1.TolerationOpEqual:
		return (b.Operator == "" || b.Operator == corev1.TolerationOpEqual) && a.Value == b.Value
	}
	return false
}
