package kinds

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubectl get flowschemas and prioritylevelconfigurations print what a
// 1.32 cluster prints for its bootstrap objects.
func TestFlowControlTables(t *testing.T) {
	def := DefaultFlowControl()
	fs := builtin(t, "flowschemas").Table
	pl := builtin(t, "prioritylevelconfigurations").Table
	var cols []string
	for _, c := range fs.Columns {
		cols = append(cols, c.Name)
	}
	assert.Equal(t, []string{"Name", "PriorityLevel", "MatchingPrecedence", "DistinguisherMethod", "Age", "MissingPL"}, cols)
	cols = nil
	for _, c := range pl.Columns {
		cols = append(cols, c.Name)
	}
	assert.Equal(t, []string{"Name", "Type", "NominalConcurrencyShares", "Queues", "HandSize", "QueueLengthLimit", "Age"}, cols)

	created := ago(37 * time.Hour)
	exempt := def.MandatoryFlowSchemas[0]
	exempt.CreationTimestamp = created
	assert.Equal(t, []any{"exempt", "exempt", int64(1), "<none>", "37h", "?"}, fs.Cells(exempt, tableNow), "no condition yet")
	global := def.SuggestedFlowSchemas[len(def.SuggestedFlowSchemas)-1]
	global.CreationTimestamp = created
	global.Status.Conditions = []flowcontrolv1.FlowSchemaCondition{{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionFalse}}
	assert.Equal(t, []any{"global-default", "global-default", int64(9900), "ByUser", "37h", "False"}, fs.Cells(global, tableNow))

	for _, tc := range []struct {
		level *flowcontrolv1.PriorityLevelConfiguration
		want  []any
	}{
		{def.MandatoryPriorityLevels[0], []any{"catch-all", "Limited", int64(5), "<none>", "<none>", "<none>", "37h"}},
		{def.MandatoryPriorityLevels[1], []any{"exempt", "Exempt", "<none>", "<none>", "<none>", "<none>", "37h"}},
		{def.SuggestedPriorityLevels[5], []any{"global-default", "Limited", int64(20), int64(128), int64(6), int64(50), "37h"}},
		{def.SuggestedPriorityLevels[2], []any{"leader-election", "Limited", int64(10), int64(16), int64(4), int64(50), "37h"}},
	} {
		tc.level.CreationTimestamp = created
		assert.Equal(t, tc.want, pl.Cells(tc.level, tableNow), tc.level.Name)
	}
}

// Every bootstrap object is valid and unchanged by defaulting, as the
// real bootstrap objects are.
func TestFlowControlBootstrapIsValidAndDefaulted(t *testing.T) {
	def := DefaultFlowControl()
	for _, pl := range append(def.MandatoryPriorityLevels, def.SuggestedPriorityLevels...) {
		c := pl.DeepCopy()
		priorityLevelStrategy{}.Default(c)
		assert.Equal(t, pl, c, pl.Name)
		assert.Empty(t, priorityLevelStrategy{}.Validate(pl), pl.Name)
	}
	for _, fs := range append(def.MandatoryFlowSchemas, def.SuggestedFlowSchemas...) {
		c := fs.DeepCopy()
		flowSchemaStrategy{}.Default(c)
		assert.Equal(t, fs, c, fs.Name)
		assert.Empty(t, flowSchemaStrategy{}.Validate(fs), fs.Name)
	}
}

func TestFlowControlDefaultsAndValidation(t *testing.T) {
	pl := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "batch"}, Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
		Type: flowcontrolv1.PriorityLevelEnablementLimited, Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
			LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue, Queuing: &flowcontrolv1.QueuingConfiguration{}}}}}
	priorityLevelStrategy{}.Default(pl)
	assert.Equal(t, int32(30), *pl.Spec.Limited.NominalConcurrencyShares)
	assert.Equal(t, int32(0), *pl.Spec.Limited.LendablePercent)
	assert.Equal(t, flowcontrolv1.QueuingConfiguration{Queues: 64, HandSize: 8, QueueLengthLimit: 50}, *pl.Spec.Limited.LimitResponse.Queuing)
	assert.Empty(t, priorityLevelStrategy{}.Validate(pl))

	bad := pl.DeepCopy()
	bad.Spec.Limited.LimitResponse.Queuing.HandSize = 100
	bad.Spec.Limited.LendablePercent = ptr(int32(101))
	var fields []string
	for _, e := range (priorityLevelStrategy{}).Validate(bad) {
		fields = append(fields, e.Field)
	}
	assert.Equal(t, []string{"spec.limited.lendablePercent", "spec.limited.limitResponse.queuing.handSize"}, fields)
	notExempt := bad.DeepCopy()
	notExempt.Name = "fake"
	notExempt.Spec = flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt}
	errs := priorityLevelStrategy{}.Validate(notExempt)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "only 'exempt' priority level can be exempt")

	fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "x"}}
	flowSchemaStrategy{}.Default(fs)
	assert.Equal(t, int32(1000), fs.Spec.MatchingPrecedence)
	fs.Spec.MatchingPrecedence = 20000
	fs.Spec.Rules = []flowcontrolv1.PolicyRulesWithSubjects{{Subjects: []flowcontrolv1.Subject{{Kind: "Robot"}}}}
	fields = nil
	for _, e := range (flowSchemaStrategy{}).Validate(fs) {
		fields = append(fields, e.Field)
	}
	assert.Equal(t, []string{"spec.priorityLevelConfiguration.name", "spec.matchingPrecedence", "spec.rules[0].subjects[0].kind", "spec.rules[0]"}, fields)
}
