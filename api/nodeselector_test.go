package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNodeSelectorMatches(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"disk": "ssd", "cores": "8"}}}
	req := func(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	for _, tc := range []struct {
		name  string
		terms []corev1.NodeSelectorTerm
		want  bool
	}{
		{"no terms", nil, false},
		{"an empty term matches nothing", []corev1.NodeSelectorTerm{{}}, false},
		{"In", []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("disk", corev1.NodeSelectorOpIn, "hdd", "ssd")}}}, true},
		{"NotIn", []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("disk", corev1.NodeSelectorOpNotIn, "ssd")}}}, false},
		{"NotIn of a missing label", []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("zone", corev1.NodeSelectorOpNotIn, "a")}}}, true},
		{"Exists", []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("disk", corev1.NodeSelectorOpExists)}}}, true},
		{"DoesNotExist", []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("disk", corev1.NodeSelectorOpDoesNotExist)}}}, false},
		{"Gt", []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("cores", corev1.NodeSelectorOpGt, "4")}}}, true},
		{"Lt", []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("cores", corev1.NodeSelectorOpLt, "4")}}}, false},
		{"Gt of a non-number", []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("disk", corev1.NodeSelectorOpGt, "4")}}}, false},
		{"matchFields name", []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{req(metav1.ObjectNameField, corev1.NodeSelectorOpIn, "node-1")}}}, true},
		{"matchFields other name", []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{req(metav1.ObjectNameField, corev1.NodeSelectorOpIn, "node-2")}}}, false},
		{"matchFields other field", []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{req("spec.podCIDR", corev1.NodeSelectorOpIn, "x")}}}, false},
		{"terms are ORed", []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{req("disk", corev1.NodeSelectorOpIn, "hdd")}},
			{MatchFields: []corev1.NodeSelectorRequirement{req(metav1.ObjectNameField, corev1.NodeSelectorOpIn, "node-1")}}}, true},
		{"requirements are ANDed", []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{req("disk", corev1.NodeSelectorOpIn, "ssd")},
			MatchFields:      []corev1.NodeSelectorRequirement{req(metav1.ObjectNameField, corev1.NodeSelectorOpIn, "node-2")}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NodeSelectorMatches(&corev1.NodeSelector{NodeSelectorTerms: tc.terms}, node))
		})
	}
	assert.True(t, NodeSelectorMatches(nil, node), "no selector, no constraint")
}
