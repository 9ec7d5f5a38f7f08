package containerenv

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEtcHosts checks the /etc/hosts of the KubeletManagedEtcHosts and
// hostAliases conformance specs (kubernetes/test/e2e/common/node/
// kubelet_etc_hosts.go, kubelet.go): a pod on the pod network gets the
// kubelet's managed file ("# Kubernetes-managed hosts file."), a
// container that mounts the node's /etc/hosts (hostPath, FileOrCreate)
// and a pod on the node's network get the node's; hostAliases end both
// ("123.45.67.89\tfoo\tbar").
func TestEtcHosts(t *testing.T) {
	fileOrCreate := corev1.HostPathFileOrCreate
	pod := func(hostNetwork bool, mounts ...corev1.VolumeMount) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test-pod", Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "node-1",
			HostNetwork: hostNetwork, HostAliases: []corev1.HostAlias{{IP: "123.45.67.89", Hostnames: []string{"foo", "bar"}}},
			Volumes: []corev1.Volume{{Name: "host-etc-hosts", VolumeSource: corev1.VolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: "/etc/hosts", Type: &fileOrCreate}}}},
			Containers: []corev1.Container{{Name: "busybox-1", Image: "busybox", VolumeMounts: mounts}}}}
	}
	original := corev1.VolumeMount{Name: "host-etc-hosts", MountPath: "/etc/hosts-original"}
	cases := []struct {
		name    string
		pod     *corev1.Pod
		managed bool
	}{
		{name: "pod network", pod: pod(false, original), managed: true},
		{name: "the container mounts the node's file", pod: pod(false, corev1.VolumeMount{Name: "host-etc-hosts", MountPath: "/etc/hosts"})},
		{name: "node network", pod: pod(true, original)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := Build(context.Background(), c.pod, &c.pod.Spec.Containers[0], sources())
			hosts := string(env.Files["/etc/hosts"])
			assert.Equal(t, c.managed, strings.HasPrefix(hosts, "# Kubernetes-managed hosts file."), hosts)
			if c.name != "the container mounts the node's file" {
				assert.Contains(t, hosts, "\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\n")
				assert.True(t, strings.HasPrefix(string(env.Files["/etc/hosts-original"]), "127.0.0.1\tlocalhost\n"),
					"the node's own file, mounted")
			}
		})
	}
}
