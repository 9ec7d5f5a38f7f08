package quota

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func pod(cs ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{Containers: cs}}
}

func TestPodUsage(t *testing.T) {
	p := pod(corev1.Container{Name: "a", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "100m", "memory", "64Mi"), Limits: rl("cpu", "200m")}},
		corev1.Container{Name: "b", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "300m")}})
	p.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "1")}}}
	got := map[string]string{}
	for k, v := range PodUsage(p) {
		got[string(k)] = v.String()
	}
	assert.Equal(t, map[string]string{"pods": "1", "count/pods": "1", "cpu": "1", "requests.cpu": "1",
		"memory": "64Mi", "requests.memory": "64Mi", "limits.cpu": "200m"}, got, "the init container's 1 cpu outweighs the 400m sum")
	p.Status.Phase = corev1.PodSucceeded
	assert.Empty(t, PodUsage(p), "a finished pod uses nothing")
}

// Ephemeral storage is counted as cpu and memory are; hugepages as
// themselves and as requests; an extended resource only as requests.NAME.
func TestPodUsageEphemeralStorageHugePagesAndExtendedResources(t *testing.T) {
	p := pod(corev1.Container{Name: "a", Resources: corev1.ResourceRequirements{
		Requests: rl("ephemeral-storage", "1Gi", "example.com/gpu", "2", "hugepages-2Mi", "4Mi"),
		Limits:   rl("ephemeral-storage", "2Gi", "example.com/gpu", "2", "hugepages-2Mi", "4Mi")}})
	got := map[string]string{}
	for k, v := range PodUsage(p) {
		got[string(k)] = v.String()
	}
	assert.Equal(t, map[string]string{"pods": "1", "count/pods": "1",
		"ephemeral-storage": "1Gi", "requests.ephemeral-storage": "1Gi", "limits.ephemeral-storage": "2Gi",
		"hugepages-2Mi": "4Mi", "requests.hugepages-2Mi": "4Mi", "requests.example.com/gpu": "2"}, got)
}

func TestPodConstraints(t *testing.T) {
	p := pod(corev1.Container{Name: "web", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "1")}}, corev1.Container{Name: "side"})
	assert.NoError(t, PodConstraints([]corev1.ResourceName{"pods", "count/pods"}, p))
	err := PodConstraints([]corev1.ResourceName{"requests.cpu", "limits.memory", "pods"}, p)
	assert.EqualError(t, err, "must specify limits.memory for: side,web; requests.cpu for: side")
}

func TestMatchesAndMessages(t *testing.T) {
	be := &corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}}}
	assert.True(t, Matches(be, pod(corev1.Container{Name: "c"})))
	assert.False(t, Matches(be, pod(corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Limits: rl("cpu", "1")}})))
	assert.False(t, Matches(be, &corev1.ConfigMap{}), "scopes cover pods only")
	assert.True(t, Matches(&corev1.ResourceQuota{}, &corev1.ConfigMap{}))
	pc := &corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{ScopeSelector: &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{
		{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: "In", Values: []string{"high"}}}}}}
	hp := pod(corev1.Container{Name: "c"})
	hp.Spec.PriorityClassName = "high"
	assert.True(t, Matches(pc, hp))
	assert.False(t, Matches(pc, pod(corev1.Container{Name: "c"})))

	ok, exceeded := LessThanOrEqual(rl("pods", "3", "cpu", "1"), rl("pods", "2", "cpu", "2"))
	assert.False(t, ok)
	assert.Equal(t, []corev1.ResourceName{"pods"}, exceeded)
	assert.Equal(t, "cpu=500m,pods=2", PrettyPrint(rl("pods", "2", "cpu", "500m")))
	assert.Equal(t, corev1.ResourceName("count/deployments.apps"), ObjectCountName(schema.GroupResource{Group: "apps", Resource: "deployments"}))
}
