package handlers

import (
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// Warnings are bounded as Kubernetes bounds them: each once, 4 Ki runes
// in all; past that, each cut to 256 runes; then none.
func TestWarningsAreBounded(t *testing.T) {
	rec := httptest.NewRecorder()
	addWarnings(rec, []string{"short", "short"})
	addWarnings(rec, []string{strings.Repeat("x", 13000), "after the long one"})
	got := rec.Header().Values("Warning")
	assert.Equal(t, `299 - "short"`, got[0])
	assert.Len(t, got, 3, "a warning once")
	assert.Equal(t, `299 - "`+strings.Repeat("x", 256)+`…"`, got[1], "cut to 256 runes")
	assert.Equal(t, `299 - "after the long one"`, got[2])

	many := make([]string, 100)
	for i := range many {
		many[i] = strings.Repeat(string(rune('a'+i%26)), 100) + strings.Repeat("!", i)
	}
	addWarnings(rec, many)
	total := 0
	for _, v := range rec.Header().Values("Warning") {
		total += utf8.RuneCountInString(v)
	}
	assert.LessOrEqual(t, total, maxWarningRunes)
	assert.Greater(t, len(rec.Header().Values("Warning")), 30, "as many as fit")
}
