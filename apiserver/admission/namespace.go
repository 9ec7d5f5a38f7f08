package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

// NamespaceGetter reads a namespace (an API error when it is missing).
type NamespaceGetter func(ctx context.Context, name string) (*corev1.Namespace, error)

// NamespaceLifecycle refuses objects in a namespace that does not exist or
// is being deleted, and the deletion of the namespaces the system needs.
type NamespaceLifecycle struct {
	Get NamespaceGetter
	// Immortal namespaces cannot be deleted (default, kube-system,
	// kube-public).
	Immortal map[string]bool
}

// PluginName is the name kube-apiserver gives the plugin, in the trace
// and the admission metrics.
func (*NamespaceLifecycle) PluginName() string { return "NamespaceLifecycle" }

// Validate implements Validator.
func (l *NamespaceLifecycle) Validate(ctx context.Context, a *Attributes) error {
	gr := a.Resource.GroupResource()
	if gr == (schema.GroupResource{Resource: "namespaces"}) {
		if a.Operation == Delete && l.Immortal[a.Name] {
			return api.NewForbidden(gr, a.Name, fmt.Errorf("this namespace may not be deleted"))
		}
		return nil
	}
	if a.Namespace == "" || a.Operation != Create {
		// Updates and deletes inside a terminating namespace are how it
		// empties; only new content is refused.
		return nil
	}
	ns, err := l.Get(ctx, a.Namespace)
	if err != nil {
		return err
	}
	if ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating {
		name := a.Name
		err := api.NewForbidden(gr, name, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.Namespace))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    "NamespaceTerminating",
			Message: fmt.Sprintf("namespace %s is being terminated", a.Namespace),
			Field:   "metadata.namespace",
		})
		return err
	}
	return nil
}
