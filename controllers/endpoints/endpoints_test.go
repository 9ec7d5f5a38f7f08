package endpoints

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func pod(name, ip string, ready bool, deleting bool) *corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name + "-uid")},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c",
			Ports: []corev1.ContainerPort{{Name: "https", ContainerPort: 8443}}}}},
		Status: corev1.PodStatus{PodIP: ip, Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}}}
	if deleting {
		now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		p.DeletionTimestamp = &now
	}
	return p
}

func TestSubsets(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("https")}}}}
	tests := []struct {
		name            string
		pods            []*corev1.Pod
		ready, notReady []string
	}{
		{"no pods", nil, nil, nil},
		{"ready and not ready, sorted by IP", []*corev1.Pod{pod("b", "10.244.0.9", true, false), pod("a", "10.244.0.3", true, false), pod("c", "10.244.0.4", false, false)},
			[]string{"10.244.0.3", "10.244.0.9"}, []string{"10.244.0.4"}},
		{"no IP yet or being deleted: left out", []*corev1.Pod{pod("a", "", true, false), pod("b", "10.244.0.5", true, true)}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Subsets(svc, tt.pods)
			if tt.ready == nil && tt.notReady == nil {
				assert.Empty(t, got)
				return
			}
			ips := func(as []corev1.EndpointAddress) []string {
				var out []string
				for _, a := range as {
					out = append(out, a.IP)
				}
				return out
			}
			assert.Len(t, got, 1)
			assert.Equal(t, tt.ready, ips(got[0].Addresses))
			assert.Equal(t, tt.notReady, ips(got[0].NotReadyAddresses))
			assert.Equal(t, []corev1.EndpointPort{{Name: "https", Port: 8443, Protocol: corev1.ProtocolTCP}}, got[0].Ports)
		})
	}
}

// A pod whose subdomain names the Service (a StatefulSet's, an Indexed
// Job's) is published under its hostname, so that the cluster DNS answers
// web-0.nginx; a pod of another subdomain, or of none, is not.
func TestSubsetsHostname(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "ns"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("https")}}}}
	named := func(name, ip, hostname, subdomain string) *corev1.Pod {
		p := pod(name, ip, true, false)
		p.Spec.Hostname, p.Spec.Subdomain = hostname, subdomain
		return p
	}
	got := Subsets(svc, []*corev1.Pod{
		named("web-0", "10.244.0.3", "web-0", "nginx"),
		named("other", "10.244.0.4", "other", "elsewhere"),
		named("plain", "10.244.0.5", "", "nginx"),
	})
	assert.Len(t, got, 1)
	var hostnames []string
	for _, a := range got[0].Addresses {
		hostnames = append(hostnames, a.IP+"="+a.Hostname)
	}
	assert.Equal(t, []string{"10.244.0.3=web-0", "10.244.0.4=", "10.244.0.5="}, hostnames)
}
