package garbagecollector

import (
	"cmp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/controllers"
)

// The two kinds of work, named after the queues of the real collector.
const (
	actionDelete = "attemptToDelete"
	actionOrphan = "attemptToOrphan"
)

// objectReference identifies a node: what an ownerReference says, plus the
// namespace (an owner lives in its dependent's namespace, or in none).
type objectReference struct {
	APIVersion, Kind, Namespace, Name string
	UID                               types.UID
}

// String is "Kind namespace/name", or "Kind name" when cluster-scoped.
func (r objectReference) String() string {
	kind := r.Kind
	if kind == "" {
		kind = "?"
	}
	if r.Namespace == "" {
		return kind + " " + r.Name
	}
	return kind + " " + r.Namespace + "/" + r.Name
}

// node is one object in the dependency graph.
type node struct {
	identity objectReference
	// resource is the monitor that observed the node; zero while virtual.
	resource client.ResourceInfo
	// observed is false for a virtual node: an owner known only from a
	// dependent's ownerReference.
	observed bool
	owners   []metav1.OwnerReference
	// dependents are the nodes that name this one as an owner, by uid.
	dependents map[types.UID]*node
	// beingDeleted: the object has a deletionTimestamp.
	beingDeleted bool
	// deletingDependents: being deleted with the foregroundDeletion
	// finalizer, so it waits for its blocking dependents.
	deletingDependents bool
	// orphaning: being deleted with the orphan finalizer.
	orphaning bool
}

// sortedDependents returns the dependents in identity order, so that the
// work they cause is queued in the same order every run.
func (n *node) sortedDependents() []*node {
	out := make([]*node, 0, len(n.dependents))
	for _, d := range n.dependents {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *node) int {
		if c := strings.Compare(a.identity.Namespace, b.identity.Namespace); c != 0 {
			return c
		}
		if c := strings.Compare(a.identity.Kind, b.identity.Kind); c != 0 {
			return c
		}
		if c := strings.Compare(a.identity.Name, b.identity.Name); c != 0 {
			return c
		}
		return cmp.Compare(a.identity.UID, b.identity.UID)
	})
	return out
}

// work is a key to queue and the reason.
type work struct {
	key   string
	cause controllers.Cause
}

// itemKey builds the queue key of action on n: readable in the trace, and
// ending with the uid that Reconcile looks the node up by.
func itemKey(action string, n *node) string {
	return action + " " + n.identity.String() + " " + string(n.identity.UID)
}

// parseKey splits a key into its action and uid.
func parseKey(key string) (action string, uid types.UID, ok bool) {
	f := strings.Fields(key)
	if len(f) < 2 {
		return "", "", false
	}
	return f[0], types.UID(f[len(f)-1]), true
}

// graph is the owner→dependents graph the monitors build (the real
// GraphBuilder's uidToNode). The collector's mutex guards it.
type graph struct {
	uidToNode map[types.UID]*node
	// absent remembers owner uids confirmed gone (the real absentOwnerCache):
	// a uid never comes back, so the answer never goes stale.
	absent map[types.UID]bool
}

// maxAbsent bounds the absent-owner cache; past it the cache starts over.
const maxAbsent = 10000

func newGraph() *graph {
	return &graph{uidToNode: map[types.UID]*node{}, absent: map[types.UID]bool{}}
}

func (g *graph) markAbsent(uid types.UID) {
	if len(g.absent) >= maxAbsent {
		g.absent = map[types.UID]bool{}
	}
	g.absent[uid] = true
}

func identityOf(obj *metav1.PartialObjectMetadata) objectReference {
	return objectReference{APIVersion: obj.APIVersion, Kind: obj.Kind, Namespace: obj.Namespace,
		Name: obj.Name, UID: obj.UID}
}

func causeOf(event string, obj *metav1.PartialObjectMetadata) controllers.Cause {
	return controllers.Cause{Event: event, Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name,
		ResourceVersion: obj.ResourceVersion}
}

// observe applies an added or updated object to the graph and returns the
// work it causes (the real processGraphChanges for add and update events).
func (g *graph) observe(event string, info client.ResourceInfo, obj *metav1.PartialObjectMetadata) []work {
	cause := causeOf(event, obj)
	var out []work
	n, found := g.uidToNode[obj.UID]
	if !found {
		n = &node{identity: identityOf(obj), resource: info, observed: true, dependents: map[types.UID]*node{}}
		g.uidToNode[obj.UID] = n
		out = append(out, g.addDependentToOwners(n, obj.OwnerReferences, cause)...)
	} else {
		if !n.observed {
			// A virtual owner turned up: it is real after all.
			n.observed = true
		}
		n.identity, n.resource = identityOf(obj), info
		added, removed, changed := referencesDiffs(n.owners, obj.OwnerReferences)
		out = append(out, g.addDependentToOwners(n, added, cause)...)
		for _, ref := range append(removed, changed...) {
			owner, ok := g.uidToNode[ref.UID]
			if !ok {
				continue
			}
			if !slices.ContainsFunc(obj.OwnerReferences, func(r metav1.OwnerReference) bool { return r.UID == ref.UID }) {
				delete(owner.dependents, n.identity.UID)
			}
			// A foreground owner may have been waiting for this
			// dependent; look at it again.
			if owner.deletingDependents {
				out = append(out, work{itemKey(actionDelete, owner), cause})
			}
		}
	}
	n.owners = slices.Clone(obj.OwnerReferences)
	n.beingDeleted = obj.DeletionTimestamp != nil

	// processTransitions: the moments an owner starts waiting for its
	// dependents to be orphaned or deleted.
	orphaning := obj.DeletionTimestamp != nil && slices.Contains(obj.Finalizers, metav1.FinalizerOrphanDependents)
	if orphaning && !n.orphaning {
		out = append(out, work{itemKey(actionOrphan, n), cause})
	}
	n.orphaning = orphaning
	deleting := obj.DeletionTimestamp != nil && slices.Contains(obj.Finalizers, metav1.FinalizerDeleteDependents)
	if deleting && !n.deletingDependents {
		n.deletingDependents = true
		for _, dep := range n.sortedDependents() {
			out = append(out, work{itemKey(actionDelete, dep), cause})
		}
		out = append(out, work{itemKey(actionDelete, n), cause})
	}
	n.deletingDependents = deleting
	return out
}

// addDependentToOwners links n under each owner, creating a virtual node
// (and queuing a check of it) for an owner the graph has not seen.
func (g *graph) addDependentToOwners(n *node, refs []metav1.OwnerReference, cause controllers.Cause) []work {
	var out []work
	for _, ref := range refs {
		owner, ok := g.uidToNode[ref.UID]
		if !ok {
			owner = &node{identity: objectReference{APIVersion: ref.APIVersion, Kind: ref.Kind,
				Namespace: n.identity.Namespace, Name: ref.Name, UID: ref.UID}, dependents: map[types.UID]*node{}}
			g.uidToNode[ref.UID] = owner
			out = append(out, work{itemKey(actionDelete, owner), cause})
		}
		owner.dependents[n.identity.UID] = n
		if owner.deletingDependents {
			// The owner already waits for its dependents: this one must
			// go too.
			out = append(out, work{itemKey(actionDelete, n), cause})
		}
	}
	return out
}

// remove takes the node of uid out of the graph (a delete event, observed or
// virtual) and returns the work it causes: its dependents lost an owner,
// and a foreground owner may have lost its last blocking dependent.
func (g *graph) remove(uid types.UID, cause controllers.Cause) []work {
	n, ok := g.uidToNode[uid]
	if !ok {
		return nil
	}
	delete(g.uidToNode, uid)
	var out []work
	for _, ref := range n.owners {
		if owner, ok := g.uidToNode[ref.UID]; ok {
			delete(owner.dependents, uid)
		}
	}
	if len(n.dependents) > 0 {
		g.markAbsent(uid)
	}
	for _, dep := range n.sortedDependents() {
		out = append(out, work{itemKey(actionDelete, dep), cause})
	}
	for _, ref := range n.owners {
		if owner, ok := g.uidToNode[ref.UID]; ok && owner.deletingDependents {
			out = append(out, work{itemKey(actionDelete, owner), cause})
		}
	}
	return dedupe(out)
}

// dedupe drops repeated keys, keeping the first.
func dedupe(in []work) []work {
	seen := map[string]bool{}
	out := in[:0]
	for _, w := range in {
		if !seen[w.key] {
			seen[w.key] = true
			out = append(out, w)
		}
	}
	return out
}

// referencesDiffs compares owner references by uid: added, removed, and
// those whose blockOwnerDeletion or controller flag changed.
func referencesDiffs(old, cur []metav1.OwnerReference) (added, removed, changed []metav1.OwnerReference) {
	byUID := func(list []metav1.OwnerReference) map[types.UID]metav1.OwnerReference {
		m := make(map[types.UID]metav1.OwnerReference, len(list))
		for _, r := range list {
			m[r.UID] = r
		}
		return m
	}
	oldM, curM := byUID(old), byUID(cur)
	for _, r := range cur {
		o, ok := oldM[r.UID]
		switch {
		case !ok:
			added = append(added, r)
		case boolValue(o.BlockOwnerDeletion) != boolValue(r.BlockOwnerDeletion) ||
			boolValue(o.Controller) != boolValue(r.Controller):
			changed = append(changed, r)
		}
	}
	for _, r := range old {
		if _, ok := curM[r.UID]; !ok {
			removed = append(removed, r)
		}
	}
	return added, removed, changed
}

func boolValue(b *bool) bool { return b != nil && *b }

// snapshot is a copy of a node and its neighbourhood that Reconcile can use
// without holding the lock while it talks to the API server.
type snapshot struct {
	identity           objectReference
	resource           client.ResourceInfo
	observed           bool
	beingDeleted       bool
	deletingDependents bool
	owners             []metav1.OwnerReference
	dependents         []dependentInfo
}

// dependentInfo is what an owner needs to know about one dependent.
type dependentInfo struct {
	identity           objectReference
	resource           client.ResourceInfo
	beingDeleted       bool
	deletingDependents bool
	// blocking: its reference to the owner has blockOwnerDeletion.
	blocking bool
}

func (g *graph) snapshot(uid types.UID) (snapshot, bool) {
	n, ok := g.uidToNode[uid]
	if !ok {
		return snapshot{}, false
	}
	s := snapshot{identity: n.identity, resource: n.resource, observed: n.observed,
		beingDeleted: n.beingDeleted, deletingDependents: n.deletingDependents, owners: slices.Clone(n.owners)}
	for _, d := range n.sortedDependents() {
		di := dependentInfo{identity: d.identity, resource: d.resource, beingDeleted: d.beingDeleted,
			deletingDependents: d.deletingDependents}
		for _, ref := range d.owners {
			if ref.UID == uid && boolValue(ref.BlockOwnerDeletion) {
				di.blocking = true
			}
		}
		s.dependents = append(s.dependents, di)
	}
	return s, true
}
