package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// simpleLiteral is a shortcut for decodeJSON: whenever it answers, it
// answers what decodeJSON gives.
func FuzzSimpleLiteralAgreesWithDecodeJSON(f *testing.F) {
	for _, seed := range []string{`"red"`, ` "TCP" `, `""`, `"a\"b"`, `"\u0041"`, `"é"`, "\"\xff\"", "\"a\tb\"",
		`"`, `"a" "b"`, `"a"x`, `1`, `-1`, `-0`, `0`, `01`, `-`, `1.0`, `1e3`, `9223372036854775807`,
		`9223372036854775808`, `-9223372036854775809`, `true`, `false`, `null`, `[]`, `{"a":1}`, "\u00a0\"x\"", "1 2", ""} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := simpleLiteral(raw)
		if !ok {
			return
		}
		want, err := decodeJSON(raw)
		if assert.NoError(t, err, "%q", raw) {
			assert.Equal(t, want, got, "%q", raw)
		}
	})
}

func TestSimpleLiteralTakesThePlainScalars(t *testing.T) {
	for raw, want := range map[string]any{`"red"`: "red", ` "TCP"` + "\n": "TCP", `1`: int64(1), `-42`: int64(-42), `true`: true, `false`: false} {
		got, ok := simpleLiteral([]byte(raw))
		assert.True(t, ok, raw)
		assert.Equal(t, want, got, raw)
	}
	for _, raw := range []string{`"a\"b"`, `1.5`, `1e3`, `01`, `null`, `[1]`, `{}`, `"`, `9223372036854775808`} {
		_, ok := simpleLiteral([]byte(raw))
		assert.False(t, ok, "%s is left to the decoder", raw)
	}
}
