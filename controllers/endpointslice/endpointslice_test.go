package endpointslice

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
)

func pod(name, ip string, ready bool) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name + "-uid")},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "c", Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}}
	p.Status.PodIP, p.Status.Phase = ip, api.PodRunning
	st := api.ConditionFalse
	if ready {
		st = api.ConditionTrue
	}
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: st}}
	return p
}

func TestDesired(t *testing.T) {
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: api.ServiceSpec{Ports: []api.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}}}
	terminating := pod("c", "10.0.0.3", true)
	terminating.DeletionTimestamp = &api.Time{}
	done := pod("d", "10.0.0.4", false)
	done.Status.Phase = api.PodSucceeded
	noPort := pod("e", "10.0.0.5", true)
	noPort.Spec.Containers[0].Ports = nil
	got := Desired(svc, []*api.Pod{pod("b", "10.0.0.2", false), pod("a", "10.0.0.1", true), terminating, done, noPort, pod("v6", "fd00::1", true), pod("pending", "", false)}, 100)
	require.Len(t, got, 2, "one IPv4 slice, one IPv6; no IP, finished, or unresolvable port: left out")
	v4 := got[0]
	assert.Equal(t, api.AddressTypeIPv4, v4.AddressType)
	require.Len(t, v4.Ports, 1)
	assert.Equal(t, int32(8080), *v4.Ports[0].Port)
	assert.Equal(t, "http", *v4.Ports[0].Name)
	assert.Equal(t, api.ProtocolTCP, *v4.Ports[0].Protocol)
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
	assert.Equal(t, api.AddressTypeIPv6, got[1].AddressType)
}

func TestDesiredSplitsAtMax(t *testing.T) {
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns"}, Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}}
	var pods []*api.Pod
	for i := range 250 {
		pods = append(pods, pod(fmt.Sprintf("p%03d", i), fmt.Sprintf("10.1.%d.%d", i/200, i%200), true))
	}
	got := Desired(svc, pods, MaxEndpointsPerSlice)
	require.Len(t, got, 3)
	assert.Equal(t, []int{100, 100, 50}, []int{len(got[0].Endpoints), len(got[1].Endpoints), len(got[2].Endpoints)})
	assert.Equal(t, int32(80), *got[0].Ports[0].Port, "no targetPort: the service port")
}
