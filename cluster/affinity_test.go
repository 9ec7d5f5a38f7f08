package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// A Deployment whose pods keep away from each other by hostname (required
// podAntiAffinity) puts one pod on each of the two nodes; the third stays
// Pending, and says why as kube-scheduler says it.
func TestDeploymentWithRequiredAntiAffinityOnePodPerNode(t *testing.T) {
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 2})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	cl := c.Client("test")
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)

	replicas := int32(3)
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "web", Image: "nginx:1.25"}},
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
							TopologyKey:   corev1.LabelHostname,
							LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
						}},
					}},
				},
			},
		},
	}
	_, err = cl.Deployments().Create(bg, d)
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)

	pods, err := cl.Pods().List(bg, "default", client.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	require.Len(t, pods.Items, 3)
	perNode := map[string]int{}
	var pending *corev1.Pod
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" {
			pending = p
			continue
		}
		perNode[p.Spec.NodeName]++
	}
	assert.Equal(t, map[string]int{"node-1": 1, "node-2": 1}, perNode)
	require.NotNil(t, pending, "one pod has nowhere to go")
	assert.Equal(t, corev1.PodPending, pending.Status.Phase)
	const msg = "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."
	var scheduled *corev1.PodCondition
	for i := range pending.Status.Conditions {
		if pending.Status.Conditions[i].Type == corev1.PodScheduled {
			scheduled = &pending.Status.Conditions[i]
		}
	}
	require.NotNil(t, scheduled)
	assert.Equal(t, corev1.ConditionFalse, scheduled.Status)
	assert.Equal(t, corev1.PodReasonUnschedulable, scheduled.Reason)
	assert.Equal(t, msg, scheduled.Message)
	evs, err := cl.Events().List(bg, "default", client.ListOptions{FieldSelector: "involvedObject.name=" + pending.Name})
	require.NoError(t, err)
	var failed []string
	for _, ev := range evs.Items {
		if ev.Reason == "FailedScheduling" {
			failed = append(failed, ev.Type+" "+ev.Message)
		}
	}
	assert.Equal(t, []string{"Warning " + msg}, failed)

	// The decision the web page shows names the filter and its reason on
	// every node.
	dec, ok := c.LastSchedulingDecision()
	require.True(t, ok)
	assert.Equal(t, "default/"+pending.Name, dec.Pod)
	require.Len(t, dec.Nodes, 2)
	for _, n := range dec.Nodes {
		assert.Equal(t, "InterPodAffinity", n.Filter)
		assert.Equal(t, []string{"node(s) didn't match pod anti-affinity rules"}, n.Reasons)
	}
}
