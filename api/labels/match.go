package labels

import (
	"fmt"
	"maps"
	"slices"
)

// The operators of a metav1.LabelSelectorRequirement (matchExpressions).
// They are capitalised, unlike the selector-string operators.
const (
	LabelSelectorOpIn           = "In"
	LabelSelectorOpNotIn        = "NotIn"
	LabelSelectorOpExists       = "Exists"
	LabelSelectorOpDoesNotExist = "DoesNotExist"
)

// MatchExpression is one entry of a LabelSelector's matchExpressions. It is
// a local copy of metav1.LabelSelectorRequirement so that this package does
// not depend on package api.
type MatchExpression struct {
	Key      string
	Operator string
	Values   []string
}

// SelectorFromMatch converts the two halves of a metav1.LabelSelector into
// a Selector, as metav1.LabelSelectorAsSelector does. A selector with
// neither matchLabels nor matchExpressions selects everything; a nil
// LabelSelector (which selects nothing) must be handled by the caller.
func SelectorFromMatch(matchLabels map[string]string, exprs []MatchExpression) (Selector, error) {
	if len(matchLabels)+len(exprs) == 0 {
		return Everything(), nil
	}
	reqs := make([]Requirement, 0, len(matchLabels)+len(exprs))
	keys := slices.Sorted(maps.Keys(matchLabels)) // report the first bad key deterministically
	for _, k := range keys {
		r, err := NewRequirement(k, Equals, []string{matchLabels[k]})
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, *r)
	}
	for _, e := range exprs {
		var op Operator
		switch e.Operator {
		case LabelSelectorOpIn:
			op = In
		case LabelSelectorOpNotIn:
			op = NotIn
		case LabelSelectorOpExists:
			op = Exists
		case LabelSelectorOpDoesNotExist:
			op = DoesNotExist
		default:
			return nil, fmt.Errorf("%q is not a valid label selector operator", e.Operator)
		}
		r, err := NewRequirement(e.Key, op, slices.Clone(e.Values))
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, *r)
	}
	return NewSelector().Add(reqs...), nil
}
