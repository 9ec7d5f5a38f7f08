package endpointslice

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func pod(name, ip string, ready bool) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name + "-uid")},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}}
	p.Status.PodIP, p.Status.Phase = ip, corev1.PodRunning
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
	return p
}

func TestDesired(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}}}
	terminating := pod("c", "10.0.0.3", true)
	terminating.DeletionTimestamp = &metav1.Time{}
	done := pod("d", "10.0.0.4", false)
	done.Status.Phase = corev1.PodSucceeded
	noPort := pod("e", "10.0.0.5", true)
	noPort.Spec.Containers[0].Ports = nil
	got := Desired(svc, []*corev1.Pod{pod("b", "10.0.0.2", false), pod("a", "10.0.0.1", true), terminating, done, noPort, pod("v6", "fd00::1", true), pod("pending", "", false)}, 100)
	require.Len(t, got, 2, "one IPv4 slice, one IPv6; no IP, finished, or unresolvable port: left out")
	v4 := got[0]
	assert.Equal(t, discoveryv1.AddressTypeIPv4, v4.AddressType)
	require.Len(t, v4.Ports, 1)
	assert.Equal(t, int32(8080), *v4.Ports[0].Port)
	assert.Equal(t, "http", *v4.Ports[0].Name)
	assert.Equal(t, corev1.ProtocolTCP, *v4.Ports[0].Protocol)
	var rows []string
	for _, ep := range v4.Endpoints {
		rows = append(rows, fmt.Sprintf("%s %s ready=%v serving=%v terminating=%v node=%s", ep.Addresses[0], ep.TargetRef.Name,
			*ep.Conditions.Ready, *ep.Conditions.Serving, *ep.Conditions.Terminating, *ep.NodeName))
	}
	assert.Equal(t, []string{
		"10.0.0.1 a ready=true serving=true terminating=false node=node-1",
		"10.0.0.2 b ready=false serving=false terminating=false node=node-1",
		"10.0.0.3 c ready=false serving=true terminating=true node=node-1",
	}, rows)
	assert.Equal(t, discoveryv1.AddressTypeIPv6, got[1].AddressType)
}

func TestDesiredSplitsAtMax(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	var pods []*corev1.Pod
	for i := range 250 {
		pods = append(pods, pod(fmt.Sprintf("p%03d", i), fmt.Sprintf("10.1.%d.%d", i/200, i%200), true))
	}
	got := Desired(svc, pods, MaxEndpointsPerSlice)
	require.Len(t, got, 3)
	assert.Equal(t, []int{100, 100, 50}, []int{len(got[0].Endpoints), len(got[1].Endpoints), len(got[2].Endpoints)})
	assert.Equal(t, int32(80), *got[0].Ports[0].Port, "no targetPort: the service port")
}

// A Service that publishes not-ready addresses (a StatefulSet's peers
// finding each other before they are ready) has every endpoint ready;
// serving still says whether the pod is.
func TestDesiredPublishesNotReadyAddresses(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: corev1.ServiceSpec{PublishNotReadyAddresses: true, Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}}}
	got := Desired(svc, []*corev1.Pod{pod("a", "10.0.0.1", false)}, 100)
	require.Len(t, got, 1)
	require.Len(t, got[0].Endpoints, 1)
	assert.True(t, *got[0].Endpoints[0].Conditions.Ready)
	assert.False(t, *got[0].Endpoints[0].Conditions.Serving)
}

// A Service whose selector matches no pod (or none with an IP) has one
// empty slice of its family, as the reconciler's placeholder.
func TestDesiredPlaceholderWhenNothingIsSelected(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "empty", Namespace: "ns"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	got := Desired(svc, []*corev1.Pod{pod("pending", "", false)}, 100)
	require.Len(t, got, 1)
	assert.Equal(t, discoveryv1.AddressTypeIPv4, got[0].AddressType)
	assert.NotNil(t, got[0].Endpoints)
	assert.Empty(t, got[0].Endpoints)
	assert.Empty(t, got[0].Ports)

	svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol}
	assert.Equal(t, discoveryv1.AddressTypeIPv6, Desired(svc, nil, 100)[0].AddressType)
}
