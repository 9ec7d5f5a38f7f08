package kinds

import (
	"context"
	"fmt"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/store"
)

// SharedStore is implemented by a store that several API servers write at
// once (etcdstore): the allocators then claim each address in the store
// too, so that two servers never hand out the same one.
type SharedStore interface {
	SharedBetweenServers() bool
}

// isShared reports whether st is written by other API servers too.
func isShared(st store.Interface) bool {
	s, ok := st.(SharedStore)
	return ok && s.SharedBetweenServers()
}

// heldElsewhere marks, in an allocator's map, an address whose claim key
// another API server created.
const heldElsewhere = "(claimed through another API server)"

// serviceIPClaimKey is the key that claims one cluster IP. kube-apiserver
// keeps one bitmap of the range in etcd (a RangeAllocation object at
// /registry/ranges/serviceips) and updates it with a compare-and-swap;
// kubesim claims each address with its own key, created only if absent, so
// that a claim is one etcd transaction that cannot lose to another server.
func serviceIPClaimKey(ip string) string { return "/registry/ranges/serviceips/" + ip }

// claim creates key, holding owner ("namespace/name"): taken is true when
// another server's claim exists.
func claim(ctx context.Context, st store.Interface, key, owner string) (taken bool, err error) {
	_, err = st.Create(ctx, key, []byte(owner), store.CreateOptions{})
	switch {
	case err == nil:
		return false, nil
	case store.IsKeyExists(err):
		return true, nil
	default:
		return false, api.NewInternalError(fmt.Errorf("claiming %s: %w", key, err))
	}
}

// unclaim deletes a claim key; a claim already gone is not an error.
func unclaim(st store.Interface, key string) {
	_, _ = st.Delete(context.Background(), key, store.Preconditions{})
}
