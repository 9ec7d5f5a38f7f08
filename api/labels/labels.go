package labels

import (
	"maps"
	"slices"
	"strings"
)

// Labels is read access to a set of labels; a Selector matches against it
// so that callers need not copy their label maps.
type Labels interface {
	// Has reports whether the label is present (possibly with value "").
	Has(label string) bool
	// Get returns the value of the label, "" when absent.
	Get(label string) string
}

// Set is a map of label keys to values; the usual Labels implementation.
type Set map[string]string

// Has reports whether the label is present.
func (ls Set) Has(label string) bool {
	_, ok := ls[label]
	return ok
}

// Get returns the value of the label, "" when absent.
func (ls Set) Get(label string) string {
	return ls[label]
}

// String renders the set as "k1=v1,k2=v2" with keys sorted, so the result
// is deterministic and parses back into an equality selector.
func (ls Set) String() string {
	keys := slices.Sorted(maps.Keys(ls))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+ls[k])
	}
	return strings.Join(parts, ",")
}

// AsSelector is SelectorFromSet(ls).
func (ls Set) AsSelector() Selector {
	return SelectorFromSet(ls)
}
