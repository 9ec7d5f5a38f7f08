package admission

import (
	"context"

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

// Attributes describe the write being admitted.
type Attributes struct {
	Operation   Operation
	Resource    api.GroupVersionResource
	Subresource string
	Kind        api.GroupVersionKind
	Namespace   string
	Name        string
	// Object is the new object (nil on delete); OldObject the current one
	// (nil on create). A mutating plugin may change Object.
	Object    api.Object
	OldObject api.Object
	User      *authn.UserInfo
	DryRun    bool
}

// Mutator may change the object.
type Mutator interface {
	Admit(ctx context.Context, a *Attributes) error
}

// Validator may only refuse.
type Validator interface {
	Validate(ctx context.Context, a *Attributes) error
}

// Chain is an ordered list of plugins; each is a Mutator, a Validator or
// both.
type Chain []any

// Admit runs every mutating plugin, then every validating one. The first
// refusal ends the chain and is the request's answer.
func (c Chain) Admit(ctx context.Context, a *Attributes) error {
	for _, p := range c {
		if m, ok := p.(Mutator); ok {
			if err := m.Admit(ctx, a); err != nil {
				return err
			}
		}
	}
	for _, p := range c {
		if v, ok := p.(Validator); ok {
			if err := v.Validate(ctx, a); err != nil {
				return err
			}
		}
	}
	return nil
}
