package garbagecollector

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ownerState is what a live GET says about one owner of a dependent.
type ownerState int

const (
	// ownerSolid exists and is not waiting for its dependents.
	ownerSolid ownerState = iota
	// ownerDangling does not exist (not found, or another uid).
	ownerDangling
	// ownerWaiting exists, with a deletionTimestamp and the
	// foregroundDeletion finalizer: it waits for its dependents to go.
	ownerWaiting
)

// classified splits a dependent's owner references by the state of the
// owner they name.
type classified struct {
	solid, dangling, waiting []metav1.OwnerReference
}

// planKind is what attemptToDelete does with an item.
type planKind int

const (
	// planNothing: the item keeps a live owner and no stale reference.
	planNothing planKind = iota
	// planRemoveReferences: the item keeps a live owner; the references to
	// gone or foreground-deleting owners are removed.
	planRemoveReferences
	// planUnblockAndDelete: before a foreground delete, the item's own
	// references stop blocking its owners, so that an owner and a
	// dependent that both wait for each other do not deadlock.
	planUnblockAndDelete
	// planDelete: no live owner is left; delete with Policy.
	planDelete
)

// plan is the decision of attemptToDelete for one item.
type plan struct {
	Kind planKind
	// RemoveUIDs are the owner uids to drop (planRemoveReferences).
	RemoveUIDs []types.UID
	// Policy is the propagationPolicy of the delete.
	Policy metav1.DeletionPropagation
}

// decide is the heart of the real attemptToDeleteItem, as a pure function:
// given the owners' states, whether the item has dependents (and whether
// one of them is itself deleting its dependents) and the item's own
// finalizers, what to do.
func decide(c classified, hasDependents, dependentDeletingDependents bool, finalizers []string) plan {
	switch {
	case len(c.solid) > 0:
		if len(c.dangling) == 0 && len(c.waiting) == 0 {
			return plan{Kind: planNothing}
		}
		// A live owner remains: only forget the owners that are gone or
		// going.
		var uids []types.UID
		for _, r := range c.dangling {
			uids = append(uids, r.UID)
		}
		for _, r := range c.waiting {
			uids = append(uids, r.UID)
		}
		return plan{Kind: planRemoveReferences, RemoveUIDs: uids}
	case len(c.waiting) > 0 && hasDependents:
		// An owner waits for this item, which has dependents of its own:
		// delete it in the foreground too, so the tree goes bottom-up.
		if dependentDeletingDependents {
			return plan{Kind: planUnblockAndDelete, Policy: metav1.DeletePropagationForeground}
		}
		return plan{Kind: planDelete, Policy: metav1.DeletePropagationForeground}
	default:
		// No live owner: collect the item, honouring a propagation it
		// already asked for.
		switch {
		case slices.Contains(finalizers, metav1.FinalizerOrphanDependents):
			return plan{Kind: planDelete, Policy: metav1.DeletePropagationOrphan}
		case slices.Contains(finalizers, metav1.FinalizerDeleteDependents):
			return plan{Kind: planDelete, Policy: metav1.DeletePropagationForeground}
		default:
			return plan{Kind: planDelete, Policy: metav1.DeletePropagationBackground}
		}
	}
}

// blockingDependents are the dependents a foreground owner still waits
// for: those whose reference to it has blockOwnerDeletion.
func blockingDependents(s snapshot) []dependentInfo {
	var out []dependentInfo
	for _, d := range s.dependents {
		if d.blocking {
			out = append(out, d)
		}
	}
	return out
}

// withoutOwners returns refs minus those whose uid is in uids, and whether
// anything was removed.
func withoutOwners(refs []metav1.OwnerReference, uids []types.UID) ([]metav1.OwnerReference, bool) {
	var out []metav1.OwnerReference
	for _, r := range refs {
		if slices.Contains(uids, r.UID) {
			continue
		}
		out = append(out, r)
	}
	return out, len(out) != len(refs)
}

// unblocked returns refs with every blockOwnerDeletion turned off, and
// whether anything changed.
func unblocked(refs []metav1.OwnerReference) ([]metav1.OwnerReference, bool) {
	out := make([]metav1.OwnerReference, len(refs))
	changed := false
	for i, r := range refs {
		if boolValue(r.BlockOwnerDeletion) {
			no := false
			r.BlockOwnerDeletion = &no
			changed = true
		}
		out[i] = r
	}
	return out, changed
}

// without returns list minus s.
func without(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}
