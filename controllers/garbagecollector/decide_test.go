package garbagecollector

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func refTo(uid string, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "n-" + uid, UID: types.UID(uid), BlockOwnerDeletion: &block}
}

func TestDecide(t *testing.T) {
	a, b, c := refTo("a", true), refTo("b", false), refTo("c", true)
	tests := []struct {
		name          string
		c             classified
		hasDependents bool
		depDeleting   bool
		finalizers    []string
		want          plan
	}{
		{name: "all owners live", c: classified{solid: []metav1.OwnerReference{a, b}}, want: plan{Kind: planNothing}},
		{name: "one owner gone, one live", c: classified{solid: []metav1.OwnerReference{a}, dangling: []metav1.OwnerReference{b}},
			want: plan{Kind: planRemoveReferences, RemoveUIDs: []types.UID{"b"}}},
		{name: "live owner, one gone and one deleting in the foreground",
			c:    classified{solid: []metav1.OwnerReference{a}, dangling: []metav1.OwnerReference{b}, waiting: []metav1.OwnerReference{c}},
			want: plan{Kind: planRemoveReferences, RemoveUIDs: []types.UID{"b", "c"}}},
		{name: "every owner gone", c: classified{dangling: []metav1.OwnerReference{a, b}},
			want: plan{Kind: planDelete, Policy: metav1.DeletePropagationBackground}},
		{name: "owner gone, item asked for orphaning", c: classified{dangling: []metav1.OwnerReference{a}},
			finalizers: []string{metav1.FinalizerOrphanDependents},
			want:       plan{Kind: planDelete, Policy: metav1.DeletePropagationOrphan}},
		{name: "owner gone, item asked for foreground", c: classified{dangling: []metav1.OwnerReference{a}},
			finalizers: []string{"x/y", metav1.FinalizerDeleteDependents},
			want:       plan{Kind: planDelete, Policy: metav1.DeletePropagationForeground}},
		{name: "foreground owner, leaf item", c: classified{waiting: []metav1.OwnerReference{a}},
			want: plan{Kind: planDelete, Policy: metav1.DeletePropagationBackground}},
		{name: "foreground owner, item with dependents", c: classified{waiting: []metav1.OwnerReference{a}}, hasDependents: true,
			want: plan{Kind: planDelete, Policy: metav1.DeletePropagationForeground}},
		{name: "foreground owner, item whose dependent also deletes dependents",
			c: classified{waiting: []metav1.OwnerReference{a}, dangling: []metav1.OwnerReference{b}}, hasDependents: true, depDeleting: true,
			want: plan{Kind: planUnblockAndDelete, Policy: metav1.DeletePropagationForeground}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, decide(tt.c, tt.hasDependents, tt.depDeleting, tt.finalizers))
		})
	}
}

func TestReferencesDiffs(t *testing.T) {
	a, b, c := refTo("a", true), refTo("b", false), refTo("c", true)
	bBlocking := refTo("b", true)
	tests := []struct {
		name                    string
		old, cur                []metav1.OwnerReference
		added, removed, changed []metav1.OwnerReference
	}{
		{name: "same", old: []metav1.OwnerReference{a, b}, cur: []metav1.OwnerReference{a, b}},
		{name: "added", old: []metav1.OwnerReference{a}, cur: []metav1.OwnerReference{a, c}, added: []metav1.OwnerReference{c}},
		{name: "removed", old: []metav1.OwnerReference{a, b}, cur: []metav1.OwnerReference{b}, removed: []metav1.OwnerReference{a}},
		{name: "blockOwnerDeletion turned on", old: []metav1.OwnerReference{b}, cur: []metav1.OwnerReference{bBlocking},
			changed: []metav1.OwnerReference{bBlocking}},
		{name: "from none", cur: []metav1.OwnerReference{a}, added: []metav1.OwnerReference{a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			added, removed, changed := referencesDiffs(tt.old, tt.cur)
			assert.Equal(t, tt.added, added)
			assert.Equal(t, tt.removed, removed)
			assert.Equal(t, tt.changed, changed)
		})
	}
}

func TestReferenceEdits(t *testing.T) {
	a, b := refTo("a", true), refTo("b", false)
	out, changed := withoutOwners([]metav1.OwnerReference{a, b}, []types.UID{"a"})
	assert.True(t, changed)
	assert.Equal(t, []metav1.OwnerReference{b}, out)
	_, changed = withoutOwners([]metav1.OwnerReference{b}, []types.UID{"a"})
	assert.False(t, changed)

	out, changed = unblocked([]metav1.OwnerReference{a, b})
	assert.True(t, changed)
	for _, r := range out {
		assert.False(t, boolValue(r.BlockOwnerDeletion))
	}
	assert.True(t, boolValue(a.BlockOwnerDeletion), "the input is not changed")
	_, changed = unblocked([]metav1.OwnerReference{b})
	assert.False(t, changed)
}

func TestBlockingDependents(t *testing.T) {
	s := snapshot{dependents: []dependentInfo{
		{identity: objectReference{Name: "x"}, blocking: true},
		{identity: objectReference{Name: "y"}},
		{identity: objectReference{Name: "z"}, blocking: true, beingDeleted: true},
	}}
	var names []string
	for _, d := range blockingDependents(s) {
		names = append(names, d.identity.Name)
	}
	assert.Equal(t, []string{"x", "z"}, names)
}

func TestKeys(t *testing.T) {
	n := &node{identity: objectReference{Kind: "Pod", Namespace: "default", Name: "web-1", UID: "u-1"}}
	key := itemKey(actionDelete, n)
	assert.Equal(t, "attemptToDelete Pod default/web-1 u-1", key)
	action, uid, ok := parseKey(key)
	assert.True(t, ok)
	assert.Equal(t, actionDelete, action)
	assert.Equal(t, types.UID("u-1"), uid)

	n = &node{identity: objectReference{Kind: "Node", Name: "n1", UID: "u-2"}}
	assert.Equal(t, "attemptToOrphan Node n1 u-2", itemKey(actionOrphan, n))
	_, _, ok = parseKey("junk")
	assert.False(t, ok)
}
