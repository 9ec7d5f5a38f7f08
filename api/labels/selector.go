package labels

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/api/field"
)

// Operator relates a label key to its values in a Requirement; the values
// are the strings of k8s.io/apimachinery/pkg/selection.
type Operator string

// The operators of a label selector. Equals and DoubleEquals mean the same;
// GreaterThan and LessThan compare the label value as an integer.
const (
	DoesNotExist Operator = "!"
	Equals       Operator = "="
	DoubleEquals Operator = "=="
	In           Operator = "in"
	NotEquals    Operator = "!="
	NotIn        Operator = "notin"
	Exists       Operator = "exists"
	GreaterThan  Operator = "gt"
	LessThan     Operator = "lt"
)

// binaryOperators and validRequirementOperators are listed in Kubernetes'
// order because they appear in error messages. They are functions, not
// package variables, so that no caller can change them.
func binaryOperators() []string {
	return []string{string(In), string(NotIn), string(Equals), string(DoubleEquals), string(NotEquals), string(GreaterThan), string(LessThan)}
}

func validRequirementOperators() []string {
	return append(binaryOperators(), string(Exists), string(DoesNotExist))
}

// Requirement is one condition of a selector: a key, an operator and (for
// all operators but Exists and DoesNotExist) values. Build it with
// NewRequirement; the zero value is invalid.
type Requirement struct {
	key       string
	operator  Operator
	strValues []string
}

// NewRequirement validates and builds a requirement. It rejects an
// invalid key or value, In/NotIn without values, Equals/DoubleEquals/
// NotEquals without exactly one value, Exists/DoesNotExist with values,
// GreaterThan/LessThan without exactly one integer, and unknown operators.
// The error is a field.ErrorList worded like Kubernetes'.
func NewRequirement(key string, op Operator, vals []string) (*Requirement, error) {
	var allErrs field.ErrorList
	var path *field.Path // Kubernetes' parser passes no path by default.
	if err := validateLabelKey(key, path.Child("key")); err != nil {
		allErrs = append(allErrs, err)
	}
	valuePath := path.Child("values")
	switch op {
	case In, NotIn:
		if len(vals) == 0 {
			allErrs = append(allErrs, field.Invalid(valuePath, vals, "for 'in', 'notin' operators, values set can't be empty"))
		}
	case Equals, DoubleEquals, NotEquals:
		if len(vals) != 1 {
			allErrs = append(allErrs, field.Invalid(valuePath, vals, "exact-match compatibility requires one single value"))
		}
	case Exists, DoesNotExist:
		if len(vals) != 0 {
			allErrs = append(allErrs, field.Invalid(valuePath, vals, "values set must be empty for exists and does not exist"))
		}
	case GreaterThan, LessThan:
		if len(vals) != 1 {
			allErrs = append(allErrs, field.Invalid(valuePath, vals, "for 'Gt', 'Lt' operators, exactly one value is required"))
		}
		for i := range vals {
			if _, err := strconv.ParseInt(vals[i], 10, 64); err != nil {
				allErrs = append(allErrs, field.Invalid(valuePath.Index(i), vals[i], "for 'Gt', 'Lt' operators, the value must be an integer"))
			}
		}
	default:
		allErrs = append(allErrs, field.NotSupported(path.Child("operator"), op, validRequirementOperators()))
	}
	for i := range vals {
		if err := validateLabelValue(key, vals[i], valuePath.Index(i)); err != nil {
			allErrs = append(allErrs, err)
		}
	}
	if len(allErrs) > 0 {
		return nil, allErrs
	}
	// Copy so a caller reusing its slice cannot change the requirement.
	return &Requirement{key: key, operator: op, strValues: slices.Clone(vals)}, nil
}

// Key is the label key the requirement tests.
func (r *Requirement) Key() string { return r.key }

// Operator is the requirement's operator.
func (r *Requirement) Operator() Operator { return r.operator }

// Values returns the requirement's values, sorted and without duplicates
// (Kubernetes returns a set).
func (r *Requirement) Values() []string {
	out := slices.Clone(r.strValues)
	sort.Strings(out)
	return slices.Compact(out)
}

// Equal reports whether two requirements have the same key, operator and
// values in the same order.
func (r Requirement) Equal(x Requirement) bool {
	return r.key == x.key && r.operator == x.operator && slices.Equal(r.strValues, x.strValues)
}

func (r *Requirement) hasValue(v string) bool {
	return slices.Contains(r.strValues, v)
}

// Matches reports whether the labels satisfy the requirement. NotIn and
// NotEquals match when the key is absent; GreaterThan and LessThan never
// match a missing or non-integer value.
func (r *Requirement) Matches(ls Labels) bool {
	switch r.operator {
	case In, Equals, DoubleEquals:
		return ls.Has(r.key) && r.hasValue(ls.Get(r.key))
	case NotIn, NotEquals:
		return !ls.Has(r.key) || !r.hasValue(ls.Get(r.key))
	case Exists:
		return ls.Has(r.key)
	case DoesNotExist:
		return !ls.Has(r.key)
	case GreaterThan, LessThan:
		if !ls.Has(r.key) || len(r.strValues) != 1 {
			return false
		}
		have, err := strconv.ParseInt(ls.Get(r.key), 10, 64)
		if err != nil {
			return false
		}
		want, err := strconv.ParseInt(r.strValues[0], 10, 64)
		if err != nil {
			return false
		}
		if r.operator == GreaterThan {
			return have > want
		}
		return have < want
	}
	return false
}

// String renders the requirement in selector syntax ("k in (a,b)", "!k",
// "k>3"), values sorted, so that Parse reads it back.
func (r *Requirement) String() string {
	var sb strings.Builder
	if r.operator == DoesNotExist {
		sb.WriteString("!")
	}
	sb.WriteString(r.key)
	switch r.operator {
	case Equals:
		sb.WriteString("=")
	case DoubleEquals:
		sb.WriteString("==")
	case NotEquals:
		sb.WriteString("!=")
	case In:
		sb.WriteString(" in ")
	case NotIn:
		sb.WriteString(" notin ")
	case GreaterThan:
		sb.WriteString(">")
	case LessThan:
		sb.WriteString("<")
	case Exists, DoesNotExist:
		return sb.String()
	}
	if r.operator == In || r.operator == NotIn {
		sb.WriteString("(")
	}
	// Sorted and without duplicates: the values are a set, and String is
	// canonical (Kubernetes sorts but keeps duplicates).
	sb.WriteString(strings.Join(r.Values(), ","))
	if r.operator == In || r.operator == NotIn {
		sb.WriteString(")")
	}
	return sb.String()
}

// Requirements is a list of requirements that must all hold.
type Requirements []Requirement

// Selector is a parsed label selector.
type Selector interface {
	// Matches reports whether the labels satisfy every requirement.
	Matches(Labels) bool
	// Empty reports whether the selector selects everything.
	Empty() bool
	// String is the canonical selector text; Parse reads it back.
	String() string
	// Add returns a new selector with the requirements added (the
	// receiver is not changed).
	Add(r ...Requirement) Selector
	// Requirements returns the requirements and true, or nil and false
	// for a selector that selects nothing.
	Requirements() (requirements Requirements, selectable bool)
	// RequiresExactMatch returns the one value the label must have when
	// the selector pins it with =, == or a one-value in; indexes use it.
	RequiresExactMatch(label string) (value string, found bool)
}

// internalSelector is the usual Selector: requirements sorted by key.
type internalSelector []Requirement

// Everything returns a selector that matches all labels.
func Everything() Selector { return internalSelector{} }

// NewSelector returns an empty selector to Add requirements to.
func NewSelector() Selector { return internalSelector(nil) }

// sortByKey orders requirements by key; it is stable so that requirements
// on the same key keep their order and String is deterministic.
func sortByKey(reqs []Requirement) {
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].key < reqs[j].key })
}

func (s internalSelector) Matches(l Labels) bool {
	for i := range s {
		if !s[i].Matches(l) {
			return false
		}
	}
	return true
}

func (s internalSelector) Empty() bool { return len(s) == 0 }

func (s internalSelector) String() string {
	parts := make([]string, 0, len(s))
	for i := range s {
		parts = append(parts, s[i].String())
	}
	return strings.Join(parts, ",")
}

func (s internalSelector) Add(reqs ...Requirement) Selector {
	out := make(internalSelector, 0, len(s)+len(reqs))
	out = append(out, s...)
	out = append(out, reqs...)
	sortByKey(out)
	return out
}

func (s internalSelector) Requirements() (Requirements, bool) { return Requirements(s), true }

func (s internalSelector) RequiresExactMatch(label string) (string, bool) {
	for i := range s {
		if s[i].key != label {
			continue
		}
		switch s[i].operator {
		case Equals, DoubleEquals, In:
			if len(s[i].strValues) == 1 {
				return s[i].strValues[0], true
			}
		}
		return "", false
	}
	return "", false
}

// nothingSelector matches no labels; metav1.LabelSelectorAsSelector
// returns it for a nil selector.
type nothingSelector struct{}

// Nothing returns a selector that matches no labels.
func Nothing() Selector { return nothingSelector{} }

func (nothingSelector) Matches(Labels) bool                      { return false }
func (nothingSelector) Empty() bool                              { return false }
func (nothingSelector) String() string                           { return "" }
func (n nothingSelector) Add(...Requirement) Selector            { return n }
func (nothingSelector) Requirements() (Requirements, bool)       { return nil, false }
func (nothingSelector) RequiresExactMatch(string) (string, bool) { return "", false }

// SelectorFromSet returns a selector requiring every label of the set to
// have its value; nil or empty sets select everything. Like Kubernetes'
// SelectorFromValidatedSet it does not validate: an invalid set yields a
// selector the API server will reject when sent as text.
func SelectorFromSet(ls Set) Selector {
	if len(ls) == 0 {
		return internalSelector{}
	}
	reqs := make(internalSelector, 0, len(ls))
	for k, v := range ls {
		reqs = append(reqs, Requirement{key: k, operator: Equals, strValues: []string{v}})
	}
	sortByKey(reqs)
	return reqs
}

// ValidatedSelectorFromSet is SelectorFromSet with each key and value
// validated; the error is NewRequirement's.
func ValidatedSelectorFromSet(ls Set) (Selector, error) {
	if len(ls) == 0 {
		return internalSelector{}, nil
	}
	keys := slices.Sorted(maps.Keys(ls)) // report the first bad key deterministically
	reqs := make(internalSelector, 0, len(ls))
	for _, k := range keys {
		r, err := NewRequirement(k, Equals, []string{ls[k]})
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, *r)
	}
	return reqs, nil
}
