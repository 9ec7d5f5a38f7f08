package endpoints

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
)

func pod(name, ip string, ready bool, deleting bool) *api.Pod {
	st := api.ConditionFalse
	if ready {
		st = api.ConditionTrue
	}
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name + "-uid")},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "c",
			Ports: []api.ContainerPort{{Name: "https", ContainerPort: 8443}}}}},
		Status: api.PodStatus{PodIP: ip, Phase: api.PodRunning, Conditions: []api.PodCondition{{Type: api.PodReady, Status: st}}}}
	if deleting {
		now := api.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		p.DeletionTimestamp = &now
	}
	return p
}

func TestSubsets(t *testing.T) {
	svc := &api.Service{Spec: api.ServiceSpec{Ports: []api.ServicePort{{Name: "https", Port: 443, Protocol: api.ProtocolTCP, TargetPort: intstr.FromString("https")}}}}
	tests := []struct {
		name            string
		pods            []*api.Pod
		ready, notReady []string
	}{
		{"no pods", nil, nil, nil},
		{"ready and not ready, sorted by IP", []*api.Pod{pod("b", "10.244.0.9", true, false), pod("a", "10.244.0.3", true, false), pod("c", "10.244.0.4", false, false)},
			[]string{"10.244.0.3", "10.244.0.9"}, []string{"10.244.0.4"}},
		{"no IP yet or being deleted: left out", []*api.Pod{pod("a", "", true, false), pod("b", "10.244.0.5", true, true)}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Subsets(svc, tt.pods)
			if tt.ready == nil && tt.notReady == nil {
				assert.Empty(t, got)
				return
			}
			ips := func(as []api.EndpointAddress) []string {
				var out []string
				for _, a := range as {
					out = append(out, a.IP)
				}
				return out
			}
			assert.Len(t, got, 1)
			assert.Equal(t, tt.ready, ips(got[0].Addresses))
			assert.Equal(t, tt.notReady, ips(got[0].NotReadyAddresses))
			assert.Equal(t, []api.EndpointPort{{Name: "https", Port: 8443, Protocol: api.ProtocolTCP}}, got[0].Ports)
		})
	}
}
