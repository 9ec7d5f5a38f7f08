package cel

import (
	"math"

	"github.com/google/cel-go/checker"

	"github.com/kubesim/kubesim/api"
)

// sizeEstimator tells cel-go's cost estimator how large the values a rule
// reads can be, from the schema: maxLength, maxItems and maxProperties when
// declared, otherwise as much as fits in the largest request. Without it
// every string and list would be "unbounded" and every rule too costly.
type sizeEstimator struct {
	root *api.JSONSchemaProps
}

// EstimateSize implements checker.CostEstimator. A node's path starts with
// the variable (self or oldSelf), then field names and @items, @values or
// @keys for elements.
func (e sizeEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	p := n.Path()
	if len(p) == 0 || (p[0] != "self" && p[0] != "oldSelf") {
		return nil
	}
	s := e.root
	for _, step := range p[1:] {
		if step == "@keys" {
			return &checker.SizeEstimate{Min: 0, Max: MaxRequestSizeBytes}
		}
		if s = childSchema(s, step); s == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: maxSize(s)}
}

// EstimateCallCost implements checker.CostEstimator: cel-go's own
// estimates stand.
func (sizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// childSchema is the schema of a field, or of the elements for @items and
// @values (self is dynamically typed, so cel-go may say @values of a list).
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

// maxSize is the largest size() a value of schema s can have.
func maxSize(s *api.JSONSchemaProps) uint64 {
	switch {
	case s.Type == "string":
		if s.MaxLength != nil {
			return uint64(*s.MaxLength)
		}
		return MaxRequestSizeBytes - 2 // the quotes
	case s.Type == "array":
		if s.MaxItems != nil {
			return uint64(*s.MaxItems)
		}
		var item *api.JSONSchemaProps
		if s.Items != nil {
			item = s.Items.Schema
		}
		return (MaxRequestSizeBytes - 2) / (minSerializedSize(item) + 1)
	case s.Type == "object" && s.AdditionalProperties != nil:
		if s.MaxProperties != nil {
			return uint64(*s.MaxProperties)
		}
		// "":value, at the least
		return (MaxRequestSizeBytes - 2) / (minSerializedSize(s.AdditionalProperties.Schema) + 4)
	case s.Type == "object":
		if s.MaxProperties != nil {
			return uint64(*s.MaxProperties)
		}
		if len(s.Properties) > 0 && (s.XPreserveUnknownFields == nil || !*s.XPreserveUnknownFields) {
			return uint64(len(s.Properties))
		}
		return MaxRequestSizeBytes / 5
	}
	return MaxRequestSizeBytes
}

// minSerializedSize is the fewest JSON bytes a value of schema s takes.
func minSerializedSize(s *api.JSONSchemaProps) uint64 {
	if s == nil {
		return 1
	}
	switch s.Type {
	case "string", "object", "array":
		return 2 // "", {}, []
	case "boolean":
		return 4 // true
	}
	return 1
}

// cardinality multiplies, for a node inside lists and maps, how many times
// its rules can run in one object.
func cardinality(parent uint64, s *api.JSONSchemaProps) uint64 {
	n := maxSize(s)
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
