package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The two most frequent pod writes of a live run, each through the whole
// in-process API path as its loop makes it (the loop's client and
// identity, the live cluster's admission chain, audit and watch cache):
// the kubelet's status write and the scheduler's binding. As with
// BenchmarkLeaseRenewal, B/op and allocs/op are the whole process's over
// the loop — the watchers' fan-out included — and move little with the
// load on the machine; ns/op does.
// `go test -run '^$' -bench 'PodStatusUpdate|PodBinding' -benchmem ./cluster/`

// benchPod is a pod as the benchmark's ReplicaSets make them, left to a
// scheduler that does not run (so that only the benchmark binds it) and,
// once bound, to a node without a kubelet (so that only the benchmark
// writes its status).
func benchPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "bench"}},
		Spec: corev1.PodSpec{
			SchedulerName: "bench-scheduler",
			Containers: []corev1.Container{{
				Name: "web", Image: "nginx:1.25",
				Ports: []corev1.ContainerPort{{ContainerPort: 80}},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse("100m"),
					corev1.ResourceMemory: resource.MustParse("64Mi"),
				}},
			}},
		},
	}
}

func startBenchCluster(b *testing.B) (*Cluster, context.Context) {
	c, err := New(Config{NodeCount: 1, UnsafeNoFsync: true})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(func() { cancel(); c.Close() })
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	return c, ctx
}

// BenchmarkPodStatusUpdate is one kubelet status write of a running pod
// (PUT pods/status), alternating between two statuses so that each write
// changes the stored object.
func BenchmarkPodStatusUpdate(b *testing.B) {
	c, ctx := startBenchCluster(b)
	admin, _ := c.client("bench", c.identity("bench", "bench"))
	pod := benchPod("status")
	pod.Spec.NodeName = "ghost"
	pod, err := admin.Pods().Create(ctx, pod)
	if err != nil {
		b.Fatal(err)
	}
	kubelet, _ := c.client("kubelet/ghost", c.identity("kubelet/ghost", "kubelet/ghost"))
	start := metav1.NewTime(time.Now().Truncate(time.Second))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		pod.Status = corev1.PodStatus{
			Phase:     corev1.PodRunning,
			QOSClass:  corev1.PodQOSBurstable,
			HostIP:    "10.0.0.1",
			PodIP:     fmt.Sprintf("10.244.0.%d", 2+i%2),
			StartTime: &start,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: start},
				{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: start},
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: start},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: start},
			},
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: "web", Image: "nginx:1.25", ImageID: "docker.io/library/nginx@sha256:0", Ready: true,
				ContainerID: "kubesim://0", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: start}},
			}},
		}
		if pod, err = kubelet.Pods().UpdateStatus(ctx, pod); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPodBinding is one scheduler binding (POST pods/binding) of a
// pending pod; the pods are created with the timer stopped.
func BenchmarkPodBinding(b *testing.B) {
	c, ctx := startBenchCluster(b)
	admin, _ := c.client("bench", c.identity("bench", "bench"))
	sched, _ := c.client("scheduler", c.identity("scheduler", "scheduler"))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		pod, err := admin.Pods().Create(ctx, benchPod(fmt.Sprintf("bind-%d", i)))
		if err != nil {
			b.Fatal(err)
		}
		binding := &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID},
			Target:     corev1.ObjectReference{Kind: "Node", Name: "ghost"},
		}
		b.StartTimer()
		if err := sched.Pods().CreateSubresource(ctx, pod.Namespace, pod.Name, "binding", binding); err != nil {
			b.Fatal(err)
		}
	}
}
