package containerenv

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// oneVolume gives every writable volume the same storage.
type oneVolume struct {
	fakeSources
	v shell.Volume
}

func (s oneVolume) Volume(context.Context, *corev1.Pod, *corev1.Volume) (shell.Volume, bool) {
	return s.v, true
}

// The Variable Expansion spec "should succeed in writing subpaths in
// container" (kubernetes/test/e2e/common/node/expansion.go) mounts one
// emptyDir whole at /volume_mount and at /subpath_mount with subPathExpr
// "$(ANNOTATION)/$(POD_NAME)"; "touch /volume_mount/mypath/foo/test.log"
// must work (the kubelet made the directory) and "test -f
// /subpath_mount/test.log" find the file.
func TestSubPathExpr(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "var-expansion", Namespace: "ns", Annotations: map[string]string{"mysubpath": "mypath"}},
		Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "workdir1", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			Containers: []corev1.Container{{Name: "dapi-container", Image: "busybox",
				Env: []corev1.EnvVar{{Name: "POD_NAME", Value: "foo"}, {Name: "ANNOTATION", ValueFrom: &corev1.EnvVarSource{
					FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.annotations['mysubpath']"}}}},
				VolumeMounts: []corev1.VolumeMount{{Name: "workdir1", MountPath: "/subpath_mount", SubPathExpr: "$(ANNOTATION)/$(POD_NAME)"},
					{Name: "workdir1", MountPath: "/volume_mount"}}}}}}
	src := oneVolume{fakeSources: sources(), v: shell.NewMemoryVolume()}
	run := func(script string) int {
		env := Build(context.Background(), pod, &pod.Spec.Containers[0], src)
		return shell.Command{Args: []string{"sh", "-c", script}, Env: env, Clock: clock.Real{}}.Run(context.Background())
	}
	require.Equal(t, 0, run("touch /volume_mount/mypath/foo/test.log"))
	assert.Equal(t, 0, run("test -f /subpath_mount/test.log"))
	assert.True(t, src.v.IsDir("/mypath/foo"), "the subpath's directory in the volume")
}
