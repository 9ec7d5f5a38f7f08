package scenario

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// pathSegment is one step of a JSON path: a field, an index, or a filter
// that picks the first list item whose field equals a value.
type pathSegment struct {
	field       string
	index       int
	isIndex     bool
	filterField []string
	filterValue string
	isFilter    bool
}

// parseJSONPath reads the subset of kubectl's JSONPath a check needs:
// .a.b, .list[0], .conditions[?(@.type=="Ready")].status, with an optional
// surrounding {}, and \. for a dot inside a key (.metadata.labels.app\.kubernetes\.io/name).
func parseJSONPath(s string) ([]pathSegment, error) {
	p := strings.TrimSpace(s)
	if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
		p = p[1 : len(p)-1]
	}
	if !strings.HasPrefix(p, ".") {
		return nil, fmt.Errorf("expected a JSON path starting with a dot, such as .status.readyReplicas, got %q", s)
	}
	var segs []pathSegment
	i := 0
	for i < len(p) {
		switch p[i] {
		case '.':
			i++
			var b strings.Builder
			for i < len(p) && p[i] != '.' && p[i] != '[' {
				if p[i] == '\\' && i+1 < len(p) {
					i++
				}
				b.WriteByte(p[i])
				i++
			}
			if b.Len() == 0 {
				return nil, fmt.Errorf("empty field name in %q", s)
			}
			segs = append(segs, pathSegment{field: b.String()})
		case '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("missing ] in %q", s)
			}
			inner := p[i+1 : i+end]
			i += end + 1
			if strings.HasPrefix(inner, "?(@.") && strings.HasSuffix(inner, ")") {
				cond := inner[4 : len(inner)-1]
				lhs, rhs, ok := strings.Cut(cond, "==")
				if !ok {
					return nil, fmt.Errorf("a filter must be [?(@.field==\"value\")], got %q", inner)
				}
				rhs = strings.TrimSpace(rhs)
				if uq, err := strconv.Unquote(strings.ReplaceAll(rhs, "'", `"`)); err == nil {
					rhs = uq
				}
				segs = append(segs, pathSegment{isFilter: true, filterField: strings.Split(strings.TrimSpace(lhs), "."), filterValue: rhs})
				continue
			}
			n, err := strconv.Atoi(inner)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("expected an index such as [0] or a filter such as [?(@.type==\"Ready\")], got [%s]", inner)
			}
			segs = append(segs, pathSegment{index: n, isIndex: true})
		default:
			return nil, fmt.Errorf("unexpected %q at offset %d in %q", p[i], i, s)
		}
	}
	return segs, nil
}

// evalJSONPath returns the value at path in obj, and whether it exists.
func evalJSONPath(obj any, segs []pathSegment) (any, bool) {
	cur := obj
	for _, sg := range segs {
		switch {
		case sg.isIndex:
			l, ok := cur.([]any)
			if !ok || sg.index >= len(l) {
				return nil, false
			}
			cur = l[sg.index]
		case sg.isFilter:
			l, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			found := false
			for _, item := range l {
				var v any = item
				good := true
				for _, f := range sg.filterField {
					m, ok := v.(map[string]any)
					if !ok {
						good = false
						break
					}
					v = m[f]
				}
				if good && formatValue(v) == sg.filterValue || good && v == sg.filterValue {
					cur, found = item, true
					break
				}
			}
			if !found {
				return nil, false
			}
		default:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			v, ok := m[sg.field]
			if !ok {
				return nil, false
			}
			cur = v
		}
	}
	return cur, true
}

// formatValue renders a JSON value for messages: strings bare, the rest as
// JSON.
func formatValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// valuesEqual compares a decoded field with an expected value: numbers by
// value (3 equals 3.0), the rest by their JSON form.
func valuesEqual(actual, want any) bool {
	af, aNum := number(actual)
	wf, wNum := number(want)
	if aNum && wNum {
		return af == wf
	}
	a, _ := json.Marshal(actual)
	w, _ := json.Marshal(want)
	return string(a) == string(w)
}

func number(v any) (float64, bool) {
	switch t := v.(type) {
	case int64:
		return float64(t), true
	case float64:
		return t, true
	case int:
		return float64(t), true
	}
	return 0, false
}
