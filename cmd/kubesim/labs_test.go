package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/kubelet/cni/cnitest"
)

// The labs in docs/labs are executable: every ```console block is a list
// of commands ("$ kubectl ...", "$ kubesim ...") each followed by its
// expected output. This test starts one `kubesim serve` per lab, with the
// flags of the lab's start block (a ```sh block: `rm -rf .data`, then
// `kubesim serve FLAGS`, the lines the student types) in a fresh data
// directory, runs the commands from the repository root as a student
// would, and compares the output with tolerant matching (see labPattern),
// so a lab whose output drifts fails.

// labCommand is one command of a lab and the output it must print, or a
// controller process to start or stop (an <!-- lab-start: NAME --> or
// <!-- lab-stop: NAME --> comment between the console blocks: the student
// runs `kubesim run-controller NAME` in a terminal of its own, or presses
// Ctrl-C in it).
type labCommand struct {
	line     int
	args     []string
	expected []string
	// control is "start" or "stop" for a controller process named
	// controller, started with the flags controllerArgs
	// (`<!-- lab-start: foo --serviceaccount default/foo -->`); args and
	// expected are empty then.
	control, controller string
	controllerArgs      []string
	// script is a ```sh block the lab marks <!-- lab-run --> (control
	// "sh"): shell lines the student types to make files the server
	// reads, such as a CNI plugin and its configuration.
	script []string
}

// labDoc is a parsed lab.
type labDoc struct {
	// start is the line of the start block (0: the lab has none), and
	// serverFlags the flags of its `kubesim serve`.
	start       int
	serverFlags []string
	commands    []labCommand
}

// The start block of a lab: a fresh data directory, then the server with
// the flags the lab's outputs need (the node count, the stage delay).
const (
	labFreshLine = "rm -rf .data"
	labServe     = "kubesim serve"
)

// labControlRe is a comment that starts or stops a controller process.
var labControlRe = regexp.MustCompile(`^<!--\s*lab-(start|stop):\s*([a-z0-9-]+)((?:\s+--?[a-z-]+(?:[ =][^\s-][^\s]*)?)*)\s*-->$`)

// labRunComment marks the ```sh block after it as one the test runs.
const labRunComment = "<!-- lab-run -->"

// parseLab extracts the start block and the console blocks of a lab.
func parseLab(text string) (labDoc, error) {
	var doc labDoc
	inBlock := false
	// run: the next ```sh block is run (labRunComment).
	run := false
	// other is the fence of a block that is not a console block (```sh,
	// ```yaml ...), "" outside one; otherLines its lines, from otherStart.
	var other string
	var otherLines []string
	otherStart := 0
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case other != "" && trimmed == "```":
			if run {
				if other != "```sh" {
					return doc, fmt.Errorf("line %d: %s marks a ```sh block, not %s", otherStart, labRunComment, other)
				}
				doc.commands = append(doc.commands, labCommand{line: otherStart, control: "sh", script: otherLines})
				run = false
			} else if err := doc.startBlock(other, otherStart, otherLines); err != nil {
				return doc, err
			}
			other, otherLines = "", nil
		case other != "":
			otherLines = append(otherLines, trimmed)
		case !inBlock && trimmed == "```console":
			inBlock = true
		case !inBlock && strings.HasPrefix(trimmed, "```"):
			other, otherStart = trimmed, i+1
		case !inBlock && strings.HasPrefix(trimmed, "<!-- lab-server"):
			// The server's flags were once a comment the student never
			// read; they are the start block's now, and a comment would
			// be silently ignored.
			return doc, fmt.Errorf("line %d: a lab-server comment: put the flags on the start block's %q line", i+1, labServe)
		case !inBlock && trimmed == labRunComment:
			run = true
		case !inBlock && labControlRe.MatchString(trimmed):
			m := labControlRe.FindStringSubmatch(trimmed)
			doc.commands = append(doc.commands, labCommand{line: i + 1, control: m[1], controller: m[2], controllerArgs: strings.Fields(m[3])})
		case inBlock && trimmed == "```":
			inBlock = false
		case inBlock && strings.HasPrefix(line, "$ "):
			args, err := splitCommand(line[2:])
			if err != nil {
				return doc, fmt.Errorf("line %d: %w", i+1, err)
			}
			if len(args) == 0 || (args[0] != "kubectl" && args[0] != "kubesim") {
				return doc, fmt.Errorf("line %d: a lab command must start with kubectl or kubesim: %q", i+1, line)
			}
			doc.commands = append(doc.commands, labCommand{line: i + 1, args: args})
		case inBlock:
			if len(doc.commands) == 0 {
				return doc, fmt.Errorf("line %d: output before any command", i+1)
			}
			c := &doc.commands[len(doc.commands)-1]
			if c.control != "" {
				return doc, fmt.Errorf("line %d: output before any command", i+1)
			}
			c.expected = append(c.expected, line)
		}
	}
	if inBlock || other != "" {
		return doc, fmt.Errorf("a code block is not closed")
	}
	if run {
		return doc, fmt.Errorf("%s is not followed by a ```sh block", labRunComment)
	}
	return doc, nil
}

// startBlock takes the server's flags from a ```sh block that starts a
// server: exactly `rm -rf .data` then `kubesim serve FLAGS`, as the
// student types them (a server on the last lab's data would show its
// objects and its nodes). Other blocks are left alone.
func (doc *labDoc) startBlock(fence string, line int, lines []string) error {
	serves := false
	for _, l := range lines {
		serves = serves || strings.HasPrefix(l, labServe+" ") || l == labServe
	}
	if fence != "```sh" || !serves {
		return nil
	}
	if len(lines) != 2 || lines[0] != labFreshLine || !strings.HasPrefix(lines[1]+" ", labServe+" ") {
		return fmt.Errorf("line %d: a start block is the two lines %q and %q, a fresh data directory and the server: %q",
			line, labFreshLine, labServe+" FLAGS", lines)
	}
	if doc.start != 0 {
		return fmt.Errorf("line %d: a second start block (the first is on line %d): a lab starts one server", line, doc.start)
	}
	args, err := splitCommand(lines[1])
	if err != nil {
		return fmt.Errorf("line %d: %w", line, err)
	}
	doc.start, doc.serverFlags = line, args[2:]
	return nil
}

// serveMentionRe finds `kubesim serve FLAGS` in a lab's prose (an inline
// code span, which may wrap) or on a line of a code block.
var serveMentionRe = regexp.MustCompile("(?m)`kubesim serve( [^`]+)`|^[ \t]*kubesim serve( .+)$")

// serveMentions checks what a lab says about its server after its start
// block: a `kubesim serve` with flags is this server started again (the
// data directory it made, unless --data-dir names another), so it gives
// the start's --nodes — a Node left without its kubelet goes NotReady and
// its pods are evicted — and a --controllers that only takes controllers
// away keeps "*" (without it, "-job" turns every controller off).
func serveMentions(text string, doc labDoc) []error {
	nodes := func(flags []string) string {
		for i, f := range flags {
			if f == "--nodes" && i+1 < len(flags) {
				return flags[i+1]
			}
			if v, ok := strings.CutPrefix(f, "--nodes="); ok {
				return v
			}
		}
		return "3" // serve's default
	}
	want := nodes(doc.serverFlags)
	// The start block is four lines from doc.start: its fences, rm, serve.
	startOffset := 0
	for i, l := range strings.SplitAfter(text, "\n") {
		if i >= doc.start+3 {
			break
		}
		startOffset += len(l)
	}
	var errs []error
	for _, m := range serveMentionRe.FindAllStringSubmatchIndex(text, -1) {
		if doc.start == 0 || m[0] < startOffset {
			continue
		}
		line := strings.Count(text[:m[0]], "\n") + 1
		var raw string
		if m[2] >= 0 {
			raw = text[m[2]:m[3]]
		} else {
			raw = text[m[4]:m[5]]
		}
		flags, err := splitCommand(strings.ReplaceAll(raw, "\n", " "))
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w", line, err))
			continue
		}
		if slices.ContainsFunc(flags, func(f string) bool { return f == "--data-dir" || strings.HasPrefix(f, "--data-dir=") }) {
			continue
		}
		if got := nodes(flags); got != want {
			errs = append(errs, fmt.Errorf("line %d: `kubesim serve %s` starts the lab's server with %s nodes; its data was made with %s (the start block's --nodes)", line, strings.Join(flags, " "), got, want))
		}
		for i, f := range flags {
			v, ok := strings.CutPrefix(f, "--controllers=")
			if !ok && f == "--controllers" && i+1 < len(flags) {
				v, ok = flags[i+1], true
			}
			if ok && !strings.Contains(v, "*") && !slices.ContainsFunc(strings.Split(v, ","), func(c string) bool { return !strings.HasPrefix(c, "-") }) {
				errs = append(errs, fmt.Errorf("line %d: --controllers=%s turns every controller off: write '*,%s' to take some away", line, v, v))
			}
		}
	}
	return errs
}

// splitCommand splits a command line as a POSIX shell would for simple
// words: single quotes keep everything, double quotes allow \" and \\.
func splitCommand(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unclosed \" in %q", s)
			}
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '|' || c == '>' || c == '<' || c == ';' || c == '&' || c == '$' || c == '`':
			return nil, fmt.Errorf("shell syntax %q is not supported in lab commands: %q", c, s)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, nil
}

// placeholders are what a lab writes where the output varies.
var placeholders = map[string]string{
	"<id>":   `[a-z0-9]{5}`,       // a generated name suffix
	"<hash>": `[a-z0-9]{6,10}`,    // a pod-template-hash
	"<age>":  `(\d+[smhd])+`,      // kubectl's AGE column
	"<ip>":   `10\.\d+\.\d+\.\d+`, // a pod IP
	"<node>": `node-\d+`,          // any node
	"<n>":    `\d+`,               // any number
	"<any>":  `.*?`,               // anything on the line
}

var placeholderRe = regexp.MustCompile(`<(id|hash|age|ip|node|n|any)>`)

// labPattern is expected output as line patterns: placeholders match what
// varies, a run of spaces matches any run of two or more (columns widen
// with names), and a line "..." matches any number of lines.
type labPattern []*regexp.Regexp

func newLabPattern(expected []string) labPattern {
	var p labPattern
	for _, line := range expected {
		line = strings.TrimRight(line, " ")
		if line == "..." {
			p = append(p, nil)
			continue
		}
		var b strings.Builder
		b.WriteString(`\A`)
		last := 0
		for _, loc := range placeholderRe.FindAllStringIndex(line, -1) {
			b.WriteString(literal(line[last:loc[0]]))
			b.WriteString(placeholders[line[loc[0]:loc[1]]])
			last = loc[1]
		}
		b.WriteString(literal(line[last:]))
		b.WriteString(`\z`)
		p = append(p, regexp.MustCompile(b.String()))
	}
	return p
}

// MatchString reports whether out (normalized) matches every line.
func (p labPattern) MatchString(out string) bool {
	var lines []string
	if out != "" {
		lines = strings.Split(out, "\n")
	}
	return p.match(0, lines)
}

func (p labPattern) match(i int, lines []string) bool {
	if i == len(p) {
		return len(lines) == 0
	}
	if p[i] == nil {
		for skip := 0; skip <= len(lines); skip++ {
			if p.match(i+1, lines[skip:]) {
				return true
			}
		}
		return false
	}
	return len(lines) > 0 && p[i].MatchString(lines[0]) && p.match(i+1, lines[1:])
}

var spacesRe = regexp.MustCompile(` {2,}`)

func literal(s string) string {
	parts := spacesRe.Split(s, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, ` {2,}`)
}

// normalize trims trailing spaces on every line and trailing blank lines.
func normalize(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// readOnly commands may be retried until their output settles: the
// control loops run live, so a get right after an apply can be early.
func readOnly(args []string) bool {
	if args[0] != "kubectl" || len(args) < 2 {
		return false
	}
	switch args[1] {
	case "get", "describe", "api-resources", "explain", "top":
		return true
	case "rollout":
		return len(args) > 2 && (args[2] == "history" || args[2] == "status")
	}
	return false
}

func TestParseLabAndPatterns(t *testing.T) {
	t.Parallel()
	doc, err := parseLab("Start:\n\n```sh\nrm -rf .data\nkubesim serve --nodes 2 --controllers='*,-job'\n```\n\n```console\n$ kubectl get pods -o jsonpath='{.items[*].metadata.name}'\nweb-<id>  Running   <age>\n...\nend\n```\n")
	require.NoError(t, err)
	assert.Equal(t, []string{"--nodes", "2", "--controllers=*,-job"}, doc.serverFlags)
	assert.Equal(t, 3, doc.start)
	require.Len(t, doc.commands, 1)
	assert.Equal(t, []string{"kubectl", "get", "pods", "-o", "jsonpath={.items[*].metadata.name}"}, doc.commands[0].args)
	re := newLabPattern(doc.commands[0].expected)
	assert.True(t, re.MatchString("web-ab12c   Running     12s\nend"))
	assert.True(t, re.MatchString("web-ab12c  Running  3m4s\nx\ny\nend"))
	assert.False(t, re.MatchString("web-ab12cd  Running  12s\nend"), "a generated suffix has 5 characters")
	assert.False(t, re.MatchString("web-ab12c  Pending  12s\nend"))
	assert.False(t, re.MatchString("web-ab12c Running  12s\nend"), "column gaps are two spaces or more")
	assert.False(t, re.MatchString("web-ab12c  Running  12s\nend\nmore"), "nothing after the last line")
	tail := newLabPattern([]string{"first", "..."})
	assert.True(t, tail.MatchString("first"))
	assert.True(t, tail.MatchString("first\nsecond\nthird"))
	assert.False(t, tail.MatchString("second"))
	assert.True(t, newLabPattern(nil).MatchString(""), "no output expected")
	// A ```sh block marked lab-run is run, in order with the commands;
	// the mark on any other block, or on none, is refused.
	doc, err = parseLab("<!-- lab-run -->\n```sh\nmkdir -p .data/x\ntouch .data/x/y\n```\n```console\n$ kubectl get pods\n```\n")
	require.NoError(t, err)
	require.Len(t, doc.commands, 2)
	assert.Equal(t, "sh", doc.commands[0].control)
	assert.Equal(t, []string{"mkdir -p .data/x", "touch .data/x/y"}, doc.commands[0].script)
	_, err = parseLab("<!-- lab-run -->\n```yaml\nkind: Pod\n```\n")
	assert.ErrorContains(t, err, "marks a ```sh block")
	_, err = parseLab("<!-- lab-run -->\n")
	assert.ErrorContains(t, err, "is not followed by a ```sh block")
	doc, err = parseLab("<!-- lab-start: foo -->\n```console\n$ kubectl get foos\n```\n<!-- lab-stop: foo -->\n")
	require.NoError(t, err)
	require.Len(t, doc.commands, 3)
	assert.Equal(t, "start", doc.commands[0].control)
	assert.Equal(t, "foo", doc.commands[0].controller)
	assert.Equal(t, "stop", doc.commands[2].control)
	doc, err = parseLab("<!-- lab-start: foo --serviceaccount default/foo-controller -->\n")
	require.NoError(t, err)
	require.Len(t, doc.commands, 1)
	assert.Equal(t, []string{"--serviceaccount", "default/foo-controller"}, doc.commands[0].controllerArgs)
	_, err = parseLab("<!-- lab-start: foo -->\n```console\nstray\n```\n")
	assert.ErrorContains(t, err, "output before any command")
	_, err = parseLab("```console\n$ kubectl get pods | wc -l\n```\n")
	assert.ErrorContains(t, err, "not supported")
	_, err = parseLab("```console\n$ rm -rf /\n```\n")
	assert.ErrorContains(t, err, "must start with kubectl or kubesim")
	_, err = parseLab("```console\n$ kubectl get pods\n")
	assert.ErrorContains(t, err, "not closed")
	// Other blocks are not run, and a server started elsewhere is not the
	// lab's start.
	doc, err = parseLab("```yaml\n$ kubectl get pods\n```\n```sh\nmake build\n./bin/kubesim serve --nodes 0 &\n```\n    kubesim serve --local-image a=b\n")
	require.NoError(t, err)
	assert.Empty(t, doc.commands)
	assert.Zero(t, doc.start)
	_, err = parseLab("```sh\nkubesim serve --nodes 3\n```\n")
	assert.ErrorContains(t, err, "a fresh data directory and the server", "a start block starts from a fresh data directory")
	_, err = parseLab("```sh\nrm -rf .data\nkubesim serve\nkubectl get nodes\n```\n")
	assert.ErrorContains(t, err, "a start block is the two lines")
	_, err = parseLab("```sh\nrm -rf .data\nkubesim serve\n```\n```sh\nrm -rf .data\nkubesim serve --nodes 1\n```\n")
	assert.ErrorContains(t, err, "a second start block (the first is on line 1)")
	_, err = parseLab("```sh\nrm -rf .data\n")
	assert.ErrorContains(t, err, "not closed")
	_, err = parseLab("<!-- lab-server: --nodes 3 -->\n")
	assert.ErrorContains(t, err, "line 1: a lab-server comment: put the flags on the start block's \"kubesim serve\" line")
}

func TestLabs(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is required for the lab tests: %v", err)
	}
	files, err := filepath.Glob("../../docs/labs/[0-9]*.md")
	require.NoError(t, err)
	require.NotEmpty(t, files, "the labs")
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			// Each lab has its own server, data directory and kubectl
			// cache, and most of a lab's time is waiting (stage delays,
			// back-offs, the HPA's sync period): labs run side by side.
			t.Parallel()
			text, err := os.ReadFile(f)
			require.NoError(t, err)
			doc, err := parseLab(string(text))
			require.NoError(t, err)
			require.NotEmpty(t, doc.commands, "a lab has commands to run")
			require.NotZero(t, doc.start, "%s: a lab says how to start its server, before its first command: a ```sh block with %q and %q", f, labFreshLine, labServe+" FLAGS")
			require.Less(t, doc.start, doc.commands[0].line, "%s: the start block comes before the first command", f)
			runLab(t, root, f, doc)
		})
	}
}

func runLab(t *testing.T, root, file string, doc labDoc) {
	// A fresh data directory, as the start block's `rm -rf .data`, and
	// the student's flags, no others: the outputs are those the student's
	// server gives. As root its sandboxes are network namespaces, which
	// outlive the server and are released before the directory goes.
	dataDir := cnitest.DataDir(t)
	s := startServer(t, dataDir, fromRoot(root, inDataDir(dataDir, doc.serverFlags))...)
	k := newKubectl(t, s)
	running := map[string]func(){}
	for _, c := range doc.commands {
		switch c.control {
		case "start":
			require.NotContains(t, running, c.controller, "%s:%d: the controller runs already", file, c.line)
			switch c.controller {
			case labCSIDriver:
				running[c.controller] = startCSIDriver(t, inDataDir(dataDir, c.controllerArgs)...)
				continue
			case labScheduler:
				running[c.controller] = startLabScheduler(t, s.kubeconfig, fromRoot(root, c.controllerArgs)...)
				continue
			case labExtender:
				running[c.controller] = startLabExtender(t, c.controllerArgs...)
				continue
			}
			running[c.controller] = startStoppableController(t, c.controller, s.kubeconfig, c.controllerArgs...)
			continue
		case "stop":
			stop, ok := running[c.controller]
			require.True(t, ok, "%s:%d: the controller %s does not run", file, c.line, c.controller)
			stop()
			delete(running, c.controller)
			continue
		case "sh":
			runLabScript(t, root, dataDir, file, c)
			continue
		}
		want := newLabPattern(c.expected)
		// Up to a minute: lab 14's HPA syncs every 15 seconds on metrics
		// up to 15 seconds old, and doubles at most per sync.
		deadline := time.Now().Add(60 * time.Second)
		var out string
		for {
			out = normalize(runLabCommand(t, root, k, inDataDir(dataDir, c.args)))
			if want.MatchString(out) || !readOnly(c.args) || time.Now().After(deadline) {
				break
			}
			time.Sleep(150 * time.Millisecond)
		}
		if !want.MatchString(out) {
			t.Fatalf("%s:%d: $ %s\nexpected:\n%s\nactual:\n%s", file, c.line, strings.Join(c.args, " "),
				strings.Join(c.expected, "\n"), out)
		}
	}
}

// runLabScript runs a lab's ```sh block as the student would from the
// repository root: in a directory where .data is the lab server's data
// directory and examples the repository's.
func runLabScript(t *testing.T, root, dataDir, file string, c labCommand) {
	t.Helper()
	work := t.TempDir()
	require.NoError(t, os.Symlink(dataDir, filepath.Join(work, ".data")))
	require.NoError(t, os.Symlink(filepath.Join(root, "examples"), filepath.Join(work, "examples")))
	cmd := exec.Command("sh", "-e", "-c", strings.Join(c.script, "\n"))
	cmd.Dir = work
	// kubesim on the PATH is this test binary run as kubesim (a block may
	// start `kubesim device-plugin` in the background).
	self, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(work, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	wrapper := "#!/bin/sh\n" + runAsKubesimEnv + "=1 exec '" + self + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "kubesim"), []byte(wrapper), 0o755))
	// The example modules are built outside any workspace.
	cmd.Env = append(os.Environ(), "GOWORK=off", "PWD="+work, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s:%d: the ```sh block failed:\n%s", file, c.line, out)
}

// inDataDir points the paths a lab writes under .data (the data
// directory of `kubesim serve` run from the repository root: the admin
// kubeconfig, the CA, an audit log, a user's kubeconfig) at the lab
// server's own data directory.
func inDataDir(dataDir string, args []string) []string {
	return mapPathArgs(args, func(path string) string {
		if path == ".data" || strings.HasPrefix(path, ".data/") {
			return filepath.Join(dataDir, strings.TrimPrefix(path, ".data"))
		}
		return path
	})
}

// mapPathArgs rewrites with f what each argument names: the argument, or
// the value of a --flag=VALUE.
func mapPathArgs(args []string, f func(string) string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		flag, path, hasFlag := strings.Cut(a, "=")
		if !hasFlag || !strings.HasPrefix(flag, "-") {
			flag, path = "", a
		}
		path = f(path)
		if flag != "" {
			path = flag + "=" + path
		}
		out[i] = path
	}
	return out
}

// runLabCommand runs kubectl (against the lab's server, from the
// repository root) or kubesim (in process), returning stdout then stderr.
func runLabCommand(t *testing.T, root string, k *kubectl, args []string) string {
	if args[0] == "kubesim" {
		wd, err := os.Getwd()
		require.NoError(t, err)
		var out, errb bytes.Buffer
		rel := make([]string, len(args)-1)
		for i, a := range args[1:] {
			// Files are named from the repository root, as the student
			// types them there.
			if strings.HasSuffix(a, ".yaml") && !filepath.IsAbs(a) {
				a = filepath.Join(root, a)
				if r, err := filepath.Rel(wd, a); err == nil {
					a = r
				}
			}
			rel[i] = a
		}
		runWithInput(context.Background(), rel, strings.NewReader(""), &out, &errb)
		return out.String() + errb.String()
	}
	cmd := k.cmd(args[1:]...)
	cmd.Dir = root
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	return out.String() + errb.String()
}

// labCSIDriver is the process a lab-start comment of that name starts:
// `kubesim csi-driver FLAGS`, the sample CSI driver, rather than a
// controller.
const labCSIDriver = "csi-driver"

// startCSIDriver runs `kubesim csi-driver FLAGS` as its own process and
// returns what stops it as Ctrl-C would.
func startCSIDriver(t *testing.T, flags ...string) func() {
	t.Helper()
	line, stop := startKubesimProcess(t, append([]string{"csi-driver"}, flags...)...)
	require.True(t, strings.HasPrefix(line, "CSI driver "), line)
	return stop
}

// labScheduler and labExtender are the processes lab-start comments of
// those names start: a second scheduler, `kubesim scheduler FLAGS` (with
// the lab server's kubeconfig, the student's $KUBECONFIG), and the sample
// scheduler extender, `kubesim extender FLAGS`.
const (
	labScheduler = "scheduler"
	labExtender  = "extender"
)

// startLabScheduler runs `kubesim scheduler --kubeconfig KUBECONFIG FLAGS`
// and returns what stops it as Ctrl-C would.
func startLabScheduler(t *testing.T, kubeconfig string, flags ...string) func() {
	t.Helper()
	line, stop := startKubesimProcess(t, append([]string{"scheduler", "--kubeconfig", kubeconfig}, flags...)...)
	require.True(t, strings.HasPrefix(line, "scheduler running against "), line)
	return stop
}

// startLabExtender runs `kubesim extender FLAGS` and returns what stops
// it as Ctrl-C would.
func startLabExtender(t *testing.T, flags ...string) func() {
	t.Helper()
	line, stop := startKubesimProcess(t, append([]string{"extender"}, flags...)...)
	require.True(t, strings.HasPrefix(line, "scheduler extender listening on "), line)
	return stop
}

// fromRoot points the arguments that name a file of the repository
// (examples/scheduler/profiles.yaml), as the student types them from its
// root, at that file: the server and the processes run elsewhere.
func fromRoot(root string, args []string) []string {
	return mapPathArgs(args, func(path string) string {
		if !strings.Contains(path, "/") || filepath.IsAbs(path) {
			return path
		}
		if _, err := os.Stat(filepath.Join(root, path)); err != nil {
			return path
		}
		return filepath.Join(root, path)
	})
}

// startStoppableController runs `kubesim run-controller NAME` as its own
// process (this test binary run again as kubesim) and returns what stops
// it as Ctrl-C would; the test's end stops it if the lab did not.
func startStoppableController(t *testing.T, name, kubeconfig string, flags ...string) func() {
	t.Helper()
	line, stop := startKubesimProcess(t, append([]string{"run-controller", name, "--kubeconfig", kubeconfig}, flags...)...)
	require.Equal(t, "controller "+name+" running; stop with Ctrl-C", line)
	return stop
}

func TestServeMentions(t *testing.T) {
	t.Parallel()
	const start = "Before: `kubesim serve --leader-elect` (three of them).\n```sh\nrm -rf .data\nkubesim serve --nodes 2 --stage-delay 20ms\n```\n"
	check := func(text string) []error {
		doc, err := parseLab(text)
		require.NoError(t, err)
		return serveMentions(text, doc)
	}
	assert.Empty(t, check(start+"With `kubesim serve --nodes 2` running. On `kubesim serve`, delete a pod.\n"+
		"Restart it: Ctrl-C, then `kubesim serve --nodes 2\n--controllers='*,-job'`.\n\n    kubesim serve --nodes=2 --local-image a=b\n"+
		"Another cluster: `kubesim serve --data-dir .other --nodes 0`; `kubesim serve --nodes 2 --controllers=job,cronjob`.\n"))
	errs := check(start + "Restart it with `kubesim serve --controllers='*,-job'`.\n")
	require.Len(t, errs, 1)
	assert.ErrorContains(t, errs[0], "line 6: `kubesim serve --controllers=*,-job` starts the lab's server with 3 nodes; its data was made with 2")
	errs = check(start + "\n    kubesim serve --nodes 2 --controllers=-job\n")
	require.Len(t, errs, 1)
	assert.ErrorContains(t, errs[0], "line 7: --controllers=-job turns every controller off: write '*,-job'")
}

// What a lab says about its server after the start block keeps to the
// data the start made (serveMentions), in both editions.
func TestLabsRestartTheirOwnServer(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../docs/labs/[0-9]*.md")
	require.NoError(t, err)
	zh, err := filepath.Glob(filepath.Join("..", "..", "docs", "labs", labsZhDir, "[0-9]*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, zh)
	for _, f := range append(files, zh...) {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		doc, err := parseLab(string(text))
		require.NoError(t, err, f)
		for _, e := range serveMentions(string(text), doc) {
			t.Errorf("%s: %v", f, e)
		}
	}
}
