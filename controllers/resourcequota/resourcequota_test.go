package resourcequota

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubesim/kubesim/api"
)

func rl(pairs ...string) api.ResourceList {
	out := api.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[api.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func pod(name string, phase api.PodPhase, requests, limits api.ResourceList) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Resources: api.ResourceRequirements{Requests: requests, Limits: limits}}}}}
	p.Status.Phase = phase
	return p
}

func printed(rl api.ResourceList) map[string]string {
	out := map[string]string{}
	for k, v := range rl {
		out[string(k)] = v.String()
	}
	return out
}

func TestUsed(t *testing.T) {
	pods := []api.Object{
		pod("a", api.PodRunning, rl("cpu", "250m", "memory", "64Mi"), rl("cpu", "500m")),
		pod("b", api.PodPending, rl("cpu", "250m"), nil),
		pod("done", api.PodSucceeded, rl("cpu", "4"), nil), // finished: not charged
	}
	for _, tc := range []struct {
		name    string
		quota   *api.ResourceQuota
		objects map[api.GroupResource][]api.Object
		want    map[string]string
	}{
		{"compute and counts",
			&api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: rl("pods", "10", "requests.cpu", "2", "limits.cpu", "2", "requests.memory", "1Gi", "count/pods", "10")}},
			map[api.GroupResource][]api.Object{{Resource: "pods"}: pods},
			map[string]string{"pods": "2", "requests.cpu": "500m", "limits.cpu": "500m", "requests.memory": "64Mi", "count/pods": "2"}},
		{"nothing to count is zero",
			&api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: rl("configmaps", "3", "services.nodeports", "1")}},
			map[api.GroupResource][]api.Object{},
			map[string]string{"configmaps": "0", "services.nodeports": "0"}},
		{"objects of other kinds, generic counts",
			&api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: rl("configmaps", "3", "count/deployments.apps", "2", "services", "5", "services.nodeports", "2")}},
			map[api.GroupResource][]api.Object{
				{Resource: "configmaps"}:                 {&api.ConfigMap{}, &api.ConfigMap{}},
				{Group: "apps", Resource: "deployments"}: {&api.Deployment{}},
				{Resource: "services"}: {&api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80}, {Port: 443}}}},
					&api.Service{}},
			},
			map[string]string{"configmaps": "2", "count/deployments.apps": "1", "services": "2", "services.nodeports": "2"}},
		{"a BestEffort quota counts only pods without resources",
			&api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: rl("pods", "5"), Scopes: []api.ResourceQuotaScope{api.ResourceQuotaScopeBestEffort}}},
			map[api.GroupResource][]api.Object{{Resource: "pods"}: append(pods, pod("be", api.PodRunning, nil, nil))},
			map[string]string{"pods": "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, printed(Used(tc.quota, tc.objects)))
		})
	}
}

func TestResourcesOf(t *testing.T) {
	got := ResourcesOf(rl("requests.cpu", "1", "limits.memory", "1", "pods", "1", "count/jobs.batch", "1",
		"services.loadbalancers", "1", "persistentvolumeclaims", "1", "requests.storage", "1Gi", "configmaps", "1"))
	assert.ElementsMatch(t, []api.GroupResource{{Resource: "pods"}, {Group: "batch", Resource: "jobs"},
		{Resource: "services"}, {Resource: "persistentvolumeclaims"}, {Resource: "configmaps"}}, got)
}
