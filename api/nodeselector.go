package api

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeSelectorMatches reports whether node satisfies ns, as
// component-helpers' nodeaffinity does: any term matches; a term matches
// when all its label expressions and field requirements do; a term with
// neither matches nothing. A nil selector matches every node.
func NodeSelectorMatches(ns *corev1.NodeSelector, node *corev1.Node) bool {
	if ns == nil {
		return true
	}
	for i := range ns.NodeSelectorTerms {
		if nodeSelectorTermMatches(&ns.NodeSelectorTerms[i], node) {
			return true
		}
	}
	return false
}

func nodeSelectorTermMatches(t *corev1.NodeSelectorTerm, node *corev1.Node) bool {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return false
	}
	for _, r := range t.MatchExpressions {
		v, ok := node.Labels[r.Key]
		if !requirementMatches(r, v, ok) {
			return false
		}
	}
	for _, r := range t.MatchFields {
		// Only metadata.name is a node field; In and NotIn its operators.
		if r.Key != metav1.ObjectNameField || (r.Operator != corev1.NodeSelectorOpIn && r.Operator != corev1.NodeSelectorOpNotIn) {
			return false
		}
		if !requirementMatches(r, node.Name, true) {
			return false
		}
	}
	return true
}

func requirementMatches(r corev1.NodeSelectorRequirement, v string, present bool) bool {
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return present && slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !present || !slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpExists:
		return present
	case corev1.NodeSelectorOpDoesNotExist:
		return !present
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !present || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == corev1.NodeSelectorOpGt {
			return have > want
		}
		return have < want
	}
	return false
}

// PodMatchesNodeAffinity is the scheduler's NodeAffinity filter as a
// predicate: the pod's nodeSelector labels and its required node affinity
// both hold for node.
func PodMatchesNodeAffinity(spec *corev1.PodSpec, node *corev1.Node) bool {
	for k, v := range spec.NodeSelector {
		if got, ok := node.Labels[k]; !ok || got != v {
			return false
		}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		return NodeSelectorMatches(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, node)
	}
	return true
}
