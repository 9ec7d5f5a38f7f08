package shell

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Output redirections write the layer, as the tutorials' `kubectl exec
// ... -- sh -c 'echo hello > index.html'` does, and a later exec reads
// what was written.
func TestRedirections(t *testing.T) {
	for _, tc := range []struct {
		name, script   string
		out, errs      string
		code           int
		file, contents string
	}{
		{name: "truncate", script: "echo old > /tmp/f; echo new > /tmp/f", file: "/tmp/f", contents: "new\n"},
		{name: "append", script: "echo a > /tmp/f; echo b >> /tmp/f", file: "/tmp/f", contents: "a\nb\n"},
		{name: "no space, relative, variable", script: "cd /tmp && echo $HOSTNAME >f", file: "/tmp/f", contents: "web-0\n"},
		{name: "quoted target", script: `echo "hi there" > "/tmp/a b"`, file: "/tmp/a b", contents: "hi there\n"},
		{name: "only stdout goes", script: "cat /nope /etc/config/key > /tmp/f", file: "/tmp/f", contents: "value\n",
			errs: "cat: can't open '/nope': No such file or directory\n", code: 1},
		{name: "stderr to file", script: "cat /nope 2> /tmp/err", file: "/tmp/err", contents: "cat: can't open '/nope': No such file or directory\n", code: 1},
		{name: "both to file", script: "cat /etc/config/key /nope > /tmp/f 2>&1",
			file: "/tmp/f", contents: "value\ncat: can't open '/nope': No such file or directory\n", code: 1},
		{name: "stderr to stdout", script: "cat /nope 2>&1", out: "cat: can't open '/nope': No such file or directory\n", code: 1},
		{name: "dev null", script: "echo gone > /dev/null; echo kept", out: "kept\n"},
		{name: "empty command creates", script: "> /tmp/empty", file: "/tmp/empty", contents: ""},
		{name: "streams come back", script: "echo in > /tmp/f; echo out", out: "out\n", file: "/tmp/f", contents: "in\n"},
		{name: "read-only mount", script: "echo x > /etc/config/key; echo $?",
			out: "2\n", errs: "sh: can't create /etc/config/key: Read-only file system\n"},
		{name: "missing directory", script: "echo x > /nope/f",
			errs: "sh: can't create /nope/f: nonexistent directory\n", code: 2},
		{name: "directory", script: "echo x > /tmp",
			errs: "sh: can't create /tmp: Is a directory\n", code: 2},
		{name: "no target", script: "echo x >", errs: "sh: syntax error: unexpected newline\n", code: 2},
		{name: "no target before operator", script: "echo x > && echo y", errs: "sh: syntax error: unexpected \"&&\"\n", code: 2},
		{name: "input redirection", script: "cat < /etc/hostname; wc -l </etc/config/key", out: "web-0\n1\n"},
		{name: "input redirection of a missing file", script: "cat < /nope; echo $?", out: "2\n", errs: "sh: can't open /nope: no such file\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			layer := NewLayer()
			out, errs, code := inLayer(t, layer, strings.NewReader(""), "sh", "-c", tc.script)
			assert.Equal(t, tc.out, out, "stdout")
			assert.Equal(t, tc.errs, errs, "stderr")
			assert.Equal(t, tc.code, code, "exit code")
			if tc.file != "" {
				got, _, _ := inLayer(t, layer, strings.NewReader(""), "cat", tc.file)
				assert.Equal(t, tc.contents, got, "the file, read by a later exec")
			}
		})
	}
}

// On a terminal the shell's own output ends lines with "\r\n"; a file
// written through a redirection keeps plain "\n".
func TestRedirectionUnderTTY(t *testing.T) {
	layer := NewLayer()
	env := testEnv()
	env.Layer = layer
	var out strings.Builder
	code := Command{Args: []string{"sh"}, Env: env,
		Stdio: Stdio{Stdin: strings.NewReader("echo a > /tmp/f\recho b >> /tmp/f\rexit\r"), Stdout: &out, TTY: true}}.Run(t.Context())
	assert.Equal(t, 0, code)
	got, _, _ := inLayer(t, layer, strings.NewReader(""), "cat", "/tmp/f")
	assert.Equal(t, "a\nb\n", got)
}
