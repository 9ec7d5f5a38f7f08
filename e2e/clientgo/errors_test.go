package clientgo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/e2e/framework"
)

// TestAPIErrors checks that kubesim's errors reach a client-go caller as
// the typed errors that controllers branch on (apierrors.IsNotFound,
// IsAlreadyExists, IsConflict, IsInvalid), decoded from the Status body
// with its reason, details and Kubernetes' wording.
func TestAPIErrors(t *testing.T) {
	k := framework.Start(t, framework.Options{APIServerOnly: true})
	cs := k.Clientset(t)
	ctx := t.Context()
	cms := cs.CoreV1().ConfigMaps("default")

	_, err := cms.Get(ctx, "missing", metav1.GetOptions{})
	require.Error(t, err)
	assert.True(t, apierrors.IsNotFound(err), "get: %v", err)
	assert.Equal(t, `configmaps "missing" not found`, err.Error())
	var status apierrors.APIStatus
	require.ErrorAs(t, err, &status)
	assert.Equal(t, metav1.StatusReasonNotFound, status.Status().Reason)
	require.NotNil(t, status.Status().Details)
	assert.Equal(t, "missing", status.Status().Details.Name)
	assert.Equal(t, "configmaps", status.Status().Details.Kind)
	assert.Equal(t, int32(404), status.Status().Code)

	err = cms.Delete(ctx, "missing", metav1.DeleteOptions{})
	assert.True(t, apierrors.IsNotFound(err), "delete: %v", err)
	_, err = cms.Patch(ctx, "missing", types.MergePatchType, []byte(`{"data":{"a":"b"}}`), metav1.PatchOptions{})
	assert.True(t, apierrors.IsNotFound(err), "patch: %v", err)

	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one"}}, metav1.CreateOptions{})
	require.Error(t, err)
	assert.True(t, apierrors.IsAlreadyExists(err), "create twice: %v", err)
	assert.Equal(t, `configmaps "one" already exists`, err.Error())

	// Two writers from the same resourceVersion: the second is a
	// Conflict, the optimistic concurrency every controller relies on.
	first, second := cm.DeepCopy(), cm.DeepCopy()
	first.Data = map[string]string{"by": "first"}
	_, err = cms.Update(ctx, first, metav1.UpdateOptions{})
	require.NoError(t, err)
	second.Data = map[string]string{"by": "second"}
	_, err = cms.Update(ctx, second, metav1.UpdateOptions{})
	require.Error(t, err)
	assert.True(t, apierrors.IsConflict(err), "stale update: %v", err)
	assert.Equal(t, `Operation cannot be fulfilled on configmaps "one": the object has been modified; please apply your changes to the latest version and try again`, err.Error())
	got, err := cms.Get(ctx, "one", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "first", got.Data["by"], "the conflicting write changed nothing")

	// A delete with a precondition on a uid that is not the object's.
	err = cms.Delete(ctx, "one", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptrUID("not-the-uid")}})
	assert.True(t, apierrors.IsConflict(err), "delete with a wrong uid precondition: %v", err)

	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Not_A_DNS_Name"}}, metav1.CreateOptions{})
	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "bad name: %v", err)
	require.ErrorAs(t, err, &status)
	require.NotNil(t, status.Status().Details)
	require.NotEmpty(t, status.Status().Details.Causes)
	assert.Equal(t, "metadata.name", status.Status().Details.Causes[0].Field)
	assert.Equal(t, metav1.CauseTypeFieldValueInvalid, status.Status().Details.Causes[0].Type)

	_, err = cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}, metav1.CreateOptions{})
	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "pod without containers: %v", err)
	require.ErrorAs(t, err, &status)
	require.NotNil(t, status.Status().Details)
	fields := []string{}
	for _, c := range status.Status().Details.Causes {
		fields = append(fields, c.Field)
	}
	assert.Contains(t, fields, "spec.containers")

	// pods/binding of a pod that is already bound is a Conflict.
	spec := podSpec()
	spec.NodeName = "node-1"
	_, err = cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bound"}, Spec: spec}, metav1.CreateOptions{})
	require.NoError(t, err)
	err = cs.CoreV1().Pods("default").Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "bound"},
		Target: corev1.ObjectReference{Kind: "Node", Name: "node-2"}}, metav1.CreateOptions{})
	assert.True(t, apierrors.IsConflict(err), "binding a bound pod: %v", err)

	// Update with a resourceVersion of an object that is gone.
	require.NoError(t, cms.Delete(ctx, "one", metav1.DeleteOptions{}))
	_, err = cms.Update(ctx, got, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsNotFound(err), "update of a deleted object: %v", err)
}

func ptrUID(s string) *types.UID {
	u := types.UID(s)
	return &u
}
