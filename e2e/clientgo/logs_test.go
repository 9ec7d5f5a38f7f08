package clientgo

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/e2e/framework"
)

// TestPodLogs reads a pod's log through client-go's GetLogs, as a Go
// controller or a log shipper does: pods/log through the API server to
// the node's kubelet, with follow ending when the container exits.
func TestPodLogs(t *testing.T) {
	k := framework.Start(t, framework.Options{Nodes: 1})
	cs := k.Clientset(t)
	ctx := t.Context()
	pods := cs.CoreV1().Pods("default")
	_, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "talker"}, Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: "sh", Image: "busybox",
			Command: []string{"sh", "-c", "echo one; sleep 1; echo two; exit 3"}}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		p, err := pods.Get(ctx, "talker", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning
	}, wait, poll)

	stream, err := pods.GetLogs("talker", &corev1.PodLogOptions{Follow: true}).Stream(ctx)
	require.NoError(t, err)
	out, err := io.ReadAll(stream)
	require.NoError(t, err)
	require.NoError(t, stream.Close())
	assert.Equal(t, "one\ntwo\n", string(out), "followed until the container exited")

	p, err := pods.Get(ctx, "talker", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, corev1.PodFailed, p.Status.Phase)
	assert.Equal(t, int32(3), p.Status.ContainerStatuses[0].State.Terminated.ExitCode)

	b, err := pods.GetLogs("talker", &corev1.PodLogOptions{TailLines: ptr.To[int64](1)}).DoRaw(ctx)
	require.NoError(t, err)
	assert.Equal(t, "two\n", string(b))

	// Stream decodes the Status of a refusal (DoRaw would not).
	_, err = pods.GetLogs("talker", &corev1.PodLogOptions{Previous: true}).Stream(ctx)
	require.Error(t, err)
	assert.True(t, apierrors.IsBadRequest(err), "%v", err)
	assert.Contains(t, err.Error(), `previous terminated container "sh" in pod "talker" not found`)
}
