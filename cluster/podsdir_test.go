package cluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/sampleapiserver"
	"github.com/kubesim/kubesim/store/boltstore"
)

// The sample extension server run as a pod keeps its files in the pod's
// scratch directory under the data directory (not /tmp), which goes with
// the pod; what a crash left there is removed when the cluster starts.
func TestExtensionImageScratchLivesUnderTheDataDir(t *testing.T) {
	dataDir := t.TempDir()
	stale := filepath.Join(dataDir, "pods", "left-by-a-crash")
	require.NoError(t, os.MkdirAll(stale, 0o755))

	c, err := newTestCluster(t, Config{DataDir: dataDir, NodeCount: 1, UnsafeNoFsync: true,
		Stages: kubelet.Stages{ContainerCreating: 10 * time.Millisecond, Running: 10 * time.Millisecond, Ready: 10 * time.Millisecond}})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, c.Start(ctx))
	require.NoDirExists(t, stale, "a crash's leftovers are removed at start")

	cl := c.Client("t")
	pod, err := cl.Pods().Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "wardle", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "s", Image: sampleapiserver.ImageName}}}})
	require.NoError(t, err)
	scratch := filepath.Join(dataDir, "pods", string(pod.UID))
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(scratch, boltstore.FileName))
		return err == nil
	}, 30*time.Second, 10*time.Millisecond, "the extension server's store is in the pod's scratch directory")
	zero := int64(0)
	require.NoError(t, cl.Pods().Delete(ctx, "default", "wardle", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	require.Eventually(t, func() bool {
		_, err := os.Stat(scratch)
		return os.IsNotExist(err)
	}, 30*time.Second, 10*time.Millisecond, "the scratch directory goes with the pod")
}
