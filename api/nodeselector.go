package api

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// NodeSelector is a list of terms, any of which may match (ORed).
type NodeSelector = corev1.NodeSelector

// NodeSelectorTerm is a list of requirements that must all match (ANDed).
type NodeSelectorTerm = corev1.NodeSelectorTerm

// NodeSelectorOperator relates a key to values.
type NodeSelectorOperator = corev1.NodeSelectorOperator

// The node selector operators.
const (
	NodeSelectorOpIn           NodeSelectorOperator = "In"
	NodeSelectorOpNotIn        NodeSelectorOperator = "NotIn"
	NodeSelectorOpExists       NodeSelectorOperator = "Exists"
	NodeSelectorOpDoesNotExist NodeSelectorOperator = "DoesNotExist"
	NodeSelectorOpGt           NodeSelectorOperator = "Gt"
	NodeSelectorOpLt           NodeSelectorOperator = "Lt"
)

// NodeSelectorRequirement is one requirement on a node label or field.
type NodeSelectorRequirement = corev1.NodeSelectorRequirement

// ObjectNameField is the one node field a matchFields requirement may
// name.
const ObjectNameField = "metadata.name"

// NodeSelectorMatches reports whether node satisfies ns, as
// component-helpers' nodeaffinity does: any term matches; a term matches
// when all its label expressions and field requirements do; a term with
// neither matches nothing. A nil selector matches every node.
func NodeSelectorMatches(ns *NodeSelector, node *Node) bool {
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

func nodeSelectorTermMatches(t *NodeSelectorTerm, node *Node) bool {
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
		if r.Key != ObjectNameField || (r.Operator != NodeSelectorOpIn && r.Operator != NodeSelectorOpNotIn) {
			return false
		}
		if !requirementMatches(r, node.Name, true) {
			return false
		}
	}
	return true
}

func requirementMatches(r NodeSelectorRequirement, v string, present bool) bool {
	switch r.Operator {
	case NodeSelectorOpIn:
		return present && slices.Contains(r.Values, v)
	case NodeSelectorOpNotIn:
		return !present || !slices.Contains(r.Values, v)
	case NodeSelectorOpExists:
		return present
	case NodeSelectorOpDoesNotExist:
		return !present
	case NodeSelectorOpGt, NodeSelectorOpLt:
		if !present || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == NodeSelectorOpGt {
			return have > want
		}
		return have < want
	}
	return false
}

// PodMatchesNodeAffinity is the scheduler's NodeAffinity filter as a
// predicate: the pod's nodeSelector labels and its required node affinity
// both hold for node.
func PodMatchesNodeAffinity(spec *PodSpec, node *Node) bool {
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
