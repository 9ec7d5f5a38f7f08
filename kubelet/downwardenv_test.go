package kubelet

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// TestDownwardAPIAddressesInTheLog runs the pod of the Downward API specs
// "should provide pod name, namespace and IP address as env vars" and
// "should provide host IP as an env var" (kubernetes/test/e2e/common/node/
// downwardapi.go): `sh -c env` must print "POD_IP=<address>" and
// "HOST_IP=<address>", although the status that carries them is written
// with the container's start, after its command was first played.
func TestDownwardAPIAddressesInTheLog(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("downward-api", func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Spec.Containers = []corev1.Container{{Name: "dapi-container", Image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1",
			Command: []string{"sh", "-c", "env"},
			Env: []corev1.EnvVar{
				{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "status.podIP"}}},
				{Name: "HOST_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "status.hostIP"}}}}}}
	})
	f.settle()
	f.until(f.clk.Now().Add(10 * time.Second))
	pod := f.pod("downward-api")
	require.NotEmpty(t, pod.Status.PodIP)
	require.NotEmpty(t, pod.Status.HostIP)
	var logs bytes.Buffer
	require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "downward-api", "dapi-container", LogOptions{}, &logs))
	assert.Contains(t, logs.String(), "POD_IP="+pod.Status.PodIP+"\n")
	assert.Contains(t, logs.String(), "HOST_IP="+pod.Status.HostIP+"\n")
}
