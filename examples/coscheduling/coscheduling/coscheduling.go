package coscheduling

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/scheduler"
)

const (
	// Name is the plugin's name in a KubeSchedulerConfiguration.
	Name = "Coscheduling"
	// PodGroupLabel names a pod's group (scheduler-plugins' label).
	PodGroupLabel = "scheduling.x-k8s.io/pod-group"
	// MinAvailableAnnotation is how many members of the group must be
	// placed at once (scheduler-plugins keeps it in a PodGroup's
	// minMember).
	MinAvailableAnnotation = "scheduling.x-k8s.io/min-available"
	// DefaultPermitWaitingTime is how long a member waits for its group
	// (scheduler-plugins' default permitWaitingTimeSeconds).
	DefaultPermitWaitingTime = 60 * time.Second
)

// Args are the plugin's pluginConfig args.
type Args struct {
	// PermitWaitingTimeSeconds is how long a member waits in Permit for
	// the rest of its group.
	PermitWaitingTimeSeconds *int64 `json:"permitWaitingTimeSeconds,omitempty"`
}

// Coscheduling is the plugin: Permit holds a group's members until enough
// are placed; Unreserve rejects the rest of a group one member of which
// gave its node back.
type Coscheduling struct {
	handle  scheduler.Handle
	timeout time.Duration
}

var (
	_ scheduler.PermitPlugin  = &Coscheduling{}
	_ scheduler.ReservePlugin = &Coscheduling{}
)

// New is the plugin's factory (scheduler/config's PluginFactory): args
// is nil or the JSON of Args (a *runtime.Unknown).
func New(args runtime.Object, h scheduler.Handle) (scheduler.Plugin, error) {
	p := &Coscheduling{handle: h, timeout: DefaultPermitWaitingTime}
	if u, ok := args.(*runtime.Unknown); ok && len(u.Raw) > 0 {
		var a Args
		if err := json.Unmarshal(u.Raw, &a); err != nil {
			return nil, fmt.Errorf("decoding %s args: %w", Name, err)
		}
		if s := a.PermitWaitingTimeSeconds; s != nil {
			if *s <= 0 {
				return nil, fmt.Errorf("%s args: permitWaitingTimeSeconds must be positive, got %d", Name, *s)
			}
			p.timeout = time.Duration(*s) * time.Second
		}
	} else if args != nil {
		return nil, fmt.Errorf("want args to be of type runtime.Unknown, got %T", args)
	}
	return p, nil
}

// Name is the plugin's name.
func (p *Coscheduling) Name() string { return Name }

// group is the pod's group and its minimum; "" for a pod in none.
func group(pod *corev1.Pod) (name string, minMembers int, err error) {
	name = pod.Labels[PodGroupLabel]
	if name == "" {
		return "", 0, nil
	}
	v, ok := pod.Annotations[MinAvailableAnnotation]
	if !ok {
		return name, 1, nil
	}
	minMembers, err = strconv.Atoi(v)
	if err != nil || minMembers < 1 {
		return name, 0, fmt.Errorf("pod group %q: annotation %s=%q is not a positive number", name, MinAvailableAnnotation, v)
	}
	return name, minMembers, nil
}

// member reports whether other is in the group name of namespace ns.
func member(other *corev1.Pod, ns, name string) bool {
	return other.Namespace == ns && other.Labels[PodGroupLabel] == name
}

// Permit lets the pod go once its group has min members on nodes, and
// lets every waiting member go with it; else the pod waits.
func (p *Coscheduling) Permit(_ context.Context, _ *scheduler.CycleState, pod *scheduler.PodInfo, _ string) (*scheduler.Status, time.Duration) {
	name, minMembers, err := group(pod.Pod)
	switch {
	case err != nil:
		return scheduler.NewStatus(scheduler.UnschedulableAndUnresolvable, err.Error()), 0
	case name == "":
		return nil, 0
	}
	// The pods on nodes, bound or assumed (the waiting members, and this
	// one, are assumed on theirs).
	placed := 0
	for _, ni := range p.handle.SnapshotSharedLister().List() {
		for _, other := range ni.Pods {
			if member(other.Pod, pod.Pod.Namespace, name) {
				placed++
			}
		}
	}
	if placed < minMembers {
		return scheduler.NewStatus(scheduler.Wait, fmt.Sprintf("pod group %q: %d of %d members placed", name, placed, minMembers)), p.timeout
	}
	p.handle.IterateOverWaitingPods(func(w scheduler.WaitingPod) {
		if member(w.GetPod(), pod.Pod.Namespace, name) {
			w.Allow(Name)
		}
	})
	return nil, 0
}

// Reserve keeps nothing: the group is counted from the scheduler's cache.
func (p *Coscheduling) Reserve(context.Context, *scheduler.CycleState, *scheduler.PodInfo, string) *scheduler.Status {
	return nil
}

// Unreserve rejects the other waiting members of the pod's group: one
// member gave its node back (rejected, timed out, or deleted), so the
// group gives all its nodes back and is tried again together.
func (p *Coscheduling) Unreserve(_ context.Context, _ *scheduler.CycleState, pod *scheduler.PodInfo, _ string) {
	name, _, _ := group(pod.Pod)
	if name == "" {
		return
	}
	p.handle.IterateOverWaitingPods(func(w scheduler.WaitingPod) {
		if w.GetPod().UID != pod.Pod.UID && member(w.GetPod(), pod.Pod.Namespace, name) {
			w.Reject(Name, fmt.Sprintf("pod group %q: member %s gave its node back", name, pod.Pod.Name))
		}
	})
}
