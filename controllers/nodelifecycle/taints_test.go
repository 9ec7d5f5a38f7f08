package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/api"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) *api.Time { t := api.NewTime(t0.Add(d)); return &t }

func TestTaintKeyFor(t *testing.T) {
	assert.Equal(t, api.TaintNodeUnreachable, taintKeyFor(nil))
	assert.Equal(t, api.TaintNodeUnreachable, taintKeyFor(&api.NodeCondition{Status: api.ConditionUnknown}))
	assert.Equal(t, api.TaintNodeNotReady, taintKeyFor(&api.NodeCondition{Status: api.ConditionFalse}))
	assert.Equal(t, "", taintKeyFor(&api.NodeCondition{Status: api.ConditionTrue}))
}

func TestDesiredTaints(t *testing.T) {
	user := api.Taint{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule}
	unreachNS := api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule, TimeAdded: at(0)}
	unreachNE := api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute, TimeAdded: at(0)}
	now := t0.Add(time.Minute)
	tests := []struct {
		name    string
		in      []api.Taint
		key     string
		want    []api.Taint
		changed bool
	}{
		{"healthy stays clean", []api.Taint{user}, "", []api.Taint{user}, false},
		{"unreachable adds both effects", []api.Taint{user}, api.TaintNodeUnreachable, []api.Taint{user,
			{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule, TimeAdded: at(time.Minute)},
			{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute, TimeAdded: at(time.Minute)}}, true},
		{"present ones keep their time", []api.Taint{unreachNS, unreachNE}, api.TaintNodeUnreachable, []api.Taint{unreachNS, unreachNE}, false},
		{"recovered removes them", []api.Taint{unreachNS, user, unreachNE}, "", []api.Taint{user}, true},
		{"not-ready replaces unreachable", []api.Taint{unreachNS, unreachNE}, api.TaintNodeNotReady, []api.Taint{
			{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoSchedule, TimeAdded: at(time.Minute)},
			{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute, TimeAdded: at(time.Minute)}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := desiredTaints(tt.in, tt.key, now)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.changed, changed)
		})
	}
}

func TestEvictionTime(t *testing.T) {
	unreachable := []api.Taint{
		{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule, TimeAdded: at(0)},
		{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute, TimeAdded: at(0)},
	}
	secs := func(n int64) *int64 { return &n }
	tests := []struct {
		name   string
		tols   []api.Toleration
		taints []api.Taint
		want   time.Duration
		evict  bool
	}{
		{"no toleration: the default timeout", nil, unreachable, 5 * time.Minute, true},
		{"own tolerationSeconds", []api.Toleration{{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: secs(10)}}, unreachable, 10 * time.Second, true},
		{"the smallest of two", []api.Toleration{
			{Operator: api.TolerationOpExists, TolerationSeconds: secs(60)},
			{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, TolerationSeconds: secs(20)}}, unreachable, 20 * time.Second, true},
		{"negative seconds: at once", []api.Toleration{{Operator: api.TolerationOpExists, TolerationSeconds: secs(-5)}}, unreachable, 0, true},
		{"tolerated forever", []api.Toleration{{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists}}, unreachable, 0, false},
		{"no NoExecute taint", nil, unreachable[:1], 0, false},
		{"other NoExecute taint untolerated: at once", nil, []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoExecute, TimeAdded: at(time.Minute)}}, time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &api.Pod{Spec: api.PodSpec{Tolerations: tt.tols}}
			got, ok := evictionTime(pod, tt.taints, 5*time.Minute)
			assert.Equal(t, tt.evict, ok)
			if ok {
				assert.Equal(t, t0.Add(tt.want), got)
			}
		})
	}
}

func TestProbeTime(t *testing.T) {
	node := &api.Node{ObjectMeta: api.ObjectMeta{CreationTimestamp: *at(0)}}
	assert.Equal(t, t0, probeTime(node, nil), "a node that never posted counts from its creation")
	node.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue, LastHeartbeatTime: *at(10 * time.Second)}}
	assert.Equal(t, t0.Add(10*time.Second), probeTime(node, nil))
	renew := api.NewMicroTime(t0.Add(25 * time.Second))
	assert.Equal(t, t0.Add(25*time.Second), probeTime(node, &api.Lease{Spec: api.LeaseSpec{RenewTime: &renew}}))
}
