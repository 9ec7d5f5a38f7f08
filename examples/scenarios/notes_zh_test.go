package scenarios

import (
	"io/fs"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenario"
)

// han is a Chinese character: a zh text that is a copy of the English
// one has none.
var han = regexp.MustCompile(`\p{Han}`)

// TestEveryNoteHasItsChineseText: the course kubesim teaches from is
// Chinese, so every note of every scenario shipped here carries
// its Chinese text (`zh:` beside `note:`), shown by --lang zh; so do the
// scenarios' names and descriptions (`zh: {name, description}`).
func TestEveryNoteHasItsChineseText(t *testing.T) {
	files, err := fs.Glob(FS(), "*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	notes := 0
	for _, f := range files {
		s, err := scenario.LoadFS(FS(), f)
		require.NoError(t, err)
		assert.Regexp(t, han, s.NameZh, "%s: the name %q has no Chinese text: add zh: {name: ...}", f, s.Name)
		if s.Description != "" {
			assert.Regexp(t, han, s.DescriptionZh, "%s: the description has no Chinese text: add a description under zh:", f)
		}
		for _, st := range s.Steps {
			if st.Op != scenario.OpNote {
				continue
			}
			notes++
			assert.Regexp(t, han, st.TextZh, "%s:%d: the note %q has no Chinese text: add a zh: line below it", f, st.Line, st.Text)
		}
	}
	require.NotZero(t, notes, "the scenarios have notes")
}
