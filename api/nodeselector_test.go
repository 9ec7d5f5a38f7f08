package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNodeSelectorMatches(t *testing.T) {
	node := &Node{ObjectMeta: ObjectMeta{Name: "node-1", Labels: map[string]string{"disk": "ssd", "cores": "8"}}}
	req := func(key string, op NodeSelectorOperator, values ...string) NodeSelectorRequirement {
		return NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	for _, tc := range []struct {
		name  string
		terms []NodeSelectorTerm
		want  bool
	}{
		{"no terms", nil, false},
		{"an empty term matches nothing", []NodeSelectorTerm{{}}, false},
		{"In", []NodeSelectorTerm{{MatchExpressions: []NodeSelectorRequirement{req("disk", NodeSelectorOpIn, "hdd", "ssd")}}}, true},
		{"NotIn", []NodeSelectorTerm{{MatchExpressions: []NodeSelectorRequirement{req("disk", NodeSelectorOpNotIn, "ssd")}}}, false},
		{"NotIn of a missing label", []NodeSelectorTerm{{MatchExpressions: []NodeSelectorRequirement{req("zone", NodeSelectorOpNotIn, "a")}}}, true},
		{"Exists", []NodeSelectorTerm{{MatchExpressions: []NodeSelectorRequirement{req("disk", NodeSelectorOpExists)}}}, true},
		{"DoesNotExist", []NodeSelectorTerm{{MatchExpressions: []NodeSelectorRequirement{req("disk", NodeSelectorOpDoesNotExist)}}}, false},
		{"Gt", []NodeSelectorTerm{{MatchExpressions: []NodeSelectorRequirement{req("cores", NodeSelectorOpGt, "4")}}}, true},
		{"Lt", []NodeSelectorTerm{{MatchExpressions: []NodeSelectorRequirement{req("cores", NodeSelectorOpLt, "4")}}}, false},
		{"Gt of a non-number", []NodeSelectorTerm{{MatchExpressions: []NodeSelectorRequirement{req("disk", NodeSelectorOpGt, "4")}}}, false},
		{"matchFields name", []NodeSelectorTerm{{MatchFields: []NodeSelectorRequirement{req(ObjectNameField, NodeSelectorOpIn, "node-1")}}}, true},
		{"matchFields other name", []NodeSelectorTerm{{MatchFields: []NodeSelectorRequirement{req(ObjectNameField, NodeSelectorOpIn, "node-2")}}}, false},
		{"matchFields other field", []NodeSelectorTerm{{MatchFields: []NodeSelectorRequirement{req("spec.podCIDR", NodeSelectorOpIn, "x")}}}, false},
		{"terms are ORed", []NodeSelectorTerm{
			{MatchExpressions: []NodeSelectorRequirement{req("disk", NodeSelectorOpIn, "hdd")}},
			{MatchFields: []NodeSelectorRequirement{req(ObjectNameField, NodeSelectorOpIn, "node-1")}}}, true},
		{"requirements are ANDed", []NodeSelectorTerm{{
			MatchExpressions: []NodeSelectorRequirement{req("disk", NodeSelectorOpIn, "ssd")},
			MatchFields:      []NodeSelectorRequirement{req(ObjectNameField, NodeSelectorOpIn, "node-2")}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NodeSelectorMatches(&NodeSelector{NodeSelectorTerms: tc.terms}, node))
		})
	}
	assert.True(t, NodeSelectorMatches(nil, node), "no selector, no constraint")
}
