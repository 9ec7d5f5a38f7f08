package ui

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/scheduler"
)

// The decision the page shows carries each node's failing filter and
// reasons, and a PreFilter's rejection of every node.
func TestDecisionRecordShowsFiltersAndPreFilter(t *testing.T) {
	d := toDecision(scheduler.Decision{Pod: "default/web-c", Nodes: []scheduler.NodeResult{
		{Node: "node-1", Filter: "InterPodAffinity", Reasons: []string{scheduler.ErrReasonAntiAffinityRulesNotMatch}},
		{Node: "node-2", Filter: "PodTopologySpread", Reasons: []string{scheduler.ErrReasonConstraintsNotMatch}},
	}})
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	assert.JSONEq(t, `{"pod":"default/web-c","chosen":"","ties":0,"nodes":[
		{"node":"node-1","passed":false,"filter":"InterPodAffinity","reasons":["node(s) didn't match pod anti-affinity rules"],"score":0},
		{"node":"node-2","passed":false,"filter":"PodTopologySpread","reasons":["node(s) didn't match pod topology spread constraints"],"score":0}]}`, string(raw))

	d = toDecision(scheduler.Decision{Pod: "default/db", PreFilterMsg: `persistentvolumeclaim "data" not found`})
	assert.Equal(t, `persistentvolumeclaim "data" not found`, d.PreFilter)
	assert.Empty(t, d.Nodes)
}

// A node an extender refused names the extender; a node's score says the
// extenders' part; a cycle that failed with an extender's error says so.
func TestDecisionRecordShowsExtenders(t *testing.T) {
	d := toDecision(scheduler.Decision{Pod: "default/web", Chosen: "node-2", Nodes: []scheduler.NodeResult{
		{Node: "node-1", Filter: scheduler.ExtenderName, Extender: "http://127.0.0.1:8888", Reasons: []string{"node(s) had annotation example.com/drain"}},
		{Node: "node-2", Score: 187, ExtenderScore: 100},
	}})
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	assert.JSONEq(t, `{"pod":"default/web","chosen":"node-2","ties":0,"nodes":[
		{"node":"node-1","passed":false,"filter":"Extender","extender":"http://127.0.0.1:8888","reasons":["node(s) had annotation example.com/drain"],"score":0},
		{"node":"node-2","passed":true,"score":187,"extenderScore":100}]}`, string(raw))

	d = toDecision(scheduler.Decision{Pod: "default/web", Err: `Post "http://127.0.0.1:8888/filter": connection refused`})
	assert.Equal(t, `Post "http://127.0.0.1:8888/filter": connection refused`, d.Error)
}

// A pod a Permit plugin held: the decision says what it waited on and
// how the wait ended; a node's score is told plugin by plugin.
func TestDecisionRecordShowsPermitAndPluginScores(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Status: corev1.NodeStatus{
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("10")},
		Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}}}}}}
	var sd scheduler.Decision
	scheduler.DefaultFramework().Schedule(context.Background(), scheduler.NewPodInfo(pod), []*scheduler.NodeInfo{scheduler.NewNodeInfo(node)}, 0, rand.New(rand.NewPCG(1, 1)), &sd)
	sd.Permit = "waiting on Coscheduling (timeout 1m0s), then allowed"
	raw, err := json.Marshal(toDecision(sd))
	require.NoError(t, err)
	assert.JSONEq(t, `{"pod":"default/web-1","chosen":"node-1","ties":1,"nodes":[{"node":"node-1","passed":true,"score":50,
		"plugins":{"NodeResourcesFit":50,"PodTopologySpread":0,"InterPodAffinity":0}}],
		"permit":"waiting on Coscheduling (timeout 1m0s), then allowed"}`, string(raw))
}
