package doclinks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every relative link in docs/*.md, docs/labs/*.md and docs/labs/zh/*.md
// (the labs in Chinese) points to a file that exists.
func TestDocLinksExist(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../docs/*.md", "../../docs/labs/*.md", "../../docs/labs/zh/*.md"} {
		m, err := filepath.Glob(glob)
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.NotEmpty(t, files)
	for _, f := range files {
		broken, err := Broken(f)
		require.NoError(t, err)
		assert.Empty(t, broken, "broken links in %s", f)
	}
}

func TestBrokenFindsMissingTargets(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "there.go"), nil, 0o644))
	doc := "[ok](there.go) [ok too](there.go#L3) [gone](gone.go) [web](https://k8s.io) [anchor](#top)\n" +
		"`[code](nope.go)`\n```\n[fenced](nope.go)\n```\n![img](missing.png)\n"
	path := filepath.Join(dir, "doc.md")
	require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
	broken, err := Broken(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"gone.go", "missing.png"}, broken)
}
