package kubelet

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// UsageAnnotation sets the simulated resource usage of a pod, what the
// kubelet's Summary API (and so the metrics server and kubectl top)
// reports for it: "cpu=250m,memory=64Mi", shared evenly by its running
// containers. kubectl annotate --overwrite changes it at run time, for a
// lab that makes an autoscaler react.
const UsageAnnotation = "kubesim.io/usage"

// Usage is a simulated CPU and memory use.
type Usage struct {
	// MilliCPU is in thousandths of a core; MemoryBytes is the working
	// set.
	MilliCPU, MemoryBytes int64
}

// ParseUsage reads the UsageAnnotation value; either key may be left out
// (it is then 0).
func ParseUsage(s string) (Usage, error) {
	var u Usage
	for _, item := range strings.Split(s, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || value == "" {
			return Usage{}, fmt.Errorf("invalid usage item %q: want cpu=QUANTITY or memory=QUANTITY", item)
		}
		q, err := resource.ParseQuantity(value)
		if err != nil || q.Sign() < 0 {
			return Usage{}, fmt.Errorf("invalid %s %q: want a quantity such as 250m or 64Mi", key, value)
		}
		switch key {
		case "cpu":
			u.MilliCPU = q.MilliValue()
		case "memory":
			u.MemoryBytes = q.Value()
		default:
			return Usage{}, fmt.Errorf("unknown usage key %q: want cpu or memory", key)
		}
	}
	return u, nil
}

// Default usage of a container without the annotation: a tenth of its
// CPU request and half its memory request, or a little when it requests
// nothing — an idle process.
const (
	idleMilliCPU    = 1
	idleMemoryBytes = 4 << 20
	// systemMilliCPU and systemMemoryBytes are the node's own use (the
	// kubelet, the runtime, the OS), added to its pods'.
	systemMilliCPU    = 50
	systemMemoryBytes = 256 << 20
)

// containerUsage is the simulated use of each running container of pod,
// by name: the annotation shared evenly, or the default from requests.
func containerUsage(pod *corev1.Pod, running []string) map[string]Usage {
	out := make(map[string]Usage, len(running))
	if len(running) == 0 {
		return out
	}
	if v, ok := pod.Annotations[UsageAnnotation]; ok {
		if u, err := ParseUsage(v); err == nil {
			n := int64(len(running))
			for _, name := range running {
				out[name] = Usage{MilliCPU: u.MilliCPU / n, MemoryBytes: u.MemoryBytes / n}
			}
			return out
		}
	}
	for _, name := range running {
		u := Usage{MilliCPU: idleMilliCPU, MemoryBytes: idleMemoryBytes}
		if c := specContainer(pod, name); c != nil {
			if q, ok := c.Resources.Requests[corev1.ResourceCPU]; ok && q.MilliValue()/10 > u.MilliCPU {
				u.MilliCPU = q.MilliValue() / 10
			}
			if q, ok := c.Resources.Requests[corev1.ResourceMemory]; ok && q.Value()/2 > u.MemoryBytes {
				u.MemoryBytes = q.Value() / 2
			}
		}
		out[name] = u
	}
	return out
}

// summary builds the Summary API answer from the pods this kubelet runs
// (under stateMu): every pod with a running container, and the node.
func (k *Kubelet) summary(now time.Time, get func(ns, name string) (*corev1.Pod, bool)) Summary {
	t := metav1.NewTime(now)
	s := Summary{Pods: []PodStats{}}
	nodeCPU, nodeMem := int64(systemMilliCPU), int64(systemMemoryBytes)
	for _, key := range sortedKeys(k.runtimes) {
		rt := k.runtimes[key]
		if rt.stage != stageStarted {
			continue
		}
		ns, name, _ := strings.Cut(key, "/")
		pod, ok := get(ns, name)
		if !ok || pod.UID != rt.uid {
			continue
		}
		var running []string
		for _, c := range rt.containers {
			if c.state == containerRunning {
				running = append(running, c.name)
			}
		}
		if len(running) == 0 {
			continue
		}
		usage := containerUsage(pod, running)
		ps := PodStats{PodRef: PodReference{Name: pod.Name, Namespace: pod.Namespace, UID: string(pod.UID)},
			StartTime: metav1.NewTime(rt.startTime), Containers: []ContainerStats{}}
		var podCPU, podMem, podCum int64
		for _, c := range rt.containers {
			if c.state != containerRunning {
				continue
			}
			u := usage[c.name]
			cum := u.MilliCPU * int64(now.Sub(c.startedAt)/time.Millisecond) // milli-cores × ms = core-ns
			ps.Containers = append(ps.Containers, ContainerStats{Name: c.name, StartTime: metav1.NewTime(c.startedAt),
				CPU: cpuStats(t, u.MilliCPU, cum), Memory: memoryStats(t, u.MemoryBytes, 0)})
			podCPU, podMem, podCum = podCPU+u.MilliCPU, podMem+u.MemoryBytes, podCum+cum
		}
		ps.CPU, ps.Memory = cpuStats(t, podCPU, podCum), memoryStats(t, podMem, 0)
		s.Pods = append(s.Pods, ps)
		nodeCPU, nodeMem = nodeCPU+podCPU, nodeMem+podMem
	}
	var capMem int64
	if q, ok := k.cfg.Capacity[corev1.ResourceMemory]; ok {
		capMem = q.Value()
	}
	s.Node = NodeStats{NodeName: k.cfg.NodeName, StartTime: metav1.NewTime(k.started),
		CPU: cpuStats(t, nodeCPU, nodeCPU*int64(now.Sub(k.started)/time.Millisecond)), Memory: memoryStats(t, nodeMem, capMem)}
	return s
}

func cpuStats(t metav1.Time, milli, cumCoreNanos int64) *CPUStats {
	rate, cum := uint64(milli)*1e6, uint64(max(cumCoreNanos, 0))
	return &CPUStats{Time: t, UsageNanoCores: &rate, UsageCoreNanoSeconds: &cum}
}

func memoryStats(t metav1.Time, bytes, capacity int64) *MemoryStats {
	b := uint64(bytes)
	m := &MemoryStats{Time: t, UsageBytes: &b, WorkingSetBytes: &b, RSSBytes: &b}
	if capacity > bytes {
		avail := uint64(capacity - bytes)
		m.AvailableBytes = &avail
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
