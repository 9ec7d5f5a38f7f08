package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectl cp both ways: kubectl runs `test -d`, `tar -xmf - -C DIR` and
// `tar cf - PATH` through exec, and the built-in shell's tar reads and
// writes the container's writable layer and its mounted volumes.
func TestKubectlCp(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)
	k.ok("apply", "-f", "testdata/exec-pod.yaml")
	k.ok("wait", "--for=condition=Ready", "pod/shell", "--timeout=60s")
	local := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(local, "site", "css"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(local, "site", "index.html"), []byte("<h1>hi</h1>\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(local, "site", "css", "main.css"), []byte("h1 {}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(local, "note.txt"), []byte("a note\n"), 0o644))

	t.Run("into the container", func(t *testing.T) {
		k.ok("cp", filepath.Join(local, "site"), "shell:/tmp/site")
		assert.Equal(t, "<h1>hi</h1>\n", k.ok("exec", "shell", "--", "cat", "/tmp/site/index.html"))
		assert.Equal(t, "css\nindex.html\n", k.ok("exec", "shell", "--", "ls", "/tmp/site"))
		// Into an existing directory: the file keeps its name.
		k.ok("cp", filepath.Join(local, "note.txt"), "shell:/tmp")
		assert.Equal(t, "a note\n", k.ok("exec", "shell", "-c", "app", "--", "cat", "/tmp/note.txt"))
	})
	t.Run("out of the container", func(t *testing.T) {
		back := filepath.Join(t.TempDir(), "back")
		k.ok("cp", "shell:/tmp/site", back)
		data, err := os.ReadFile(filepath.Join(back, "css", "main.css"))
		require.NoError(t, err)
		assert.Equal(t, "h1 {}\n", string(data))
		key := filepath.Join(t.TempDir(), "key")
		k.ok("cp", "shell:/etc/config/key", key)
		data, err = os.ReadFile(key)
		require.NoError(t, err)
		assert.Equal(t, "value-from-configmap", string(data))
	})
	t.Run("refusals", func(t *testing.T) {
		out, errOut := k.run(true, "cp", filepath.Join(local, "note.txt"), "shell:/etc/config/note.txt")
		assert.Contains(t, out+errOut, "tar: can't open 'note.txt': Read-only file system")
		assert.Contains(t, errOut, "command terminated with exit code 1")
		assert.Equal(t, "key\nmode\n", k.ok("exec", "shell", "--", "ls", "/etc/config"))
		// A missing source: tar says so (kubectl prints tar's stderr on
		// its stdout) and writes an empty archive, so kubectl 1.32,
		// which reads the archive to its end, copies nothing and exits
		// 0 — as against a real container.
		dest := filepath.Join(t.TempDir(), "x")
		out, errOut = k.run(false, "cp", "shell:/tmp/nothing", dest)
		assert.Contains(t, out+errOut, "tar: /tmp/nothing: No such file or directory")
		_, err := os.Stat(dest)
		assert.True(t, os.IsNotExist(err))
	})
}
