package openapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/kinds"
)

// viaEncodingJSON is what encodeJSON stands for.
func viaEncodingJSON(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// encodeJSON writes what encoding/json writes without HTML escaping: for
// every byte and the runes it treats apart, in strings and keys, for the
// values the documents hold and others, and for every built-in
// group-version's document.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	var every []byte
	for b := range 256 {
		every = append(every, byte(b))
	}
	strs := []string{"", "plain", string(every), "a\u2028b\u2029c", "é ü 日本 🙂", "<a href=\"x\">&amp;</a>", "\xff\xfe", "tail\\", "\x7f"}
	var values []any
	for _, s := range strs {
		values = append(values, s, map[string]any{s: s})
	}
	values = append(values, nil, true, false, json.Number("12345678901234567890"), json.Number("-1.5e-7"), json.Number(""),
		map[string]any(nil), []any(nil), []any{}, map[string]any{},
		map[string]any{"b": []any{1, 2.5, int64(-3), "x", nil, map[string]any{"z": false, "a": true}}, "a": map[string]string{"<": ">"}},
		[]string{"a", "b"}, 1e21, float32(0.1), struct {
			A string `json:"a"`
		}{A: "<&>"})
	for _, v := range values {
		got, err := encodeJSON(v)
		require.NoError(t, err)
		assert.Equal(t, string(viaEncodingJSON(t, v)), string(got), "%#v", v)
	}

	_, err := encodeJSON(map[string]any{"n": json.Number("not a number")})
	assert.Error(t, err, "an invalid number literal is refused, as encoding/json refuses it")

	rs := kinds.Builtin()
	for _, gv := range GroupVersions(rs) {
		b, err := buildGroupVersion(gv, resourcesAt(gv, rs))
		require.NoError(t, err)
		doc := map[string]any{"paths": b.paths, "components": map[string]any{"schemas": b.schemas}}
		got, err := encodeJSON(doc)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(viaEncodingJSON(t, doc), got), "the document of %s differs", gv)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\x7f", "\u2028", "\xed\xa0\x80", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendJSONString(nil, s)), string(viaEncodingJSON(t, s)); got != want {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}
