package resourcequota

import (
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func pod(name string, phase corev1.PodPhase, requests, limits corev1.ResourceList) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}}}}
	p.Status.Phase = phase
	return p
}

func printed(rl corev1.ResourceList) map[string]string {
	out := map[string]string{}
	for k, v := range rl {
		out[string(k)] = v.String()
	}
	return out
}

func TestUsed(t *testing.T) {
	pods := []api.Object{
		pod("a", corev1.PodRunning, rl("cpu", "250m", "memory", "64Mi"), rl("cpu", "500m")),
		pod("b", corev1.PodPending, rl("cpu", "250m"), nil),
		pod("done", corev1.PodSucceeded, rl("cpu", "4"), nil), // finished: not charged
	}
	for _, tc := range []struct {
		name    string
		quota   *corev1.ResourceQuota
		objects map[schema.GroupResource][]api.Object
		want    map[string]string
	}{
		{"compute and counts",
			&corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: rl("pods", "10", "requests.cpu", "2", "limits.cpu", "2", "requests.memory", "1Gi", "count/pods", "10")}},
			map[schema.GroupResource][]api.Object{{Resource: "pods"}: pods},
			map[string]string{"pods": "2", "requests.cpu": "500m", "limits.cpu": "500m", "requests.memory": "64Mi", "count/pods": "2"}},
		{"nothing to count is zero",
			&corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: rl("configmaps", "3", "services.nodeports", "1")}},
			map[schema.GroupResource][]api.Object{},
			map[string]string{"configmaps": "0", "services.nodeports": "0"}},
		{"objects of other kinds, generic counts",
			&corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: rl("configmaps", "3", "count/deployments.apps", "2", "services", "5", "services.nodeports", "2")}},
			map[schema.GroupResource][]api.Object{
				{Resource: "configmaps"}:                 {&corev1.ConfigMap{}, &corev1.ConfigMap{}},
				{Group: "apps", Resource: "deployments"}: {&appsv1.Deployment{}},
				{Resource: "services"}: {&corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80}, {Port: 443}}}},
					&corev1.Service{}},
			},
			map[string]string{"configmaps": "2", "count/deployments.apps": "1", "services": "2", "services.nodeports": "2"}},
		{"a BestEffort quota counts only pods without resources",
			&corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: rl("pods", "5"), Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}}},
			map[schema.GroupResource][]api.Object{{Resource: "pods"}: append(pods, pod("be", corev1.PodRunning, nil, nil))},
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
	assert.ElementsMatch(t, []schema.GroupResource{{Resource: "pods"}, {Group: "batch", Resource: "jobs"},
		{Resource: "services"}, {Resource: "persistentvolumeclaims"}, {Resource: "configmaps"}}, got)
}
