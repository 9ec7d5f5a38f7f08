package cel

import (
	"fmt"
	"sort"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
)

// The limits Kubernetes applies (k8s.io/apiserver/pkg/apis/cel/config.go).
const (
	// PerCallLimit is the most one expression may cost when it runs.
	PerCallLimit = 1000000
	// RuntimeCELCostBudget is what all the rules of one custom resource may
	// cost together, per write.
	RuntimeCELCostBudget = 10000000
	// StaticEstimatedCostLimit is the most one rule's estimated cost, times
	// the number of times it can run in one object, may be.
	StaticEstimatedCostLimit = 10000000
	// StaticEstimatedCRDCostLimit is the most all the rules of one schema may
	// be estimated to cost together.
	StaticEstimatedCRDCostLimit = 100000000
	// MaxRequestSizeBytes bounds what an unbounded string, list or map can
	// hold: no request body is larger.
	MaxRequestSizeBytes = 3 * 1024 * 1024
	// MaxEvaluatedMessageExpressionSizeBytes bounds a messageExpression's
	// result.
	MaxEvaluatedMessageExpressionSizeBytes = 5 * 1024
)

// BaseEnv is the environment every Kubernetes CEL expression starts from:
// the standard library and macros (has, all, exists, exists_one, map,
// filter), optional types, the strings, sets, lists and two-variable
// comprehension extensions, heterogeneous numeric comparisons, and of the
// Kubernetes libraries the list function isSorted and quantities. Each
// caller extends it with its own variables.
func BaseEnv() (*cel.Env, error) {
	return cel.NewEnv(
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.Lists(),
		ext.TwoVarComprehensions(),
		cel.EagerlyValidateDeclarations(true),
		isSortedLibrary(),
		quantityLibrary(),
	)
}

// isSortedLibrary is `<list>.isSorted()` from Kubernetes' lists library:
// true when the elements are in ascending order.
func isSortedLibrary() cel.EnvOption {
	return cel.Function("isSorted",
		cel.MemberOverload("list_is_sorted", []*cel.Type{cel.ListType(cel.DynType)}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				l, ok := v.(traits.Lister)
				if !ok {
					return types.NewErr("isSorted: not a list")
				}
				n := int(l.Size().(types.Int))
				var prev ref.Val
				for i := 0; i < n; i++ {
					e := l.Get(types.Int(i))
					if prev != nil {
						c, ok := prev.(traits.Comparer)
						if !ok {
							return types.NewErr("isSorted: elements cannot be compared")
						}
						r := c.Compare(e)
						if types.IsError(r) {
							return r
						}
						if r.(types.Int) > 0 {
							return types.False
						}
					}
					prev = e
				}
				return types.True
			})))
}

// costFactor words how far over budget cost is, as Kubernetes does.
func costFactor(cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	switch {
	case f > 100:
		return "more than 100x"
	case f < 1.5:
		return fmt.Sprintf("%fx", f)
	default:
		return fmt.Sprintf("%.1fx", f)
	}
}

// CostErrorMessage is the message of an estimated cost over its limit.
func CostErrorMessage(costName string, cost, limit uint64) string {
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", costName, costFactor(cost, limit))
}

// sortedKeys lists a map's keys in order, so that walks and their errors
// come out the same every time.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
