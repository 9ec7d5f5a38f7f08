package fields

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Fields is read access to an object's selectable fields, such as
// "metadata.name" or "spec.nodeName".
type Fields interface {
	// Has reports whether the field is present.
	Has(field string) bool
	// Get returns the field's value, "" when absent.
	Get(field string) string
}

// Set is a map of field names to values; the usual Fields implementation.
type Set map[string]string

// Has reports whether the field is present.
func (ls Set) Has(field string) bool {
	_, ok := ls[field]
	return ok
}

// Get returns the field's value, "" when absent.
func (ls Set) Get(field string) string { return ls[field] }

// String renders the set as a selector, keys sorted and values escaped.
func (ls Set) String() string { return SelectorFromSet(ls).String() }

// AsSelector is SelectorFromSet(ls).
func (ls Set) AsSelector() Selector { return SelectorFromSet(ls) }

// Operator relates a field to a value; field selectors know only equality
// and inequality.
type Operator string

// The operators of a field selector; Equals and DoubleEquals mean the same.
const (
	Equals       Operator = "="
	DoubleEquals Operator = "=="
	NotEquals    Operator = "!="
)

// Requirement is one term of a field selector.
type Requirement struct {
	Field    string
	Operator Operator
	Value    string
}

// Requirements is a list of terms that must all hold.
type Requirements []Requirement

// Selector is a parsed field selector.
type Selector interface {
	// Matches reports whether the fields satisfy every term.
	Matches(Fields) bool
	// Empty reports whether the selector selects everything.
	Empty() bool
	// RequiresExactMatch returns the value the field must equal when a
	// term pins it with = or ==; informers and indexes use it.
	RequiresExactMatch(field string) (value string, found bool)
	// Requirements lists the terms.
	Requirements() Requirements
	// String is the canonical selector text, values escaped.
	String() string
}

// hasTerm is "field=value".
type hasTerm struct{ field, value string }

func (t *hasTerm) Matches(ls Fields) bool { return ls.Get(t.field) == t.value }
func (t *hasTerm) Empty() bool            { return false }
func (t *hasTerm) RequiresExactMatch(field string) (string, bool) {
	if t.field == field {
		return t.value, true
	}
	return "", false
}
func (t *hasTerm) Requirements() Requirements {
	return Requirements{{Field: t.field, Operator: Equals, Value: t.value}}
}
func (t *hasTerm) String() string { return t.field + "=" + EscapeValue(t.value) }

// notHasTerm is "field!=value"; an absent field reads as "" here, as in
// Kubernetes.
type notHasTerm struct{ field, value string }

func (t *notHasTerm) Matches(ls Fields) bool                   { return ls.Get(t.field) != t.value }
func (t *notHasTerm) Empty() bool                              { return false }
func (t *notHasTerm) RequiresExactMatch(string) (string, bool) { return "", false }
func (t *notHasTerm) Requirements() Requirements {
	return Requirements{{Field: t.field, Operator: NotEquals, Value: t.value}}
}
func (t *notHasTerm) String() string { return t.field + "!=" + EscapeValue(t.value) }

// andTerm is the conjunction of selectors; empty, it selects everything.
type andTerm []Selector

func (t andTerm) Matches(ls Fields) bool {
	for _, q := range t {
		if !q.Matches(ls) {
			return false
		}
	}
	return true
}

func (t andTerm) Empty() bool {
	for _, q := range t {
		if !q.Empty() {
			return false
		}
	}
	return true
}

func (t andTerm) RequiresExactMatch(field string) (string, bool) {
	for _, q := range t {
		if v, ok := q.RequiresExactMatch(field); ok {
			return v, true
		}
	}
	return "", false
}

func (t andTerm) Requirements() Requirements {
	var reqs Requirements
	for _, q := range t {
		reqs = append(reqs, q.Requirements()...)
	}
	return reqs
}

func (t andTerm) String() string {
	terms := make([]string, 0, len(t))
	for _, q := range t {
		if s := q.String(); s != "" {
			terms = append(terms, s)
		}
	}
	return strings.Join(terms, ",")
}

// nothingSelector selects no object.
type nothingSelector struct{}

func (nothingSelector) Matches(Fields) bool                      { return false }
func (nothingSelector) Empty() bool                              { return false }
func (nothingSelector) RequiresExactMatch(string) (string, bool) { return "", false }
func (nothingSelector) Requirements() Requirements               { return nil }
func (nothingSelector) String() string                           { return "" }

// Everything returns a selector that matches all objects.
func Everything() Selector { return andTerm{} }

// Nothing returns a selector that matches no object.
func Nothing() Selector { return nothingSelector{} }

// OneTermEqualSelector returns the selector "k=v".
func OneTermEqualSelector(k, v string) Selector { return &hasTerm{field: k, value: v} }

// OneTermNotEqualSelector returns the selector "k!=v".
func OneTermNotEqualSelector(k, v string) Selector { return &notHasTerm{field: k, value: v} }

// AndSelectors returns a selector matching what all the given selectors
// match.
func AndSelectors(selectors ...Selector) Selector { return andTerm(selectors) }

// SelectorFromSet requires each field of the set to equal its value; a nil
// set selects everything. Terms are sorted by field so String is stable.
func SelectorFromSet(ls Set) Selector {
	if ls == nil {
		return Everything()
	}
	keys := slices.Sorted(maps.Keys(ls))
	items := make(andTerm, 0, len(ls))
	for _, k := range keys {
		items = append(items, &hasTerm{field: k, value: ls[k]})
	}
	if len(items) == 1 {
		return items[0]
	}
	return items
}

// EscapeValue escapes '\', ',' and '=' in a value with a backslash so the
// value can be written into a selector.
func EscapeValue(s string) string {
	return strings.NewReplacer(`\`, `\\`, `,`, `\,`, `=`, `\=`).Replace(s)
}

// InvalidEscapeSequence reports a backslash followed by anything but '\',
// ',' or '=', or a trailing backslash.
type InvalidEscapeSequence struct{ sequence string }

// Error words the problem as Kubernetes does.
func (i InvalidEscapeSequence) Error() string {
	return fmt.Sprintf("invalid field selector: invalid escape sequence: %s", i.sequence)
}

// UnescapedRune reports a ',' or '=' in a value without a backslash. Like
// Kubernetes it prints the character's code point ("61" for '=').
type UnescapedRune struct{ r rune }

// Error words the problem as Kubernetes does.
func (u UnescapedRune) Error() string {
	return fmt.Sprintf("invalid field selector: unescaped character in value: %v", u.r)
}

// UnescapeValue undoes EscapeValue, rejecting unknown escapes and bare ','
// and '='.
func UnescapeValue(s string) (string, error) {
	if !strings.ContainsAny(s, `\,=`) {
		return s, nil
	}
	var b strings.Builder
	inSlash := false
	for _, c := range s {
		if inSlash {
			switch c {
			case '\\', ',', '=':
				b.WriteRune(c)
			default:
				return "", InvalidEscapeSequence{sequence: string([]rune{'\\', c})}
			}
			inSlash = false
			continue
		}
		switch c {
		case '\\':
			inSlash = true
		case ',', '=':
			return "", UnescapedRune{r: c}
		default:
			b.WriteRune(c)
		}
	}
	if inSlash {
		return "", InvalidEscapeSequence{sequence: "\\"}
	}
	return b.String(), nil
}
