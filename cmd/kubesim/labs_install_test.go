package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The labs type `kubesim`, not ./bin/kubesim: docs/labs/README.md puts it
// on the PATH first, with `make install` and an export. TestLabsInstall
// runs that block as written, in a shell, with a GOPATH of its own, then
// a lab's first `kubesim` command by that name, and checks that the shell
// found the installed binary and that it printed the lab's expected
// output; TestLabs runs the labs' kubesim commands in process.

// labsInstallMarker separates the parts of the shell's output.
const labsInstallMarker = "=== labs install test ==="

// installBlock is the ```sh block of the labs' README that runs `make
// install`, its lines.
func installBlock(readme string) []string {
	for _, b := range fencedBlocks(readme) {
		lines := strings.Split(b.text, "\n")
		body := lines[1 : len(lines)-1]
		if strings.TrimSpace(lines[0]) == "```sh" && len(body) > 0 && strings.TrimSpace(body[0]) == "make install" {
			return body
		}
	}
	return nil
}

// goEnvironment is the environment of a go command the test starts: GOPATH
// is gopath (GOBIN unset, so that `go install` writes to gopath/bin),
// the module cache stays where it is, and -race is added when the test
// itself is race-built (the build then compiles no package again).
func goEnvironment(t *testing.T, gopath string) []string {
	out, err := exec.Command("go", "env", "GOMODCACHE", "GOFLAGS").Output()
	require.NoError(t, err, "go env")
	vals := strings.SplitN(strings.TrimRight(string(out), "\n"), "\n", 2)
	require.Len(t, vals, 2, "go env GOMODCACHE GOFLAGS: %q", out)
	goflags := strings.TrimSpace(vals[1])
	if raceBuild {
		goflags = strings.TrimSpace(goflags + " -race")
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOPATH", "GOBIN", "GOMODCACHE", "GOFLAGS", runAsKubesimEnv:
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOPATH="+gopath, "GOMODCACHE="+vals[0], "GOFLAGS="+goflags)
}

func TestLabsInstall(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"make", "go", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is required to check the labs' install step: %v", tool, err)
		}
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "docs", "labs", "README.md"))
	require.NoError(t, err)
	block := installBlock(string(readme))
	require.NotEmpty(t, block, "docs/labs/README.md has a ```sh block that starts with `make install`")
	readmeZh, err := os.ReadFile(filepath.Join(root, "docs", "labs", labsZhDir, "README.md"))
	require.NoError(t, err)
	assert.Equal(t, block, installBlock(string(readmeZh)), "the Chinese README installs kubesim with the same lines")
	lab, err := os.ReadFile(filepath.Join(root, "docs", "labs", "01-control-loop.md"))
	require.NoError(t, err)
	doc, err := parseLab(string(lab))
	require.NoError(t, err)
	var first *labCommand
	for i := range doc.commands {
		if len(doc.commands[i].args) > 0 && doc.commands[i].args[0] == "kubesim" {
			first = &doc.commands[i]
			break
		}
	}
	require.NotNil(t, first, "lab 1 runs a kubesim command")
	line := strings.TrimPrefix(strings.Split(string(lab), "\n")[first.line-1], "$ ")

	gopath := t.TempDir()
	script := "set -e\n" + strings.Join(block, "\n") + "\necho '" + labsInstallMarker + "'\ncommand -v kubesim\necho '" + labsInstallMarker + "'\n" + line + "\n"
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = root
	cmd.Env = goEnvironment(t, gopath)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the README's install block, then %q:\n%s", line, out)
	parts := strings.Split(string(out), labsInstallMarker+"\n")
	require.Len(t, parts, 3, "%s", out)
	installed := filepath.Join(gopath, "bin", "kubesim")
	assert.Contains(t, parts[0], "kubesim installed in "+filepath.Join(gopath, "bin"), "make install says where kubesim went")
	assert.Equal(t, installed+"\n", parts[1], "the shell finds the kubesim make install wrote")
	assert.True(t, newLabPattern(first.expected).MatchString(normalize(parts[2])),
		"%s as written, by the installed kubesim:\nexpected:\n%s\nactual:\n%s", line, strings.Join(first.expected, "\n"), parts[2])

	// PREFIX names the directory whose bin/ gets kubesim instead.
	prefix := filepath.Join(t.TempDir(), "usr")
	cmd = exec.Command("make", "--no-print-directory", "install", "PREFIX="+prefix)
	cmd.Dir = root
	cmd.Env = goEnvironment(t, gopath)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "make install PREFIX=%s:\n%s", prefix, out)
	assert.Contains(t, string(out), "kubesim installed in "+filepath.Join(prefix, "bin"))
	help, err := exec.Command(filepath.Join(prefix, "bin", "kubesim"), "help").CombinedOutput()
	require.NoError(t, err, "%s", help)
	assert.Regexp(t, "\n  serve +run the API server", string(help), "kubesim help lists the commands")
}
