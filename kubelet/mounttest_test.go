package kubelet

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet/shell"
)

// volumeSources hold the storage conformance specs' ConfigMap and
// Secret, a node's allocatable, and give emptyDirs their storage.
type volumeSources struct{ offlineSources }

func (volumeSources) ConfigMap(_ context.Context, _, name string) (*corev1.ConfigMap, error) {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name},
		Data: map[string]string{"data-1": "value-1", "data-2": "value-2", "data-3": "value-3"}}, nil
}

func (volumeSources) Secret(_ context.Context, _, name string) (*corev1.Secret, error) {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name},
		Data: map[string][]byte{"data-1": []byte("value-1"), "data-2": []byte("value-2")}}, nil
}

func (volumeSources) NodeAllocatable() corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")}
}

func (volumeSources) Volume(context.Context, *corev1.Pod, *corev1.Volume) (shell.Volume, bool) {
	return shell.NewMemoryVolume(), true
}

// TestAgnhostMounttest plays the storage conformance specs' pods
// (kubernetes/test/e2e/common/storage) and checks the lines their
// e2epodoutput.TestContainerOutput expects in the container's log, and
// that the pod succeeds (exit 0).
func TestAgnhostMounttest(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	i64 := func(v int64) *int64 { return &v }
	emptyDir := func(medium corev1.StorageMedium) corev1.VolumeSource {
		return corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: medium}}
	}
	configMap := func(mode *int32, items ...corev1.KeyToPath) corev1.VolumeSource {
		return corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"},
			DefaultMode: mode, Items: items}}
	}
	downward := func(mode *int32, file corev1.DownwardAPIVolumeFile) corev1.VolumeSource {
		return corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{DefaultMode: mode, Items: []corev1.DownwardAPIVolumeFile{file}}}
	}
	cases := []struct {
		name      string
		source    corev1.VolumeSource
		mountPath string
		args      []string
		// runAsUser and fsGroup: the pod's securityContext.
		runAsUser, fsGroup *int64
		resources          corev1.ResourceRequirements
		code               int32
		lines              []string
	}{
		// empty_dir.go doTest0644, "should support (root,0644,tmpfs)":
		// "perms of file \"/test-volume/test-file\": -rw-r--r--",
		// "content of file \"/test-volume/test-file\": mount-tester new file",
		// "mount type of \"/test-volume\": tmpfs".
		{name: "emptyDir (root,0644,tmpfs)", source: emptyDir(corev1.StorageMediumMemory), mountPath: "/test-volume",
			args: []string{"mounttest", "--fs_type=/test-volume", "--new_file_0644=/test-volume/test-file", "--file_perm=/test-volume/test-file"},
			lines: []string{`mount type of "/test-volume": tmpfs`, `content of file "/test-volume/test-file": mount-tester new file`, "",
				`perms of file "/test-volume/test-file": -rw-r--r--`}},
		// empty_dir.go doTest0777 as a non-root user on the node's disk
		// (ext4): "perms of file \"/test-volume/test-file\": -rwxrwxrwx".
		{name: "emptyDir (non-root,0777,default)", source: emptyDir(""), mountPath: "/test-volume", runAsUser: i64(1001),
			args: []string{"mounttest", "--fs_type=/test-volume", "--new_file_0777=/test-volume/test-file", "--file_perm=/test-volume/test-file",
				"--file_owner=/test-volume/test-file"},
			lines: []string{`mount type of "/test-volume": 61267`, `content of file "/test-volume/test-file": mount-tester new file`, "",
				`perms of file "/test-volume/test-file": -rwxrwxrwx`, `owner UID of "/test-volume/test-file": 1001`, `owner GID of "/test-volume/test-file": 0`}},
		// empty_dir.go doTestVolumeMode, "volume on tmpfs should have the
		// correct mode": "perms of file \"/test-volume\": -rwxrwxrwx".
		{name: "emptyDir mode on tmpfs", source: emptyDir(corev1.StorageMediumMemory), mountPath: "/test-volume",
			args:  []string{"mounttest", "--fs_type=/test-volume", "--file_perm=/test-volume"},
			lines: []string{`mount type of "/test-volume": tmpfs`, `perms of file "/test-volume": -rwxrwxrwx`}},
		// empty_dir.go doTestSetgidFSGroup: a new file in a volume
		// given an fsGroup is that group's: "perms of file
		// \"/test-volume/test-file\": -rw-rw----", "owner GID of
		// \"/test-volume/test-file\": 123".
		{name: "emptyDir setgid fsGroup", source: emptyDir(""), mountPath: "/test-volume", fsGroup: i64(123),
			args: []string{"mounttest", "--new_file_0660=/test-volume/test-file", "--file_perm=/test-volume/test-file",
				"--file_owner=/test-volume/test-file", "--file_mode=/test-volume"},
			lines: []string{`content of file "/test-volume/test-file": mount-tester new file`, "", `mode of file "/test-volume": dgrwxrwxrwx`,
				`perms of file "/test-volume/test-file": -rw-rw----`, `owner UID of "/test-volume/test-file": 0`, `owner GID of "/test-volume/test-file": 123`}},
		// configmap_volume.go doConfigMapE2EWithoutMappings with
		// defaultMode 0400: "content of file
		// \"/etc/configmap-volume/data-1\": value-1" and
		// getFileModeRegex's "mode of file \"%s\": %v" of 0400.
		{name: "ConfigMap defaultMode", source: configMap(i32(0o400)), mountPath: "/etc/configmap-volume",
			args:  []string{"mounttest", "--file_content=/etc/configmap-volume/data-1", "--file_mode=/etc/configmap-volume/data-1"},
			lines: []string{`mode of file "/etc/configmap-volume/data-1": -r--------`, `content of file "/etc/configmap-volume/data-1": value-1`}},
		// configmap_volume.go doConfigMapE2EWithMappings, item mode 0400
		// at path/to/data-2: "mode of file
		// \"/etc/configmap-volume/path/to/data-2\": -r--------".
		{name: "ConfigMap item mode", source: configMap(nil, corev1.KeyToPath{Key: "data-2", Path: "path/to/data-2", Mode: i32(0o400)}),
			mountPath: "/etc/configmap-volume",
			args:      []string{"mounttest", "--file_content=/etc/configmap-volume/path/to/data-2", "--file_mode=/etc/configmap-volume/path/to/data-2"},
			lines: []string{`mode of file "/etc/configmap-volume/path/to/data-2": -r--------`,
				`content of file "/etc/configmap-volume/path/to/data-2": value-2`}},
		// secrets_volume.go "as non-root with defaultMode and fsGroup
		// set": defaultMode 0440, fsGroup 1001 ("setting fsGroup sets
		// mode to at least 440"): "mode of file
		// \"/etc/secret-volume/data-1\": -r--r-----". A ConfigMap's
		// default 0644 keeps its bits under fsGroup.
		{name: "Secret defaultMode and fsGroup", mountPath: "/etc/secret-volume", runAsUser: i64(1000), fsGroup: i64(1001),
			source: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s", DefaultMode: i32(0o440)}},
			args:   []string{"mounttest", "--file_content=/etc/secret-volume/data-1", "--file_mode=/etc/secret-volume/data-1", "--fs_type=/etc/secret-volume"},
			lines: []string{`mount type of "/etc/secret-volume": tmpfs`, `mode of file "/etc/secret-volume/data-1": -r--r-----`,
				`content of file "/etc/secret-volume/data-1": value-1`}},
		// downwardapi_volume.go "should provide container's cpu limit":
		// "2\n" (1250m rounded up).
		{name: "downward API cpu limit", mountPath: "/etc/podinfo",
			source: downward(nil, corev1.DownwardAPIVolumeFile{Path: "cpu_limit",
				ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c", Resource: "limits.cpu"}}),
			resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1250m")}},
			args:      []string{"mounttest", "--file_content=/etc/podinfo/cpu_limit"},
			lines:     []string{`content of file "/etc/podinfo/cpu_limit": 2`}},
		// "should provide container's memory request": "33554432\n".
		{name: "downward API memory request", mountPath: "/etc/podinfo",
			source: downward(nil, corev1.DownwardAPIVolumeFile{Path: "memory_request",
				ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c", Resource: "requests.memory"}}),
			resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")}},
			args:      []string{"mounttest", "--file_content=/etc/podinfo/memory_request"},
			lines:     []string{`content of file "/etc/podinfo/memory_request": 33554432`}},
		// "should provide node allocatable (memory) as default memory
		// limit if the limit is not set": "[1-9]".
		{name: "downward API default memory limit", mountPath: "/etc/podinfo",
			source: downward(nil, corev1.DownwardAPIVolumeFile{Path: "memory_limit",
				ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c", Resource: "limits.memory"}}),
			args:  []string{"mounttest", "--file_content=/etc/podinfo/memory_limit"},
			lines: []string{`content of file "/etc/podinfo/memory_limit": 8589934592`}},
		// "should set mode on item file": mode 0400 on the item:
		// "mode of file \"/etc/podinfo/podname\": -r--------".
		{name: "downward API item mode", mountPath: "/etc/podinfo",
			source: downward(nil, corev1.DownwardAPIVolumeFile{Path: "podname", Mode: i32(0o400),
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}),
			args:  []string{"mounttest", "--file_mode=/etc/podinfo/podname"},
			lines: []string{`mode of file "/etc/podinfo/podname": -r--------`}},
		// A file that is not there: each step says so and mounttest
		// exits 1 (the pod fails).
		{name: "missing file", source: emptyDir(""), mountPath: "/test-volume", code: 1,
			args: []string{"mounttest", "--file_content=/test-volume/nope", "--file_mode=/test-volume/nope"},
			lines: []string{`error from Stat("/test-volume/nope"): stat /test-volume/nope: no such file or directory`,
				`error reading file content for "/test-volume/nope": open /test-volume/nope: no such file or directory`}},
		// The updates specs read in a loop until the retry time is up.
		{name: "content in a loop", source: configMap(nil), mountPath: "/etc/configmap-volume",
			args: []string{"mounttest", "--break_on_expected_content=false", "--retry_time=5", "--file_content_in_loop=/etc/configmap-volume/data-1"},
			lines: []string{`content of file "/etc/configmap-volume/data-1": value-1`, `content of file "/etc/configmap-volume/data-1": value-1`,
				`content of file "/etc/configmap-volume/data-1": value-1`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod-1", Namespace: "ns"}, Spec: corev1.PodSpec{
				SecurityContext: &corev1.PodSecurityContext{RunAsUser: c.runAsUser, FSGroup: c.fsGroup},
				Volumes:         []corev1.Volume{{Name: "test-volume", VolumeSource: c.source}},
				Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/e2e-test-images/agnhost:2.53", Args: c.args,
					Resources: c.resources, VolumeMounts: []corev1.VolumeMount{{Name: "test-volume", MountPath: c.mountPath}}}},
			}}
			ct := &pod.Spec.Containers[0]
			tl := programFor(pod, ct).runWith(pod, ct, volumeSources{})
			assert.True(t, tl.exits, "exits")
			assert.Equal(t, c.code, tl.exitCode, "code")
			var texts []string
			for _, l := range tl.lines {
				texts = append(texts, l.text)
			}
			assert.Equal(t, c.lines, texts)
		})
	}
}
