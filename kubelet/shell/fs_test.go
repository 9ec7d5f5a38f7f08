package shell

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clock"
)

// inLayer runs args in testEnv with a writable layer and /etc/config
// mounted read-only.
func inLayer(t *testing.T, layer *Layer, stdin io.Reader, args ...string) (string, string, int) {
	t.Helper()
	env := testEnv()
	env.Layer, env.ReadOnly = layer, []string{"/etc/config"}
	var out, errb bytes.Buffer
	code := Command{Args: args, Env: env, Stdio: Stdio{Stdin: stdin, Stdout: &out, Stderr: &errb},
		Clock: clock.NewFake(time.Unix(0, 0))}.Run(context.Background())
	return out.String(), errb.String(), code
}

func tarOf(t *testing.T, entries ...[2]string) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range entries {
		if strings.HasSuffix(e[0], "/") {
			require.NoError(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: e[0], Mode: 0o755}))
			continue
		}
		require.NoError(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: e[0], Mode: 0o644, Size: int64(len(e[1]))}))
		_, err := tw.Write([]byte(e[1]))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	return &b
}

func untar(t *testing.T, data string) map[string]string {
	t.Helper()
	out := map[string]string{}
	tr := tar.NewReader(strings.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		out[h.Name] = string(b)
	}
}

// kubectl cp into the container (test -d, then tar -xmf - -C DIR) and
// back out (tar cf - PATH): what one exec writes the next one reads.
func TestTarBothWays(t *testing.T) {
	layer := NewLayer()
	_, _, code := inLayer(t, layer, nil, "test", "-d", "/tmp/app")
	assert.Equal(t, 1, code, "not there yet")
	_, _, code = inLayer(t, layer, nil, "test", "-d", "/tmp")
	assert.Equal(t, 0, code)

	// kubectl cp ./app pod:/tmp/app sends names relative to -C's dir.
	_, errOut, code := inLayer(t, layer, tarOf(t, [2]string{"app/", ""}, [2]string{"app/notes.txt", "hello\n"}, [2]string{"app/sub/deep.txt", "deep"}),
		"tar", "-xmf", "-", "-C", "/tmp")
	require.Equal(t, 0, code, errOut)
	out, _, _ := inLayer(t, layer, nil, "cat", "/tmp/app/notes.txt")
	assert.Equal(t, "hello\n", out)
	out, _, _ = inLayer(t, layer, nil, "ls", "/tmp/app")
	assert.Equal(t, "notes.txt\nsub\n", out)
	_, _, code = inLayer(t, layer, nil, "test", "-d", "/tmp/app/sub")
	assert.Equal(t, 0, code)

	// kubectl cp pod:/tmp/app ./back: names keep the path, less its "/".
	out, errOut, code = inLayer(t, layer, nil, "tar", "cf", "-", "/tmp/app")
	require.Equal(t, 0, code)
	assert.Equal(t, "tar: removing leading '/' from member names\n", errOut)
	assert.Equal(t, map[string]string{"tmp/app/": "", "tmp/app/notes.txt": "hello\n", "tmp/app/sub/": "", "tmp/app/sub/deep.txt": "deep"}, untar(t, out))

	// The mounted ConfigMap is read, not written.
	out, _, code = inLayer(t, layer, nil, "tar", "cf", "-", "/etc/config/key")
	require.Equal(t, 0, code)
	assert.Equal(t, map[string]string{"etc/config/key": "value\n"}, untar(t, out))
	_, errOut, code = inLayer(t, layer, tarOf(t, [2]string{"key", "changed"}), "tar", "--no-same-permissions", "--no-same-owner", "-xmf", "-", "-C", "/etc/config")
	assert.Equal(t, 1, code)
	assert.Equal(t, "tar: can't open 'key': Read-only file system\n", errOut)
	out, _, _ = inLayer(t, layer, nil, "cat", "/etc/config/key")
	assert.Equal(t, "value\n", out)

	// Another container (another layer) does not see the files.
	_, errOut, code = inLayer(t, NewLayer(), nil, "cat", "/tmp/app/notes.txt")
	assert.Equal(t, 1, code)
	assert.Equal(t, "cat: can't open '/tmp/app/notes.txt': No such file or directory\n", errOut)
}

func TestFileCommands(t *testing.T) {
	layer := NewLayer()
	for _, tc := range []struct {
		args      []string
		out, errs string
		code      int
	}{
		{args: []string{"tar", "cf", "-", "/nope"}, out: strings.Repeat("\x00", 1024), errs: "tar: /nope: No such file or directory\n", code: 1},
		{args: []string{"tar", "-xf", "-", "-C", "/nope"}, errs: "tar: can't change directory to '/nope': No such file or directory\n", code: 1},
		{args: []string{"tar", "f", "-"}, errs: "tar: need to specify one of -c, -x or -t\n", code: 1},
		{args: []string{"touch", "/tmp/healthy"}},
		{args: []string{"test", "-f", "/tmp/healthy"}},
		{args: []string{"test", "-s", "/tmp/healthy"}, code: 1},
		{args: []string{"[", "-e", "/tmp/healthy", "]"}},
		{args: []string{"test", "!", "-e", "/tmp/healthy"}, code: 1},
		{args: []string{"test", "a", "=", "a"}},
		{args: []string{"touch", "/etc/config/new"}, errs: "touch: /etc/config/new: Read-only file system\n", code: 1},
		{args: []string{"touch", "/nodir/x"}, errs: "touch: /nodir/x: No such file or directory\n", code: 1},
		{args: []string{"mkdir", "/tmp/a/b"}, errs: "mkdir: can't create directory '/tmp/a/b': No such file or directory\n", code: 1},
		{args: []string{"mkdir", "-p", "/tmp/a/b"}},
		{args: []string{"ls", "/tmp"}, out: "a\nhealthy\n"},
		{args: []string{"mkdir", "/tmp/a"}, errs: "mkdir: can't create directory '/tmp/a': File exists\n", code: 1},
		{args: []string{"sh", "-c", "test -d /tmp/a/b && echo yes"}, out: "yes\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errs, code := inLayer(t, layer, strings.NewReader(""), tc.args...)
			assert.Equal(t, tc.out, out)
			assert.Equal(t, tc.errs, errs)
			assert.Equal(t, tc.code, code)
		})
	}
	// Without a layer (an exec the kubelet gave none) nothing is written.
	_, errs, code := inLayer(t, nil, nil, "touch", "/tmp/x")
	assert.Equal(t, 1, code)
	assert.Equal(t, "touch: /tmp/x: Read-only file system\n", errs)
}
