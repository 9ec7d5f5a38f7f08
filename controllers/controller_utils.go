package controllers

// This file holds the helpers the controllers share, as Kubernetes keeps
// them in pkg/controller/controller_utils.go: the cause of a queued key,
// the hash that names a template's revision, when a ready pod becomes
// available, which services select a pod, and the port a service's
// targetPort names in a pod.

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/dump"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/client/cache"
)

// CauseOf is the cause of queueing a key because of a watch event on the
// object m of kind.
func CauseOf(event, kind string, m *metav1.ObjectMeta) Cause {
	return Cause{Event: event, Kind: kind, Namespace: m.Namespace, Name: m.Name, ResourceVersion: m.ResourceVersion}
}

// safeAlphabet has no vowels (no words) and no look-alikes (0/o, 1/l), as
// k8s.io/apimachinery/pkg/util/rand's.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// SafeEncodeString maps every byte of s into the safe alphabet.
func SafeEncodeString(s string) string {
	out := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = safeAlphabet[int(s[i])%len(safeAlphabet)]
	}
	return string(out)
}

// ComputeHash is the pod-template-hash of a template, as
// kube-controller-manager computes it (controller.ComputeHash): FNV-32a of
// the template printed by k8s.io/utils/dump.ForHash (and of the collision
// count, when set), its decimal digits safe-encoded. The same template
// gives the same hash on every run, and the same one a real cluster gives,
// so a Deployment's ReplicaSets have the names they would have there.
func ComputeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(*template))
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// NextAvailable is how long until the first pod that is ready but not yet
// available becomes available; ok is false when there is none. A second is
// added because availability needs the ready time strictly before now and
// object times have one-second precision.
func NextAvailable(pods []*corev1.Pod, minReadySeconds int32, now time.Time) (d time.Duration, ok bool) {
	if minReadySeconds == 0 {
		return 0, false
	}
	for _, p := range pods {
		c := api.GetPodReadyCondition(p)
		if c == nil || c.Status != corev1.ConditionTrue || api.IsPodAvailable(p, minReadySeconds, now) {
			continue
		}
		at := c.LastTransitionTime.Add(time.Duration(minReadySeconds)*time.Second + time.Second)
		if w := max(at.Sub(now), time.Second); !ok || w < d {
			d, ok = w, true
		}
	}
	return d, ok
}

// PodServiceMemberships returns the keys, sorted, of the services whose
// selector matches the pod now or matched it before (old, on an update):
// the services whose endpoints a pod event can change. The Endpoints and
// EndpointSlice controllers both use it, as Kubernetes' share
// endpointutil.GetPodServiceMemberships.
func PodServiceMemberships(services []*corev1.Service, p, old *corev1.Pod) []string {
	keys := map[string]bool{}
	for _, s := range services {
		if s.Namespace != p.Namespace || len(s.Spec.Selector) == 0 {
			continue
		}
		sel := labels.SelectorFromSet(s.Spec.Selector)
		if sel.Matches(labels.Set(p.Labels)) || (old != nil && sel.Matches(labels.Set(old.Labels))) {
			keys[cache.Key(&s.ObjectMeta)] = true
		}
	}
	return slices.Sorted(maps.Keys(keys))
}

// FindPort resolves a service port's targetPort in pod p: a number, the
// name of one of its container ports (false when no container has it), or
// the service's own port when unset. The Endpoints and EndpointSlice
// controllers both use it, as Kubernetes' share podutil.FindPort.
func FindPort(p *corev1.Pod, sp corev1.ServicePort) (int32, bool) {
	if sp.TargetPort.Type == intstr.String && sp.TargetPort.StrVal != "" {
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == sp.TargetPort.StrVal {
					return cp.ContainerPort, true
				}
			}
		}
		return 0, false
	}
	if sp.TargetPort.IntVal != 0 {
		return sp.TargetPort.IntVal, true
	}
	return sp.Port, true
}
