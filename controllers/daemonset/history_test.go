package daemonset

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers"
)

func revisionOf(t *testing.T, ds *appsv1.DaemonSet, n int64) *appsv1.ControllerRevision {
	t.Helper()
	cr, err := NewRevision(ds, n)
	require.NoError(t, err)
	return cr
}

func withImage(image string) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = image }
}

func TestNewRevision(t *testing.T) {
	ds := daemonSet()
	ds.Annotations = map[string]string{"kubernetes.io/change-cause": "first"}
	cr := revisionOf(t, ds, 3)
	hash := Hash(ds)
	assert.Equal(t, "agent-"+hash, cr.Name)
	assert.Equal(t, map[string]string{"app": "agent", "controller-revision-hash": hash}, cr.Labels)
	assert.Equal(t, "first", cr.Annotations["kubernetes.io/change-cause"], "annotated like the set, for rollout history")
	assert.Equal(t, int64(3), cr.Revision)
	assert.Equal(t, types.UID("ds-uid"), api.GetControllerOf(&cr.ObjectMeta).UID)
	assert.Equal(t, "DaemonSet", api.GetControllerOf(&cr.ObjectMeta).Kind)
	back, err := controllers.RevisionTemplate(cr)
	require.NoError(t, err)
	assert.Equal(t, &ds.Spec.Template, back, "the data puts the template back")
	assert.True(t, Match(ds, cr))
	assert.False(t, Match(daemonSet(withImage("agent:2")), cr))
	assert.Equal(t, controllers.ComputeHash(&ds.Spec.Template, nil), hash, "the template's hash, as a Deployment's pod-template-hash")
	n := int32(1)
	ds.Status.CollisionCount = &n
	assert.NotEqual(t, hash, Hash(ds), "a collision gives another name")
}

func TestHistoryPlan(t *testing.T) {
	v1, v2 := daemonSet(), daemonSet(withImage("agent:2"))
	r1, r2 := revisionOf(t, v1, 1), revisionOf(t, v2, 2)

	cur, dups, old, next := HistoryPlan(v2, []*appsv1.ControllerRevision{r1, r2})
	assert.Equal(t, r2, cur)
	assert.Empty(t, dups)
	assert.Equal(t, []*appsv1.ControllerRevision{r1}, old)
	assert.Equal(t, int64(2), next, "already numbered right")

	cur, _, old, next = HistoryPlan(v1, []*appsv1.ControllerRevision{r1, r2})
	assert.Equal(t, r1, cur, "a rollback finds the old revision")
	assert.Equal(t, []*appsv1.ControllerRevision{r2}, old)
	assert.Equal(t, int64(3), next, "and it is renumbered as the newest")

	v3 := daemonSet(withImage("agent:3"))
	cur, _, old, next = HistoryPlan(v3, []*appsv1.ControllerRevision{r2, r1})
	assert.Nil(t, cur, "a new template needs a new revision")
	assert.Len(t, old, 2)
	assert.Equal(t, int64(3), next)

	dup := r2.DeepCopy()
	dup.Name, dup.Revision = "agent-dup", 5
	cur, dups, _, _ = HistoryPlan(v2, []*appsv1.ControllerRevision{r2, dup})
	assert.Equal(t, "agent-dup", cur.Name, "of duplicates the newest stays")
	assert.Equal(t, []*appsv1.ControllerRevision{r2}, dups)
}

func TestHistoryToPrune(t *testing.T) {
	old := func(n int) []*appsv1.ControllerRevision {
		var out []*appsv1.ControllerRevision
		for i := n; i >= 1; i-- { // out of order on purpose
			out = append(out, &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("r%d", i),
				Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: fmt.Sprintf("h%d", i)}}, Revision: int64(i)})
		}
		return out
	}
	limit := func(n int32) *appsv1.DaemonSet {
		return daemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = &n })
	}
	names := func(rs []*appsv1.ControllerRevision) []string {
		out := []string{}
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	assert.Equal(t, []string{}, names(HistoryToPrune(limit(3), old(3), nil)))
	assert.Equal(t, []string{"r1", "r2"}, names(HistoryToPrune(limit(1), old(3), nil)), "oldest first")
	assert.Equal(t, []string{"r1", "r3"}, names(HistoryToPrune(limit(1), old(3), []*corev1.Pod{pod("p", "a", "ok", "h2", 1)})),
		"a revision a pod runs stays, and the next one goes in its place")
	assert.Equal(t, []string{"r1"}, names(HistoryToPrune(daemonSet(), old(11), nil)), "default 10")
}
