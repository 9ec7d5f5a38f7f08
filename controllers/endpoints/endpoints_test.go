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

// A pod whose hostname and subdomain name the Service (a StatefulSet's)
// has its hostname on its address; one of another subdomain, or without
// a hostname, has none. A
// Service that publishes not-ready addresses lists every pod as ready.
func TestSubsetsHostnamesAndPublishNotReady(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "ns"},
		Spec: corev1.ServiceSpec{ClusterIP: "None", Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromString("https")}}}}
	web0 := pod("web-0", "10.244.0.3", true, false)
	web0.Spec.Hostname, web0.Spec.Subdomain = "web-0", "nginx"
	other := pod("other", "10.244.0.4", false, false)
	other.Spec.Hostname, other.Spec.Subdomain = "other", "elsewhere"
	plain := pod("plain", "10.244.0.5", true, false)
	plain.Spec.Subdomain = "nginx" // no hostname: nothing to publish
	got := Subsets(svc, []*corev1.Pod{web0, other, plain})
	assert.Len(t, got, 1)
	assert.Equal(t, "web-0", got[0].Addresses[0].Hostname)
	assert.Equal(t, "", got[0].Addresses[1].Hostname)
	assert.Equal(t, "", got[0].NotReadyAddresses[0].Hostname)

	svc.Spec.PublishNotReadyAddresses = true
	got = Subsets(svc, []*corev1.Pod{web0, other, plain})
	assert.Len(t, got, 1)
	assert.Len(t, got[0].Addresses, 3)
	assert.Empty(t, got[0].NotReadyAddresses)
}
