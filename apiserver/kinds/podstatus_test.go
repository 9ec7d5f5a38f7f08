package kinds_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

// A write to pods/status checks the status and the metadata, not the
// stored spec, as kube-apiserver's podStatusStrategy.ValidateUpdate
// (ValidatePodStatusUpdate) does: a pod whose stored spec today's
// validation would refuse (here written to the store directly, as an
// older server's rules could have let it in) still takes the kubelet's
// status, while a write to the pod itself is refused for the spec.
func TestPodStatusWriteDoesNotRevalidateTheStoredSpec(t *testing.T) {
	c := serverWithLegacyPod(t, `"nodeName":"node-1",`)
	ctx := context.Background()
	pod, err := c.Pods().Get(ctx, "default", "legacy")
	require.NoError(t, err)

	pod.Status.Phase = corev1.PodRunning
	written, err := c.Pods().UpdateStatus(ctx, pod)
	require.NoError(t, err)
	assert.Equal(t, corev1.PodRunning, written.Status.Phase)

	written.Labels = map[string]string{"app": "web"}
	_, err = c.Pods().Update(ctx, written)
	require.True(t, api.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "spec.containers[0].image: Required value")

	// What the status may hold is still checked.
	written.Labels = nil
	written.Status.NominatedNodeName = "Not_A_Node"
	_, err = c.Pods().UpdateStatus(ctx, written)
	require.True(t, api.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "status.nominatedNodeName: Invalid value")
}

// pods/binding checks what a binding must (the pod unbound, not being
// deleted, its uid) and not the stored spec, as kube-apiserver's
// BindingREST, which sets the node without the pod strategy: a pod whose
// stored spec today's validation would refuse is still bound.
func TestPodBindingDoesNotRevalidateTheStoredSpec(t *testing.T) {
	c := serverWithLegacyPod(t, "")
	ctx := context.Background()
	require.NoError(t, c.Pods().CreateSubresource(ctx, "default", "legacy", "binding", &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: "default", UID: "u-1"},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "node-1"},
	}))
	pod, err := c.Pods().Get(ctx, "default", "legacy")
	require.NoError(t, err)
	assert.Equal(t, "node-1", pod.Spec.NodeName)
	// The binding's own checks still hold.
	err = c.Pods().CreateSubresource(ctx, "default", "legacy", "binding", &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: "default"},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "node-2"},
	})
	require.True(t, api.IsConflict(err), "%v", err)
}

// serverWithLegacyPod is an API server whose store holds the pod
// default/legacy with a spec today's validation refuses (a container
// without an image: "spec.containers[0].image: Required value"), written
// to the store directly, as an older server's rules could have let it in.
// spec is put at the start of the pod's spec.
func serverWithLegacyPod(t *testing.T, spec string) *client.Client {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	srv, err := apiserver.New(apiserver.Config{
		Storage: st, Clock: clock.NewFake(apiservertest.Start), Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin(),
	})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, srv.Bootstrap(ctx))
	_, err = st.Create(ctx, "/registry/core/pods/default/legacy", []byte(`{"apiVersion":"v1","kind":"Pod",`+
		`"metadata":{"name":"legacy","namespace":"default","uid":"u-1","creationTimestamp":"2026-01-01T00:00:00Z"},`+
		`"spec":{`+spec+`"containers":[{"name":"web"}]},"status":{"phase":"Pending"}}`), store.CreateOptions{})
	require.NoError(t, err)
	return client.NewInProcess(srv.Handler(), "test")
}
