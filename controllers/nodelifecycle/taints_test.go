package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) *metav1.Time { t := metav1.NewTime(t0.Add(d)); return &t }

func TestTaintKeyFor(t *testing.T) {
	assert.Equal(t, corev1.TaintNodeUnreachable, taintKeyFor(nil))
	assert.Equal(t, corev1.TaintNodeUnreachable, taintKeyFor(&corev1.NodeCondition{Status: corev1.ConditionUnknown}))
	assert.Equal(t, corev1.TaintNodeNotReady, taintKeyFor(&corev1.NodeCondition{Status: corev1.ConditionFalse}))
	assert.Equal(t, "", taintKeyFor(&corev1.NodeCondition{Status: corev1.ConditionTrue}))
}

func TestDesiredTaints(t *testing.T) {
	user := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	unreachNS := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule, TimeAdded: at(0)}
	unreachNE := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: at(0)}
	now := t0.Add(time.Minute)
	tests := []struct {
		name    string
		in      []corev1.Taint
		key     string
		want    []corev1.Taint
		changed bool
	}{
		{"healthy stays clean", []corev1.Taint{user}, "", []corev1.Taint{user}, false},
		{"unreachable adds both effects", []corev1.Taint{user}, corev1.TaintNodeUnreachable, []corev1.Taint{user,
			{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule, TimeAdded: at(time.Minute)},
			{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: at(time.Minute)}}, true},
		{"present ones keep their time", []corev1.Taint{unreachNS, unreachNE}, corev1.TaintNodeUnreachable, []corev1.Taint{unreachNS, unreachNE}, false},
		{"recovered removes them", []corev1.Taint{unreachNS, user, unreachNE}, "", []corev1.Taint{user}, true},
		{"not-ready replaces unreachable", []corev1.Taint{unreachNS, unreachNE}, corev1.TaintNodeNotReady, []corev1.Taint{
			{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule, TimeAdded: at(time.Minute)},
			{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: at(time.Minute)}}, true},
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
	unreachable := []corev1.Taint{
		{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule, TimeAdded: at(0)},
		{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: at(0)},
	}
	secs := func(n int64) *int64 { return &n }
	tests := []struct {
		name   string
		tols   []corev1.Toleration
		taints []corev1.Taint
		want   time.Duration
		evict  bool
	}{
		{"no toleration: at once", nil, unreachable, 0, true},
		{"the admission plugin's toleration", []corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(300)}}, unreachable, 5 * time.Minute, true},
		{"a toleration of another taint does not help", []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(300)}}, unreachable, 0, true},
		{"own tolerationSeconds", []corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(10)}}, unreachable, 10 * time.Second, true},
		{"the smallest of two", []corev1.Toleration{
			{Operator: corev1.TolerationOpExists, TolerationSeconds: secs(60)},
			{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, TolerationSeconds: secs(20)}}, unreachable, 20 * time.Second, true},
		{"negative seconds: at once", []corev1.Toleration{{Operator: corev1.TolerationOpExists, TolerationSeconds: secs(-5)}}, unreachable, 0, true},
		{"tolerated forever", []corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists}}, unreachable, 0, false},
		{"no NoExecute taint", nil, unreachable[:1], 0, false},
		{"other NoExecute taint untolerated: at once", nil, []corev1.Taint{{Key: "maintenance", Effect: corev1.TaintEffectNoExecute, TimeAdded: at(time.Minute)}}, time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: tt.tols}}
			got, ok := evictionTime(pod, tt.taints, func(t corev1.Taint) time.Time { return t.TimeAdded.Time })
			assert.Equal(t, tt.evict, ok)
			if ok {
				assert.Equal(t, t0.Add(tt.want), got)
			}
		})
	}
}

func TestProbeTime(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: *at(0)}}
	assert.Equal(t, t0, probeTime(node, nil), "a node that never posted counts from its creation")
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: *at(10 * time.Second)}}
	assert.Equal(t, t0.Add(10*time.Second), probeTime(node, nil))
	renew := metav1.NewMicroTime(t0.Add(25 * time.Second))
	assert.Equal(t, t0.Add(25*time.Second), probeTime(node, &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{RenewTime: &renew}}))
}
