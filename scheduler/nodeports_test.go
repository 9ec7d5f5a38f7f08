package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

func withHostPort(ip string, protocol corev1.Protocol, port int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports,
			corev1.ContainerPort{ContainerPort: 8080, HostIP: ip, Protocol: protocol, HostPort: port})
	}
}

// A host port is taken per address and protocol; an empty or 0.0.0.0
// address takes it on every address.
func TestNodePorts(t *testing.T) {
	for _, tc := range []struct {
		name       string
		used, want func(*corev1.Pod)
		conflict   bool
	}{
		{"same port, any address", withHostPort("", "", 54321), withHostPort("", corev1.ProtocolTCP, 54321), true},
		{"another protocol", withHostPort("", "", 54321), withHostPort("", corev1.ProtocolUDP, 54321), false},
		{"another address", withHostPort("127.0.0.1", "", 54321), withHostPort("10.0.0.9", "", 54321), false},
		{"one address inside every address", withHostPort("0.0.0.0", "", 54321), withHostPort("127.0.0.1", "", 54321), true},
		{"every address over one", withHostPort("127.0.0.1", "", 54321), withHostPort("", "", 54321), true},
		{"another port", withHostPort("", "", 54321), withHostPort("", "", 54322), false},
		{"no host port asked", withHostPort("", "", 54321), func(*corev1.Pod) {}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ni := NewNodeInfo(testNode("n"))
			ni.AddPod(NewPodInfo(testPod("used", "", "", tc.used)))
			var want []string
			if tc.conflict {
				want = []string{ErrReasonNodePorts}
			}
			assert.Equal(t, want, NodePorts(NewPodInfo(testPod("new", "", "", tc.want)), ni))
		})
	}
}
