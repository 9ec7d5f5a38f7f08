package fields

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSelector(t *testing.T) {
	tests := []struct {
		in   string
		want string
		reqs Requirements
	}{
		{"", "", nil},
		{",", "", nil},
		{"metadata.name=web", "metadata.name=web", Requirements{{"metadata.name", Equals, "web"}}},
		{"metadata.name==web", "metadata.name=web", Requirements{{"metadata.name", Equals, "web"}}},
		{"status.phase!=Running", "status.phase!=Running", Requirements{{"status.phase", NotEquals, "Running"}}},
		{"b=2,a=1", "a=1,b=2", Requirements{{"a", Equals, "1"}, {"b", Equals, "2"}}},
		{"a=1,,b=2,", "a=1,b=2", Requirements{{"a", Equals, "1"}, {"b", Equals, "2"}}},
		{"x=", "x=", Requirements{{"x", Equals, ""}}},
		{"=x", "=x", Requirements{{"", Equals, "x"}}},
		{"a = b", "a = b", Requirements{{"a ", Equals, " b"}}},
		{`x=a\,b`, `x=a\,b`, Requirements{{"x", Equals, "a,b"}}},
		{`x=a\=b`, `x=a\=b`, Requirements{{"x", Equals, "a=b"}}},
		{`x=a\\b`, `x=a\\b`, Requirements{{"x", Equals, `a\b`}}},
		{`x!=\,\=\\`, `x!=\,\=\\`, Requirements{{"x", NotEquals, `,=\`}}},
		{"a==x,a=b", "a=b,a=x", Requirements{{"a", Equals, "b"}, {"a", Equals, "x"}}},
		{"spec.nodeName=node-1,metadata.namespace!=kube-system", "metadata.namespace!=kube-system,spec.nodeName=node-1",
			Requirements{{"metadata.namespace", NotEquals, "kube-system"}, {"spec.nodeName", Equals, "node-1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := ParseSelector(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.String())
			assert.Equal(t, tt.reqs, s.Requirements())
			assert.Equal(t, len(tt.reqs) == 0, s.Empty())
			again, err := ParseSelector(s.String())
			require.NoError(t, err)
			assert.Equal(t, s, again)
		})
	}
}

func TestParseSelectorErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "invalid selector: 'a'; can't understand 'a'"},
		{"a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"},
		{"x=a=b", "invalid field selector: unescaped character in value: 61"},
		{"x!==a", "invalid field selector: unescaped character in value: 61"},
		{`x=a\x`, `invalid field selector: invalid escape sequence: \x`},
		{`x=a\`, `invalid field selector: invalid escape sequence: \`},
		{`x=a\,`, ``}, // valid: escaped comma at the end
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := ParseSelector(tt.in)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Equal(t, tt.want, err.Error())
		})
	}
	assert.Panics(t, func() { ParseSelectorOrDie("a") })
	assert.Equal(t, "a=b", ParseSelectorOrDie("a=b").String())
}

func TestMatchesAndExactMatch(t *testing.T) {
	pod := Set{"metadata.name": "web-1", "spec.nodeName": "node-1", "status.phase": "Running"}
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"metadata.name=web-1", true},
		{"metadata.name=web-2", false},
		{"status.phase!=Pending", true},
		{"status.phase!=Running", false},
		{"spec.nodeName=node-1,status.phase=Running", true},
		{"spec.nodeName=node-1,status.phase=Failed", false},
		{"missing=", true},   // an absent field reads as ""
		{"missing!=", false}, // ditto
		{"missing=x", false},
	}
	for _, tt := range tests {
		s, err := ParseSelector(tt.sel)
		require.NoError(t, err)
		assert.Equal(t, tt.want, s.Matches(pod), tt.sel)
	}

	s, err := ParseSelector("spec.nodeName=node-1,status.phase!=Failed")
	require.NoError(t, err)
	v, ok := s.RequiresExactMatch("spec.nodeName")
	assert.True(t, ok)
	assert.Equal(t, "node-1", v)
	_, ok = s.RequiresExactMatch("status.phase")
	assert.False(t, ok)
	_, ok = s.RequiresExactMatch("metadata.name")
	assert.False(t, ok)
}

func TestConstructors(t *testing.T) {
	one := OneTermEqualSelector("metadata.name", "a,b")
	assert.Equal(t, `metadata.name=a\,b`, one.String())
	assert.True(t, one.Matches(Set{"metadata.name": "a,b"}))
	v, ok := one.RequiresExactMatch("metadata.name")
	assert.True(t, ok)
	assert.Equal(t, "a,b", v)

	not := OneTermNotEqualSelector("status.phase", "Running")
	both := AndSelectors(one, not, Everything())
	assert.Equal(t, `metadata.name=a\,b,status.phase!=Running`, both.String())
	assert.False(t, both.Empty())
	assert.True(t, both.Matches(Set{"metadata.name": "a,b", "status.phase": "Pending"}))
	assert.False(t, both.Matches(Set{"metadata.name": "a,b", "status.phase": "Running"}))
	v, ok = both.RequiresExactMatch("metadata.name")
	assert.True(t, ok)
	assert.Equal(t, "a,b", v)

	assert.True(t, AndSelectors().Empty())
	assert.True(t, AndSelectors(Everything(), Everything()).Empty())
	assert.True(t, Everything().Matches(Set{}))
	assert.False(t, Nothing().Matches(Set{}))
	assert.False(t, Nothing().Empty())

	assert.Equal(t, "a=1,b=x\\=y", SelectorFromSet(Set{"b": "x=y", "a": "1"}).String())
	assert.Equal(t, "a=1", Set{"a": "1"}.AsSelector().String())
	assert.True(t, SelectorFromSet(nil).Empty())
	assert.True(t, Set{"a": "1"}.Has("a"))
	assert.False(t, Set{"a": "1"}.Has("b"))
}

func TestEscapeRoundTrip(t *testing.T) {
	for _, v := range []string{"", "plain", `a\b`, "a,b", "a=b", `\,=\\`, "ünï"} {
		got, err := UnescapeValue(EscapeValue(v))
		require.NoError(t, err)
		assert.Equal(t, v, got)
	}
}
