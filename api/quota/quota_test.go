package quota

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/api"
	"k8s.io/apimachinery/pkg/api/resource"
)

func rl(pairs ...string) api.ResourceList {
	out := api.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[api.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func pod(cs ...api.Container) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: api.PodSpec{Containers: cs}}
}

func TestPodUsage(t *testing.T) {
	p := pod(api.Container{Name: "a", Resources: api.ResourceRequirements{Requests: rl("cpu", "100m", "memory", "64Mi"), Limits: rl("cpu", "200m")}},
		api.Container{Name: "b", Resources: api.ResourceRequirements{Requests: rl("cpu", "300m")}})
	p.Spec.InitContainers = []api.Container{{Name: "init", Resources: api.ResourceRequirements{Requests: rl("cpu", "1")}}}
	got := map[string]string{}
	for k, v := range PodUsage(p) {
		got[string(k)] = v.String()
	}
	assert.Equal(t, map[string]string{"pods": "1", "count/pods": "1", "cpu": "1", "requests.cpu": "1",
		"memory": "64Mi", "requests.memory": "64Mi", "limits.cpu": "200m"}, got, "the init container's 1 cpu outweighs the 400m sum")
	p.Status.Phase = api.PodSucceeded
	assert.Empty(t, PodUsage(p), "a finished pod uses nothing")
}

func TestPodConstraints(t *testing.T) {
	p := pod(api.Container{Name: "web", Resources: api.ResourceRequirements{Requests: rl("cpu", "1")}}, api.Container{Name: "side"})
	assert.NoError(t, PodConstraints([]api.ResourceName{"pods", "count/pods"}, p))
	err := PodConstraints([]api.ResourceName{"requests.cpu", "limits.memory", "pods"}, p)
	assert.EqualError(t, err, "must specify limits.memory for: side,web; requests.cpu for: side")
}

func TestMatchesAndMessages(t *testing.T) {
	be := &api.ResourceQuota{Spec: api.ResourceQuotaSpec{Scopes: []api.ResourceQuotaScope{api.ResourceQuotaScopeBestEffort}}}
	assert.True(t, Matches(be, pod(api.Container{Name: "c"})))
	assert.False(t, Matches(be, pod(api.Container{Name: "c", Resources: api.ResourceRequirements{Limits: rl("cpu", "1")}})))
	assert.False(t, Matches(be, &api.ConfigMap{}), "scopes cover pods only")
	assert.True(t, Matches(&api.ResourceQuota{}, &api.ConfigMap{}))
	pc := &api.ResourceQuota{Spec: api.ResourceQuotaSpec{ScopeSelector: &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{
		{ScopeName: api.ResourceQuotaScopePriorityClass, Operator: "In", Values: []string{"high"}}}}}}
	hp := pod(api.Container{Name: "c"})
	hp.Spec.PriorityClassName = "high"
	assert.True(t, Matches(pc, hp))
	assert.False(t, Matches(pc, pod(api.Container{Name: "c"})))

	ok, exceeded := LessThanOrEqual(rl("pods", "3", "cpu", "1"), rl("pods", "2", "cpu", "2"))
	assert.False(t, ok)
	assert.Equal(t, []api.ResourceName{"pods"}, exceeded)
	assert.Equal(t, "cpu=500m,pods=2", PrettyPrint(rl("pods", "2", "cpu", "500m")))
	assert.Equal(t, api.ResourceName("count/deployments.apps"), ObjectCountName(api.GroupResource{Group: "apps", Resource: "deployments"}))
}
