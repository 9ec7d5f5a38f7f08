package admission

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/authn"
)

// Operation is the kind of write being admitted.
type Operation string

// The operations, named as Kubernetes names them.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// Attributes describe the write being admitted (admission.Attributes in
// Kubernetes). The registry builds them at the point it admits.
type Attributes struct {
	Operation   Operation
	Resource    schema.GroupVersionResource
	Subresource string
	Kind        schema.GroupVersionKind
	Namespace   string
	Name        string
	// Object is the new object (nil on delete); OldObject the current one
	// (nil on create). A mutating plugin may change Object in place.
	Object    api.Object
	OldObject api.Object
	User      *authn.UserInfo
	DryRun    bool
	// Options are the write's options (*api.DeleteOptions on delete; nil
	// otherwise: kubesim has no CreateOptions or UpdateOptions types).
	Options any

	// reinvocation is the chain's memory of which plugins asked to run
	// again if the object changes after them.
	reinvocation *reinvocation
}

// MutationInterface is a plugin that may change the object
// (admission.MutationInterface).
type MutationInterface interface {
	Admit(ctx context.Context, a *Attributes) error
}

// ValidationInterface is a plugin that may only refuse
// (admission.ValidationInterface).
type ValidationInterface interface {
	Validate(ctx context.Context, a *Attributes) error
}

// Handler is implemented by plugins that act on some operations only
// (admission.Handler's Handles). A plugin without it sees every
// operation.
type Handler interface {
	Handles(op Operation) bool
}

// Named is implemented by plugins that give the name the trace shows
// (otherwise their Go type's name).
type Named interface {
	PluginName() string
}

// The names of the interfaces before the chain became a package of its
// own; the plugins of other packages implement them as they are.
type (
	Mutator   = MutationInterface
	Validator = ValidationInterface
)

// handles reports whether plugin p wants operation op.
func handles(p any, op Operation) bool {
	h, ok := p.(Handler)
	return !ok || h.Handles(op)
}
