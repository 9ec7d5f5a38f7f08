package kinds_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

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
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	srv, err := apiserver.New(apiserver.Config{
		Storage: st, Clock: clock.NewFake(apiservertest.Start), Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin(),
	})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, srv.Bootstrap(ctx))
	// No image: "spec.containers[0].image: Required value" on any
	// write that checks the spec.
	_, err = st.Create(ctx, "/registry/core/pods/default/legacy", []byte(`{"apiVersion":"v1","kind":"Pod",`+
		`"metadata":{"name":"legacy","namespace":"default","uid":"u-1","creationTimestamp":"2026-01-01T00:00:00Z"},`+
		`"spec":{"nodeName":"node-1","containers":[{"name":"web"}]},"status":{"phase":"Pending"}}`), store.CreateOptions{})
	require.NoError(t, err)
	c := client.NewInProcess(srv.Handler(), "test")
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
