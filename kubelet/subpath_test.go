package kubelet

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// TestSubPathExprErrors runs the Variable Expansion specs' pods
// (kubernetes/test/e2e/common/node/expansion.go): a subPathExpr that
// expands to an absolute path or to ".." leaves the container waiting
// with CreateContainerConfigError (e2epod.WaitForPodContainerToFail(...,
// "CreateContainerConfigError", ...)), and one whose annotation appears
// later starts at the next sync ("should verify that a failing subpath
// expansion can be modified during the lifecycle of a container": Pending,
// then Running).
func TestSubPathExprErrors(t *testing.T) {
	cases := []struct {
		name, podName, message string
	}{
		{name: "absolute path", podName: "/tmp", message: "error SubPath `/tmp` must not be an absolute path"},
		{name: "backsteps", podName: "..", message: "unable to provision SubPath `..`: must not contain '..'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			f.createPod("var-expansion", func(p *corev1.Pod) {
				p.Spec.RestartPolicy = corev1.RestartPolicyNever
				p.Spec.Volumes = []corev1.Volume{{Name: "workdir1", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
				p.Spec.Containers = []corev1.Container{{Name: "dapi-container", Image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1",
					Env:          []corev1.EnvVar{{Name: "POD_NAME", Value: c.podName}},
					VolumeMounts: []corev1.VolumeMount{{Name: "workdir1", MountPath: "/logscontainer", SubPathExpr: "$(POD_NAME)"}}}}
			})
			f.settle()
			f.until(f.clk.Now().Add(30 * time.Second))
			pod := f.pod("var-expansion")
			assert.Equal(t, corev1.PodPending, pod.Status.Phase)
			require.Len(t, pod.Status.ContainerStatuses, 1)
			w := pod.Status.ContainerStatuses[0].State.Waiting
			require.NotNil(t, w)
			assert.Equal(t, "CreateContainerConfigError", w.Reason)
			assert.Equal(t, c.message, w.Message)
			assert.Contains(t, f.events("var-expansion"), "Failed: Error: "+c.message)
		})
	}
	t.Run("fixed by an annotation", func(t *testing.T) {
		f := newFixture(t, Config{})
		f.createPod("var-expansion", func(p *corev1.Pod) {
			p.Annotations = map[string]string{"notmysubpath": "mypath"}
			p.Spec.Volumes = []corev1.Volume{{Name: "workdir1", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			p.Spec.Containers = []corev1.Container{{Name: "dapi-container", Image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1",
				Command: []string{"sh", "-c", "tail -f /dev/null"},
				Env: []corev1.EnvVar{{Name: "POD_NAME", Value: "foo"}, {Name: "ANNOTATION", ValueFrom: &corev1.EnvVarSource{
					FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.annotations['mysubpath']"}}}},
				VolumeMounts: []corev1.VolumeMount{{Name: "workdir1", MountPath: "/subpath_mount", SubPathExpr: "$(ANNOTATION)/$(POD_NAME)"},
					{Name: "workdir1", MountPath: "/volume_mount"}}}}
		})
		f.settle()
		f.until(f.clk.Now().Add(30 * time.Second))
		assert.Equal(t, corev1.PodPending, f.pod("var-expansion").Status.Phase)
		pod := f.pod("var-expansion")
		pod.Annotations["mysubpath"] = "mypath"
		_, err := f.env.Client.Pods().Update(f.ctx, pod)
		require.NoError(t, err)
		f.until(f.clk.Now().Add(30 * time.Second))
		assert.Equal(t, corev1.PodRunning, f.pod("var-expansion").Status.Phase)
	})
}

// "should allow substituting values in a volume subpath"
// (test/e2e/common/node/expansion.go): the container sees, through its
// whole mount of the volume, the directory the kubelet made for its
// subPathExpr mount ("test -d /testcontainer/$POD_NAME; echo $?" prints
// "0").
func TestSubPathExprDirectoryInTheVolume(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("var-expansion", func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Spec.Volumes = []corev1.Volume{{Name: "workdir1", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		p.Spec.Containers = []corev1.Container{{Name: "dapi-container", Image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1",
			Command: []string{"sh", "-c", "test -d /testcontainer/var-expansion;echo $?"},
			Env:     []corev1.EnvVar{{Name: "POD_NAME", Value: "var-expansion"}},
			VolumeMounts: []corev1.VolumeMount{{Name: "workdir1", MountPath: "/logscontainer", SubPathExpr: "$(POD_NAME)"},
				{Name: "workdir1", MountPath: "/testcontainer"}}}}
	})
	f.settle()
	f.until(f.clk.Now().Add(10 * time.Second))
	var logs bytes.Buffer
	require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "var-expansion", "dapi-container", LogOptions{}, &logs))
	assert.Equal(t, "0\n", logs.String())
}
