package kubelet

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubernetes.io's "Init Containers" example: the init container's script
// polls the cluster's DNS for a Service, and the pod starts once the
// Service exists. The play of the script stops at each nslookup the
// clock has not reached, and the kubelet plays it again when it has;
// the lines printed before stay printed.
func TestInitContainerWaitsForAService(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("myapp", func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{{Name: "init-myservice", Image: "busybox:1.28", Command: []string{"sh", "-c",
			"until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for myservice; sleep 2; done"}}}
		p.Spec.Containers = []corev1.Container{{Name: "myapp", Image: "busybox:1.28", Command: []string{"sh", "-c", "echo The app is running! && sleep 3600"}}}
		p.Spec.Volumes = []corev1.Volume{{Name: "sa", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			Sources: []corev1.VolumeProjection{{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}}}}}}}
		p.Spec.InitContainers[0].VolumeMounts = []corev1.VolumeMount{{Name: "sa", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}}
	})
	f.settle()
	start := f.clk.Now()
	f.until(start.Add(20 * time.Second))
	pod := f.pod("myapp")
	require.Len(t, pod.Status.InitContainerStatuses, 1)
	require.NotNil(t, pod.Status.InitContainerStatuses[0].State.Running, "the init container polls")
	var logs bytes.Buffer
	require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "myapp", "init-myservice", LogOptions{}, &logs))
	assert.Contains(t, logs.String(), "** server can't find myservice.default.svc.cluster.local: NXDOMAIN\n\nwaiting for myservice\n")
	assert.GreaterOrEqual(t, bytes.Count(logs.Bytes(), []byte("waiting for myservice")), 8, logs.String())

	_, err := f.env.Client.Services().Create(f.ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "myservice", Namespace: "default"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.42", Ports: []corev1.ServicePort{{Port: 80}}}})
	require.NoError(t, err)
	f.until(f.clk.Now().Add(10 * time.Second))
	pod = f.pod("myapp")
	require.NotNil(t, pod.Status.InitContainerStatuses[0].State.Terminated, "the init container found the Service")
	assert.Equal(t, int32(0), pod.Status.InitContainerStatuses[0].State.Terminated.ExitCode)
	require.NotNil(t, pod.Status.ContainerStatuses[0].State.Running)

	logs.Reset()
	require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "myapp", "init-myservice", LogOptions{}, &logs))
	before := bytes.Count(logs.Bytes(), []byte("waiting for myservice"))
	assert.GreaterOrEqual(t, before, 10, "what was printed stays printed")
	assert.Contains(t, logs.String(), "Name:\tmyservice.default.svc.cluster.local\nAddress: 10.96.0.42\n")
	logs.Reset()
	require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "myapp", "myapp", LogOptions{}, &logs))
	assert.Equal(t, "The app is running!\n", logs.String())
}

// A loop that outlives the first play (behaviourCommands) is played
// further when its log is read past that point.
func TestLongLoopIsPlayedFurther(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("ticker", func(p *corev1.Pod) {
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sh", "-c",
			"i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"}}}
	})
	f.settle()
	for f.pod("ticker").Status.Phase != corev1.PodRunning {
		f.next()
	}
	started := f.pod("ticker").Status.ContainerStatuses[0].State.Running.StartedAt.Time
	f.until(started.Add(2 * time.Hour))
	one := int64(1)
	var logs bytes.Buffer
	require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "ticker", "c", LogOptions{TailLines: &one}, &logs))
	assert.Equal(t, "tick 7200\n", logs.String())
	assert.NotNil(t, f.pod("ticker").Status.ContainerStatuses[0].State.Running, "it runs on")
}
