package registry

import (
	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// UpdateSubresource is a subresource that reads and writes the parent
// object itself but may change only part of it: pods/ephemeralcontainers
// (Kubernetes' EphemeralContainersREST with its own strategy),
// namespaces/finalize. GET answers the object; PUT and PATCH go through
// the store's update with PrepareForUpdate and ValidateUpdate in place of
// the strategy's.
type UpdateSubresource struct {
	// UpdateOnly serves PUT alone: every other verb is 405, as for
	// namespaces/finalize, whose REST storage in Kubernetes is an Updater
	// and nothing else (no Getter, hence no GET and no PATCH).
	UpdateOnly bool
	// PrepareForUpdate makes obj the current object cur except for what
	// the subresource may change, which it keeps from obj.
	PrepareForUpdate func(obj, cur api.Object)
	// ValidateUpdate checks the write (it replaces the strategy's
	// ValidateUpdate, which would forbid the very change).
	ValidateUpdate func(obj, cur api.Object) field.ErrorList
}
