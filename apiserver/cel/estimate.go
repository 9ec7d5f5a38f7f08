package cel

import (
	"math"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"

	"github.com/kubesim/kubesim/api"
)

// sizeEstimator tells cel-go's cost estimator how large the values a rule
// reads can be, from the declared types: maxLength (in bytes: four per
// character), maxItems and maxProperties when the schema has them,
// otherwise as much as fits in the largest request. Without it every string
// and list would be "unbounded" and every rule too costly.
type sizeEstimator struct {
	root *declType
}

// EstimateSize implements checker.CostEstimator. A node's path starts with
// the variable (self or oldSelf), then field names and @items, @values or
// @keys for elements.
func (e sizeEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	p := n.Path()
	if len(p) == 0 || (p[0] != "self" && p[0] != "oldSelf") {
		return nil
	}
	t := e.root
	for _, step := range p[1:] {
		switch {
		case t == nil:
			return nil
		case step == "@keys":
			return &checker.SizeEstimate{Min: 0, Max: MaxRequestSizeBytes}
		case step == "@items" || step == "@values":
			t = t.elem
		case t.isObject():
			f, ok := t.fields[step]
			if !ok {
				return nil
			}
			t = f.typ
		default:
			return nil
		}
	}
	if t == nil {
		return nil
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(t.maxElements)}
}

// EstimateCallCost implements checker.CostEstimator. Comparing two type
// values (type(self.x) == string, the guard of an int-or-string) costs one;
// cel-go would otherwise price it by the unknown size of its operands. For
// everything else cel-go's own estimates stand.
func (sizeEstimator) EstimateCallCost(fn, _ string, _ *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	if (fn == "_==_" || fn == "_!=_") && len(args) == 2 &&
		args[0].Type().Kind() == types.TypeKind && args[1].Type().Kind() == types.TypeKind {
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: 1}}
	}
	return nil
}

// childSchema is the schema of a field, or of the elements for @items and
// @values.
func childSchema(s *api.JSONSchemaProps, step string) *api.JSONSchemaProps {
	if s == nil {
		return nil
	}
	if step == "@items" || step == "@values" {
		if s.Items != nil && s.Items.Schema != nil {
			return s.Items.Schema
		}
		if s.AdditionalProperties != nil {
			return s.AdditionalProperties.Schema
		}
		return nil
	}
	if p, ok := s.Properties[step]; ok {
		return &p
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Schema
	}
	return nil
}

// cardinality multiplies, for a node inside lists and maps, how many times
// its rules can run in one object.
func cardinality(parent uint64, t *declType) uint64 {
	n := uint64(MaxRequestSizeBytes)
	if t != nil {
		n = uint64(t.maxElements)
	}
	if parent > 0 && n > math.MaxUint64/parent {
		return math.MaxUint64
	}
	return parent * n
}

// multiply guards against overflow.
func multiply(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}
