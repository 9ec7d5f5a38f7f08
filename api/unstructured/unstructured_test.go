package unstructured

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTripKeepsMetadataFirstAndNumbers(t *testing.T) {
	var u Unstructured
	require.NoError(t, u.UnmarshalJSON([]byte(`{"spec":{"n":3,"f":1.5,"big":9007199254740993},"kind":"Widget","apiVersion":"lab/v1","metadata":{"name":"w","labels":{"a":"b"}}}`)))
	assert.Equal(t, "Widget", u.Kind)
	assert.Equal(t, "w", u.Name)
	spec := u.Content["spec"].(map[string]any)
	assert.Equal(t, int64(3), spec["n"])
	assert.Equal(t, 1.5, spec["f"])
	assert.Equal(t, int64(9007199254740993), spec["big"], "integers keep every digit")
	out, err := u.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `{"apiVersion":"lab/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"}},"spec":{"big":9007199254740993,"f":1.5,"n":3}}`, string(out))

	cp := u.DeepCopy()
	cp.Content["spec"].(map[string]any)["n"] = int64(4)
	cp.Labels["a"] = "c"
	assert.Equal(t, int64(3), spec["n"], "a deep copy shares nothing")
	assert.Equal(t, "b", u.Labels["a"])

	require.Error(t, u.UnmarshalJSON([]byte(`{"kind":1}`)))
	require.Error(t, u.UnmarshalJSON([]byte(`{"metadata":"x"}`)))
	require.Error(t, u.UnmarshalJSON([]byte(`[1]`)))
}

func TestEqual(t *testing.T) {
	cases := []struct {
		a, b any
		want bool
	}{
		{int64(1), 1.0, true},
		{1.5, int64(1), false},
		{"a", "a", true},
		{nil, nil, true},
		{map[string]any{"a": []any{int64(1), "x"}}, map[string]any{"a": []any{1.0, "x"}}, true},
		{map[string]any{"a": int64(1)}, map[string]any{"b": int64(1)}, false},
		{[]any{int64(1)}, []any{int64(1), int64(2)}, false},
		{true, "true", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Equal(c.a, c.b), "%#v vs %#v", c.a, c.b)
	}
}

func TestNestedFields(t *testing.T) {
	m := map[string]any{}
	SetNestedField(m, int64(5), "spec", "replicas")
	v, ok := NestedField(m, "spec", "replicas")
	assert.True(t, ok)
	assert.Equal(t, int64(5), v)
	_, ok = NestedField(m, "spec", "replicas", "deeper")
	assert.False(t, ok)
	assert.Equal(t, "object", TypeName(m))
	assert.Equal(t, "integer", TypeName(int64(1)))
}
