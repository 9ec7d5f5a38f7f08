package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// A StatefulSet's pod whose node is deleted (its kubelet dead): after the
// pod garbage collector's quarantine the pod is marked Failed with the
// DisruptionTarget condition and deleted; the StatefulSet makes it again,
// and it stays Pending — its claim's volume lives on the node that is
// gone (volume node affinity conflict). Deleting the claim and the pod
// lets the StatefulSet start over on a node that exists.
func TestPodOfADeletedNodeIsCollectedAndItsVolumeCannotFollow(t *testing.T) {
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 2})
	require.NoError(t, err)
	defer c.Close()
	cl := c.Client("test")
	one := int32(1)
	labels := map[string]string{"app": "db"}
	_, err = cl.StatefulSets().Create(bg, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: appsv1.StatefulSetSpec{Replicas: &one, ServiceName: "db", Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "c", Image: "busybox", Command: []string{"sleep", "infinity"}, VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}}}},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}}}})
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pod, err := cl.Pods().Get(bg, "default", "db-0")
	require.NoError(t, err)
	require.Equal(t, corev1.PodRunning, pod.Status.Phase)
	gone := pod.Spec.NodeName
	k, ok := c.Kubelet(gone)
	require.True(t, ok)
	k.Stop()
	require.NoError(t, cl.Nodes().Delete(bg, "", gone, nil))
	deletedAt := c.clock.Now()

	_, err = c.Advance(bg, 40*time.Second-time.Second, stepper.Limits{})
	require.NoError(t, err)
	pod, err = cl.Pods().Get(bg, "default", "db-0")
	require.NoError(t, err)
	assert.Equal(t, gone, pod.Spec.NodeName, "still the orphan during the quarantine")

	_, err = c.Advance(bg, time.Second, stepper.Limits{})
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pod, err = cl.Pods().Get(bg, "default", "db-0")
	require.NoError(t, err)
	assert.Empty(t, pod.Spec.NodeName, "made again, and not scheduled: %s", pod.Spec.NodeName)
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	evs, err := cl.Events().List(bg, "default", client.ListOptions{FieldSelector: "involvedObject.name=db-0,reason=FailedScheduling"})
	require.NoError(t, err)
	require.NotEmpty(t, evs.Items)
	assert.Equal(t, "0/1 nodes are available: 1 node(s) had volume node affinity conflict.", evs.Items[len(evs.Items)-1].Message)
	assert.True(t, c.clock.Now().Sub(deletedAt) >= 40*time.Second)

	// The fix: a new claim, on a node that exists.
	require.NoError(t, cl.PersistentVolumeClaims().Delete(bg, "default", "data-db-0", nil))
	require.NoError(t, cl.Pods().Delete(bg, "default", "db-0", nil))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pod, err = cl.Pods().Get(bg, "default", "db-0")
	require.NoError(t, err)
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
	assert.NotEqual(t, gone, pod.Spec.NodeName)
}
