package labels

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	nameRegexMsg  = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	valueRegexMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
	dnsRegexMsg   = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		in   string
		want string // canonical String()
	}{
		{"", ""},
		{"   ", ""},
		{"x=a", "x=a"},
		{"x==a", "x==a"},
		{"x!=a", "x!=a"},
		{"x = a", "x=a"},
		{" x\t==\n a ", "x==a"},
		{"x=", "x="},
		{"x=,y=b", "x=,y=b"},
		{"x in (b,a)", "x in (a,b)"},
		{"x in(a)", "x in (a)"},
		{"x notin (a, b ,c)", "x notin (a,b,c)"},
		{"x in ()", "x in ()"},
		{"x in (,a)", "x in (,a)"},
		{"x in (a,,b)", "x in (,a,b)"},
		{"x in (a,)", "x in (,a)"},
		{"x in (a,a)", "x in (a)"},
		{"x in (in,notin)", "x in (in,notin)"},
		{"in in (in)", "in in (in)"},
		{"x", "x"},
		{"!x", "!x"},
		{"! x", "!x"},
		{"x>3", "x>3"},
		{"z=1,a=2,m", "a=2,m,z=1"},
		{"b,a=1,!c", "a=1,b,!c"},
		{"example.com/app=web", "example.com/app=web"},
		{"a.b-c_d=A.b-9_z", "a.b-c_d=A.b-9_z"},
		{strings.Repeat("k", 63) + "=" + strings.Repeat("v", 63), strings.Repeat("k", 63) + "=" + strings.Repeat("v", 63)},
		{"x=a,x!=b", "x=a,x!=b"},
		{"x=in", "x=in"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := Parse(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.String())
			assert.Equal(t, tt.want == "", s.Empty())
			// The canonical form parses back to the same selector.
			again, err := Parse(s.String())
			require.NoError(t, err)
			assert.Equal(t, s, again)
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"x=a b", "found 'b', expected: ',' or 'end of string'"},
		{"x y", "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"},
		{"x in (a", "unable to parse requirement: found '', expected: ',' or ')'"},
		{"x in a", "unable to parse requirement: found 'a' expected: '('"},
		{"x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"},
		{"x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"},
		{"x in (a,=)", "unable to parse requirement: found '=', expected: ',', or identifier"},
		{"x==(a)", "unable to parse requirement: found '(', expected: identifier"},
		{",x", "found ',', expected: !, identifier, or 'end of string'"},
		{"=x", "found '=', expected: !, identifier, or 'end of string'"},
		{"x,", "found '', expected: identifier after ','"},
		{"x,,y", "found ',', expected: identifier after ','"},
		{"!", "unable to parse requirement: found '', expected: identifier"},
		{"!=x", "found '!=', expected: !, identifier, or 'end of string'"},
		{"!x=a", "found '=', expected: ',' or 'end of string'"},
		{"x>a", "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer"},
		{"x>", "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer"},
		{"x<-1", "unable to parse requirement: values[0][x]: Invalid value: \"-1\": " + valueRegexMsg},
		{"app:monolith", "unable to parse requirement: <nil>: Invalid value: \"app:monolith\": name part " + nameRegexMsg},
		{"-a=b", "unable to parse requirement: <nil>: Invalid value: \"-a\": name part " + nameRegexMsg},
		{"x=a/b", "unable to parse requirement: values[0][x]: Invalid value: \"a/b\": " + valueRegexMsg},
		{"x=" + strings.Repeat("v", 64), "unable to parse requirement: values[0][x]: Invalid value: \"" + strings.Repeat("v", 64) + "\": must be no more than 63 characters"},
		{strings.Repeat("k", 64), "unable to parse requirement: <nil>: Invalid value: \"" + strings.Repeat("k", 64) + "\": name part must be no more than 63 characters"},
		{"/a", "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be non-empty"},
		{"a/", "unable to parse requirement: <nil>: Invalid value: \"a/\": name part must be non-empty; name part " + nameRegexMsg},
		{"Example.com/a", "unable to parse requirement: <nil>: Invalid value: \"Example.com/a\": prefix part " + dnsRegexMsg},
		{"a/b/c=d", "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name " + nameRegexMsg + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := Parse(tt.in)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestMatches(t *testing.T) {
	web := Set{"app": "web", "tier": "frontend", "replicas": "3", "empty": ""}
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"app=web", true},
		{"app==web", true},
		{"app=db", false},
		{"app!=db", true},
		{"app!=web", false},
		{"missing!=x", true},
		{"missing=x", false},
		{"empty=", true},
		{"missing=", false},
		{"app in (web,db)", true},
		{"app in (db)", false},
		{"missing in (db)", false},
		{"app notin (db)", true},
		{"app notin (web)", false},
		{"missing notin (web)", true},
		{"app", true},
		{"empty", true},
		{"missing", false},
		{"!missing", true},
		{"!app", false},
		{"replicas>2", true},
		{"replicas>3", false},
		{"replicas<4", true},
		{"replicas<3", false},
		{"app>1", false},     // not an integer
		{"missing<9", false}, // absent
		{"app=web,tier=frontend", true},
		{"app=web,tier=backend", false},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			s, err := Parse(tt.sel)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Matches(web))
		})
	}
}

func TestNewRequirementErrors(t *testing.T) {
	tests := []struct {
		name string
		key  string
		op   Operator
		vals []string
		want string
	}{
		{"in empty", "x", In, nil, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"},
		{"notin empty", "x", NotIn, []string{}, "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"},
		{"equals two", "x", Equals, []string{"a", "b"}, "values: Invalid value: []string{\"a\", \"b\"}: exact-match compatibility requires one single value"},
		{"exists with value", "x", Exists, []string{"a"}, "values: Invalid value: []string{\"a\"}: values set must be empty for exists and does not exist"},
		{"gt two", "x", GreaterThan, []string{"1", "2"}, "values: Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt' operators, exactly one value is required"},
		{"unknown op", "x", Operator("like"), nil, "operator: Unsupported value: \"like\": supported values: \"in\", \"notin\", \"=\", \"==\", \"!=\", \"gt\", \"lt\", \"exists\", \"!\""},
		{"bad key and value", "-x", Equals, []string{"-a"}, "[key: Invalid value: \"-x\": name part " + nameRegexMsg + ", values[0][-x]: Invalid value: \"-a\": " + valueRegexMsg + "]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRequirement(tt.key, tt.op, tt.vals)
			require.Error(t, err)
			assert.Nil(t, r)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestNewSelectorAdd(t *testing.T) {
	b, err := NewRequirement("b", In, []string{"2", "1"})
	require.NoError(t, err)
	a, err := NewRequirement("a", Exists, nil)
	require.NoError(t, err)
	base := NewSelector()
	s := base.Add(*b, *a)
	assert.Equal(t, "a,b in (1,2)", s.String())
	assert.True(t, base.Empty(), "Add must not change the receiver")
	reqs, ok := s.Requirements()
	require.True(t, ok)
	require.Len(t, reqs, 2)
	assert.Equal(t, "a", reqs[0].Key())
	assert.Equal(t, Exists, reqs[0].Operator())
	assert.Equal(t, []string{"1", "2"}, reqs[1].Values())
	assert.True(t, s.Matches(Set{"a": "", "b": "1"}))
	assert.False(t, s.Matches(Set{"b": "1"}))
}

func TestEverythingNothing(t *testing.T) {
	assert.True(t, Everything().Empty())
	assert.True(t, Everything().Matches(Set{}))
	assert.Equal(t, "", Everything().String())
	assert.False(t, Nothing().Empty())
	assert.False(t, Nothing().Matches(Set{}))
	assert.False(t, Nothing().Matches(Set{"a": "b"}))
	r, err := NewRequirement("a", Exists, nil)
	require.NoError(t, err)
	assert.False(t, Nothing().Add(*r).Matches(Set{"a": "b"}))
	reqs, ok := Nothing().Requirements()
	assert.False(t, ok)
	assert.Nil(t, reqs)
}

func TestSelectorFromSet(t *testing.T) {
	s := SelectorFromSet(Set{"b": "2", "a": "1"})
	assert.Equal(t, "a=1,b=2", s.String())
	assert.True(t, s.Matches(Set{"a": "1", "b": "2", "c": "3"}))
	assert.False(t, s.Matches(Set{"a": "1"}))
	assert.True(t, SelectorFromSet(nil).Empty())
	assert.Equal(t, "a=1,b=2", Set{"b": "2", "a": "1"}.String())

	_, err := ValidatedSelectorFromSet(Set{"a": "-"})
	require.EqualError(t, err, "values[0][a]: Invalid value: \"-\": "+valueRegexMsg)
	v, err := ValidatedSelectorFromSet(Set{"a": "1"})
	require.NoError(t, err)
	assert.Equal(t, "a=1", v.String())
}

func TestRequiresExactMatch(t *testing.T) {
	tests := []struct {
		sel, label, want string
		found            bool
	}{
		{"a=1", "a", "1", true},
		{"a==1", "a", "1", true},
		{"a in (1)", "a", "1", true},
		{"a in (1,2)", "a", "", false},
		{"a!=1", "a", "", false},
		{"a=1", "b", "", false},
		{"a", "a", "", false},
	}
	for _, tt := range tests {
		s, err := Parse(tt.sel)
		require.NoError(t, err)
		v, found := s.RequiresExactMatch(tt.label)
		assert.Equal(t, tt.want, v, tt.sel)
		assert.Equal(t, tt.found, found, tt.sel)
	}
}

func TestSelectorFromMatch(t *testing.T) {
	s, err := SelectorFromMatch(nil, nil)
	require.NoError(t, err)
	assert.True(t, s.Empty())
	assert.True(t, s.Matches(Set{"x": "y"}))

	s, err = SelectorFromMatch(map[string]string{"app": "web"}, []MatchExpression{
		{Key: "tier", Operator: "In", Values: []string{"front", "back"}},
		{Key: "canary", Operator: "DoesNotExist"},
		{Key: "env", Operator: "NotIn", Values: []string{"prod"}},
		{Key: "team", Operator: "Exists"},
	})
	require.NoError(t, err)
	assert.Equal(t, "app=web,!canary,env notin (prod),team,tier in (back,front)", s.String())
	assert.True(t, s.Matches(Set{"app": "web", "tier": "front", "team": "x"}))
	assert.False(t, s.Matches(Set{"app": "web", "tier": "front", "team": "x", "canary": "1"}))
	assert.False(t, s.Matches(Set{"app": "web", "tier": "front", "team": "x", "env": "prod"}))

	_, err = SelectorFromMatch(nil, []MatchExpression{{Key: "a", Operator: "Gt", Values: []string{"1"}}})
	assert.EqualError(t, err, `"Gt" is not a valid label selector operator`)
	_, err = SelectorFromMatch(nil, []MatchExpression{{Key: "a", Operator: "In"}})
	assert.EqualError(t, err, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty")
	_, err = SelectorFromMatch(nil, []MatchExpression{{Key: "a", Operator: "Exists", Values: []string{"x"}}})
	assert.EqualError(t, err, "values: Invalid value: []string{\"x\"}: values set must be empty for exists and does not exist")
	_, err = SelectorFromMatch(map[string]string{"a b": "c"}, nil)
	assert.EqualError(t, err, "key: Invalid value: \"a b\": name part "+nameRegexMsg)
}

func TestIsQualifiedName(t *testing.T) {
	for _, ok := range []string{"a", "A", "1", "a.b", "a-b_c", "example.com/a", "a.b.c/D", strings.Repeat("a", 63), strings.Repeat("a", 253) + "/b"} {
		assert.Empty(t, IsQualifiedName(ok), ok)
	}
	for _, bad := range []string{"", "-a", "a-", "a b", "a/b/c", "/a", "a/", "A.com/b", strings.Repeat("a", 64), strings.Repeat("a", 254) + "/b", "a..b/c", "é"} {
		assert.NotEmpty(t, IsQualifiedName(bad), bad)
	}
	for _, ok := range []string{"", "a", "a.b-c_d", strings.Repeat("v", 63)} {
		assert.Empty(t, IsValidLabelValue(ok), ok)
	}
	for _, bad := range []string{"-", "a-", "a b", "a/b", strings.Repeat("v", 64)} {
		assert.NotEmpty(t, IsValidLabelValue(bad), bad)
	}
}

func TestStringDeduplicatesValues(t *testing.T) {
	s, err := SelectorFromMatch(nil, []MatchExpression{{Key: "x", Operator: "In", Values: []string{"b", "a", "b"}}})
	require.NoError(t, err)
	assert.Equal(t, "x in (a,b)", s.String())
	again, err := Parse(s.String())
	require.NoError(t, err)
	assert.Equal(t, s.String(), again.String())
}
