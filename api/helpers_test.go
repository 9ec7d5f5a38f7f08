package api

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api/labels"
)

func TestLabelSelectorAsSelector(t *testing.T) {
	web := labels.Set{"app": "web", "tier": "front"}
	tests := []struct {
		name string
		sel  *LabelSelector
		want bool
		str  string
	}{
		{"nil selects nothing", nil, false, ""},
		{"empty selects everything", &LabelSelector{}, true, ""},
		{"matchLabels", &LabelSelector{MatchLabels: map[string]string{"app": "web"}}, true, "app=web"},
		{"matchExpressions", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "tier", Operator: LabelSelectorOpNotIn, Values: []string{"front"}}}}, false, "tier notin (front)"},
	}
	for _, tt := range tests {
		sel, err := LabelSelectorAsSelector(tt.sel)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, sel.Matches(web), tt.name)
		assert.Equal(t, tt.str, sel.String(), tt.name)
	}
	_, err := LabelSelectorAsSelector(&LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: "Near"}}})
	assert.Error(t, err)
}

func TestCRDAndAPIServiceConditions(t *testing.T) {
	c := &CustomResourceDefinition{}
	assert.False(t, IsCRDConditionTrue(c, Established))
	t1, t2 := Time{}, NewTime(Time{}.Add(1e9))
	SetCRDCondition(c, CustomResourceDefinitionCondition{Type: Established, Status: apiextensionsv1.ConditionTrue, LastTransitionTime: t1})
	SetCRDCondition(c, CustomResourceDefinitionCondition{Type: Established, Status: apiextensionsv1.ConditionTrue, Reason: "Again", LastTransitionTime: t2})
	require.Len(t, c.Status.Conditions, 1)
	assert.True(t, IsCRDConditionTrue(c, Established))
	assert.Equal(t, t1, FindCRDCondition(c, Established).LastTransitionTime, "same status: the transition time stays")

	s := &APIService{}
	assert.Nil(t, GetAPIServiceConditionByType(s, Available))
	SetAPIServiceCondition(s, APIServiceCondition{Type: Available, Status: apiregistrationv1.ConditionFalse})
	SetAPIServiceCondition(s, APIServiceCondition{Type: Available, Status: apiregistrationv1.ConditionTrue})
	require.Len(t, s.Status.Conditions, 1)
	assert.Equal(t, apiregistrationv1.ConditionTrue, GetAPIServiceConditionByType(s, Available).Status)
}
