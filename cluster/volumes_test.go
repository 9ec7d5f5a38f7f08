package cluster

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// What a pod writes into its claim's mount is the PersistentVolume's, on
// disk under the data directory: a cluster started again on the directory
// finds it, and it goes when the claim's deletion reclaims the volume.
func TestVolumeDataOutlivesARestartAndGoesWithTheVolume(t *testing.T) {
	dir := t.TempDir()
	start := func() *Cluster {
		c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 2, DataDir: dir, UnsafeNoFsync: true})
		require.NoError(t, err)
		_, err = c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
		return c
	}
	c := start()
	cl := c.Client("test")
	_, err := cl.PersistentVolumeClaims().Create(bg, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}})
	require.NoError(t, err)
	_, err = cl.Pods().Create(bg, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sleep", "3600"},
			VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/data"}}}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}})
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pvc, err := cl.PersistentVolumeClaims().Get(bg, "default", "data")
	require.NoError(t, err)
	pv, err := cl.PersistentVolumes().Get(bg, "", pvc.Spec.VolumeName)
	require.NoError(t, err)
	_, errOut, code := execIn(t, c, cl, "default", "db", "echo 'row 1' > /var/lib/data/table; mkdir /var/lib/data/wal")
	require.Equal(t, 0, code, errOut)
	onDisk := filepath.Join(dir, "volumes", pv.Name+"_"+string(pv.UID))
	data, err := os.ReadFile(filepath.Join(onDisk, "table"))
	require.NoError(t, err)
	assert.Equal(t, "row 1\n", string(data))
	c.Close()

	c = start()
	defer c.Close()
	cl = c.Client("test")
	out, errOut, code := execIn(t, c, cl, "default", "db", "cat /var/lib/data/table; ls /var/lib/data")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "row 1\ntable\nwal\n", out, "the same pod, after the restart")

	zero := int64(0)
	require.NoError(t, cl.Pods().Delete(bg, "default", "db", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	require.NoError(t, cl.PersistentVolumeClaims().Delete(bg, "default", "data", nil))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	_, err = cl.PersistentVolumes().Get(bg, "", pv.Name)
	require.True(t, api.IsNotFound(err), "reclaimed by its Delete policy: %v", err)
	assert.NoDirExists(t, onDisk, "the volume's data goes with it")
}
