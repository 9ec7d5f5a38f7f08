package garbagecollector

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
)

func obj(name, uid string, refs ...metav1.OwnerReference) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(uid), OwnerReferences: refs},
	}
}

func keys(ws []work) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.key)
	}
	return out
}

func TestGraphVirtualOwnerThenObserved(t *testing.T) {
	g := newGraph()
	info := client.ConfigMapsResource
	w := g.observe("ADDED", info, obj("child", "c", refTo("o", true)))
	assert.Equal(t, []string{"attemptToDelete ConfigMap ns/n-o o"}, keys(w), "an unseen owner is checked")
	owner := g.uidToNode["o"]
	require.NotNil(t, owner)
	assert.False(t, owner.observed)
	assert.Contains(t, owner.dependents, types.UID("c"))

	w = g.observe("ADDED", info, obj("n-o", "o"))
	assert.Empty(t, w)
	assert.True(t, g.uidToNode["o"].observed)
	assert.Contains(t, g.uidToNode["o"].dependents, types.UID("c"), "the dependents stay linked")
}

func TestGraphDeleteQueuesDependentsAndForegroundOwners(t *testing.T) {
	g := newGraph()
	info := client.ConfigMapsResource
	g.observe("ADDED", info, obj("top", "t"))
	g.observe("ADDED", info, obj("mid", "m", refTo("t", true)))
	g.observe("ADDED", info, obj("b", "b", refTo("m", true)))
	g.observe("ADDED", info, obj("a", "a", refTo("m", false)))

	// top starts a foreground delete: its dependents and itself are queued.
	top := obj("top", "t")
	now := metav1.NewTime(apiNow)
	top.DeletionTimestamp = &now
	top.Finalizers = []string{metav1.FinalizerDeleteDependents}
	w := g.observe("MODIFIED", info, top)
	assert.Equal(t, []string{"attemptToDelete ConfigMap ns/mid m", "attemptToDelete ConfigMap ns/top t"}, keys(w))
	assert.True(t, g.uidToNode["t"].deletingDependents)

	// mid goes: its dependents (in name order) and its waiting owner.
	w = g.remove("m", causeOf("DELETED", obj("mid", "m")))
	assert.Equal(t, []string{"attemptToDelete ConfigMap ns/a a", "attemptToDelete ConfigMap ns/b b",
		"attemptToDelete ConfigMap ns/top t"}, keys(w))
	assert.True(t, g.absent["m"], "an owner seen deleted is known absent")
	assert.NotContains(t, g.uidToNode["t"].dependents, types.UID("m"))
	assert.Empty(t, g.remove("m", causeOf("DELETED", obj("mid", "m"))), "a second delete is a no-op")
}

func TestGraphOrphanTransitionAndReferenceRemoval(t *testing.T) {
	g := newGraph()
	info := client.ConfigMapsResource
	g.observe("ADDED", info, obj("owner", "o"))
	g.observe("ADDED", info, obj("dep", "d", refTo("o", true)))

	owner := obj("owner", "o")
	now := metav1.NewTime(apiNow)
	owner.DeletionTimestamp = &now
	owner.Finalizers = []string{metav1.FinalizerOrphanDependents}
	assert.Equal(t, []string{"attemptToOrphan ConfigMap ns/owner o"}, keys(g.observe("MODIFIED", info, owner)))
	assert.Empty(t, g.observe("MODIFIED", info, owner), "the transition is queued once")

	assert.Empty(t, g.observe("MODIFIED", info, obj("dep", "d")))
	assert.Empty(t, g.uidToNode["o"].dependents, "a dropped reference unlinks the dependent")
}

func TestSnapshotMarksBlockingDependents(t *testing.T) {
	g := newGraph()
	info := client.ConfigMapsResource
	g.observe("ADDED", info, obj("owner", "o"))
	g.observe("ADDED", info, obj("x", "x", refTo("o", true)))
	g.observe("ADDED", info, obj("y", "y", refTo("o", false)))
	s, ok := g.snapshot("o")
	require.True(t, ok)
	require.Len(t, s.dependents, 2)
	assert.Equal(t, "x", s.dependents[0].identity.Name)
	assert.True(t, s.dependents[0].blocking)
	assert.False(t, s.dependents[1].blocking)
	_, ok = g.snapshot("nope")
	assert.False(t, ok)
}

var apiNow = apiservertest.Start
