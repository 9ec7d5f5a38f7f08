package kubelet

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestMounttestSeesVolumeUpdates runs the pod of the "updates should be
// reflected in volume" specs (kubernetes/test/e2e/common/storage/
// configmap_volume.go, downwardapi_volume.go): agnhost mounttest reads a
// ConfigMap's file, and the pod's labels through the downward API, every
// 2 seconds; the spec changes the ConfigMap and the labels and waits for
// the log to show "content of file \"/etc/configmap-volume/data-1\":
// value-2" and "key3=\"value3\"".
func TestMounttestSeesVolumeUpdates(t *testing.T) {
	f := newFixture(t, Config{})
	cm, err := f.env.Client.ConfigMaps().Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"},
		Data: map[string]string{"data-1": "value-1"}})
	require.NoError(t, err)
	f.createPod("mounttest", func(p *corev1.Pod) {
		p.Labels = map[string]string{"key1": "value1"}
		p.Spec.Volumes = []corev1.Volume{
			{Name: "configmap-volume", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
			{Name: "podinfo", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
				Items: []corev1.DownwardAPIVolumeFile{{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}},
		}
		p.Spec.Containers = []corev1.Container{
			{Name: "configmap", Image: "registry.k8s.io/e2e-test-images/agnhost:2.53", Args: []string{"mounttest",
				"--break_on_expected_content=false", "--retry_time=120", "--file_content_in_loop=/etc/configmap-volume/data-1"},
				VolumeMounts: []corev1.VolumeMount{{Name: "configmap-volume", MountPath: "/etc/configmap-volume"}}},
			{Name: "labels", Image: "registry.k8s.io/e2e-test-images/agnhost:2.53", Args: []string{"mounttest",
				"--break_on_expected_content=false", "--retry_time=120", "--file_content_in_loop=/etc/podinfo/labels"},
				VolumeMounts: []corev1.VolumeMount{{Name: "podinfo", MountPath: "/etc/podinfo"}}},
		}
	})
	f.settle()
	f.until(f.clk.Now().Add(10 * time.Second))
	logs := func(container string) string {
		var b bytes.Buffer
		require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "mounttest", container, LogOptions{}, &b))
		return b.String()
	}
	assert.Contains(t, logs("configmap"), `content of file "/etc/configmap-volume/data-1": value-1`)
	assert.NotContains(t, logs("configmap"), "value-2")
	assert.Contains(t, logs("labels"), `key1="value1"`)

	cm.Data["data-1"] = "value-2"
	_, err = f.env.Client.ConfigMaps().Update(f.ctx, cm)
	require.NoError(t, err)
	pod := f.pod("mounttest")
	pod.Labels["key3"] = "value3"
	_, err = f.env.Client.Pods().Update(f.ctx, pod)
	require.NoError(t, err)
	f.until(f.clk.Now().Add(10 * time.Second))

	out := logs("configmap")
	assert.Contains(t, out, `content of file "/etc/configmap-volume/data-1": value-2`)
	assert.Less(t, strings.Index(out, "value-1"), strings.Index(out, "value-2"), "the old content first")
	assert.Contains(t, logs("labels"), `key3="value3"`)
	require.Len(t, f.pod("mounttest").Status.ContainerStatuses, 2)
	assert.NotNil(t, f.pod("mounttest").Status.ContainerStatuses[0].State.Running, "it reads on")
}
