package kinds_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
)

func TestEviction(t *testing.T) {
	cl := newServer(t, openStore(t))
	mkPod := func(name string, finalizers ...string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Finalizers: finalizers},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
		created, err := cl.Pods().Create(bg, p)
		require.NoError(t, err)
		return created
	}
	evict := func(url string, ev *policyv1.Eviction) error {
		ev.APIVersion, ev.Kind = "policy/v1", "Eviction"
		return cl.Pods().CreateSubresource(bg, "default", url, "eviction", ev)
	}

	// Without a PodDisruptionBudget the pod is marked and deleted: with a
	// finalizer it stays, being deleted, and shows why.
	p := mkPod("held", "example.com/hold")
	require.NoError(t, evict("held", &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: "default"}}))
	got, err := cl.Pods().Get(bg, "default", "held")
	require.NoError(t, err)
	assert.NotNil(t, got.DeletionTimestamp, "the eviction deleted the pod")
	var cond *corev1.PodCondition
	for i := range got.Status.Conditions {
		if got.Status.Conditions[i].Type == corev1.DisruptionTarget {
			cond = &got.Status.Conditions[i]
		}
	}
	require.NotNil(t, cond, "%+v", got.Status.Conditions)
	assert.Equal(t, corev1.ConditionTrue, cond.Status)
	assert.Equal(t, "EvictionByEvictionAPI", cond.Reason)
	assert.Equal(t, "Eviction API: evicting", cond.Message)
	assert.False(t, cond.LastTransitionTime.IsZero())
	assert.Equal(t, p.UID, got.UID)

	mkPod("plain")
	require.NoError(t, evict("plain", &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "plain"}}))
	_, err = cl.Pods().Get(bg, "default", "plain")
	assert.True(t, api.IsNotFound(err), "a pod without finalizers or grace is gone: %v", err)

	// The real refusals, in the real words.
	err = evict("nope", &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "nope"}})
	assert.True(t, api.IsNotFound(err), "%v", err)
	assert.Contains(t, err.Error(), `pods "nope" not found`)
	mkPod("other")
	err = evict("other", &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "someone-else"}})
	assert.True(t, api.IsBadRequest(err), "%v", err)
	assert.Contains(t, err.Error(), "name in URL does not match name in Eviction object")
	wrongUID := types.UID("not-the-uid")
	err = evict("other", &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "other"},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrongUID}}})
	assert.True(t, api.IsConflict(err), "%v", err)
	assert.Contains(t, err.Error(), `Operation cannot be fulfilled on Pod "other": the UID in the precondition (not-the-uid) does not match the UID in record`)

	// A dry run deletes nothing and marks nothing.
	require.NoError(t, evict("other", &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "other"},
		DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}}))
	got, err = cl.Pods().Get(bg, "default", "other")
	require.NoError(t, err)
	assert.Nil(t, got.DeletionTimestamp)
	raw, _ := json.Marshal(got.Status.Conditions)
	assert.NotContains(t, string(raw), "DisruptionTarget")
}

func TestControllerRevisionValidation(t *testing.T) {
	cl := newServer(t, openStore(t))
	cr := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default"}, Revision: -1}
	_, err := cl.ControllerRevisions().Create(bg, cr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `ControllerRevision.apps "web-1" is invalid: [data: Required value: data is mandatory, revision: Invalid value: -1: must be greater than or equal to 0]`)

	cr.Revision, cr.Data.Raw = 1, json.RawMessage(`{"spec":{"template":{"$patch":"replace"}}}`)
	created, err := cl.ControllerRevisions().Create(bg, cr)
	require.NoError(t, err)
	assert.JSONEq(t, `{"spec":{"template":{"$patch":"replace"}}}`, string(created.Data.Raw), "the data is kept whole, not pruned")

	created.Revision = 5
	renumbered, err := cl.ControllerRevisions().Update(bg, created)
	require.NoError(t, err, "the revision number may change")
	renumbered.Data.Raw = json.RawMessage(`{"other":1}`)
	_, err = cl.ControllerRevisions().Update(bg, renumbered)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `data: Invalid value: "{\"other\":1}": field is immutable`)
}
