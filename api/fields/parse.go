package fields

import (
	"fmt"
	"sort"
	"strings"
)

// splitTerms splits at commas not preceded by a backslash; escapes stay in
// the terms for UnescapeValue to resolve.
func splitTerms(selector string) []string {
	if selector == "" {
		return nil
	}
	var terms []string
	start := 0
	inSlash := false
	for i, c := range selector {
		switch {
		case inSlash:
			inSlash = false
		case c == '\\':
			inSlash = true
		case c == ',':
			terms = append(terms, selector[start:i])
			start = i + 1
		}
	}
	return append(terms, selector[start:])
}

// splitTerm cuts a term at the first operator. Field names cannot be
// escaped, so the first "!=", "==" or "=" (tried in that order at each
// position, so "==" is not read as "=" followed by a value "=...") wins.
func splitTerm(term string) (lhs string, op Operator, rhs string, ok bool) {
	for i := range term {
		rest := term[i:]
		for _, o := range []Operator{NotEquals, DoubleEquals, Equals} {
			if strings.HasPrefix(rest, string(o)) {
				return term[:i], o, term[i+len(o):], true
			}
		}
	}
	return "", "", "", false
}

// ParseSelector reads a field selector: comma-separated terms
// "field=value", "field==value" or "field!=value", with ',', '=' and '\'
// in values escaped by a backslash. Empty terms are skipped; the empty
// string selects everything. Nothing is trimmed.
func ParseSelector(selector string) (Selector, error) {
	var items andTerm
	for _, part := range splitTerms(selector) {
		if part == "" {
			continue
		}
		lhs, op, rhs, ok := splitTerm(part)
		if !ok {
			return nil, fmt.Errorf("invalid selector: '%s'; can't understand '%s'", selector, part)
		}
		value, err := UnescapeValue(rhs)
		if err != nil {
			return nil, err
		}
		if op == NotEquals {
			items = append(items, &notHasTerm{field: lhs, value: value})
		} else {
			items = append(items, &hasTerm{field: lhs, value: value})
		}
	}
	// Kubernetes sorts the raw terms; sorting the canonical ones instead
	// makes String canonical too ("a==x" and "a=x" print alike).
	sort.SliceStable(items, func(i, j int) bool { return items[i].String() < items[j].String() })
	if len(items) == 1 {
		return items[0], nil
	}
	return items, nil
}

// ParseSelectorOrDie is ParseSelector for constant selectors in code; it
// panics on a syntax error, which is a programming mistake there.
func ParseSelectorOrDie(s string) Selector {
	sel, err := ParseSelector(s)
	if err != nil {
		panic(err)
	}
	return sel
}
