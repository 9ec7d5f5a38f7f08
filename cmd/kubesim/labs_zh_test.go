package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The labs have a Chinese edition in docs/labs/zh: the same
// file names, the same console blocks, the prose translated. TestLabs runs
// only the English edition; TestLabsChineseEdition proves the Chinese one
// would run the very same commands with the very same expected outputs,
// so the two cannot drift and nothing is run twice.

// labsZhDir is the Chinese edition, relative to docs/labs.
const labsZhDir = "zh"

// labsZhOnly are the pages of the Chinese edition that are not labs.
var labsZhOnly = []string{"README.md", "glossary.md"}

// labEditions pairs the English labs in dir with the Chinese ones in
// dir/zh by file name. missing names each file without its counterpart,
// as a path under dir.
func labEditions(dir string) (pairs [][2]string, missing []string, err error) {
	en, err := filepath.Glob(filepath.Join(dir, "[0-9]*.md"))
	if err != nil {
		return nil, nil, err
	}
	zh, err := filepath.Glob(filepath.Join(dir, labsZhDir, "*.md"))
	if err != nil {
		return nil, nil, err
	}
	zhNames := map[string]bool{}
	for _, f := range zh {
		if name := filepath.Base(f); !slices.Contains(labsZhOnly, name) {
			zhNames[name] = true
		}
	}
	for _, f := range en {
		name := filepath.Base(f)
		if !zhNames[name] {
			missing = append(missing, filepath.Join(labsZhDir, name)+" (the Chinese edition of "+name+")")
			continue
		}
		delete(zhNames, name)
		pairs = append(pairs, [2]string{f, filepath.Join(dir, labsZhDir, name)})
	}
	var extra []string
	for name := range zhNames {
		extra = append(extra, name+" (the English lab of "+filepath.Join(labsZhDir, name)+")")
	}
	slices.Sort(extra)
	return pairs, append(missing, extra...), nil
}

// compareLabEditions reports the first place where the Chinese edition
// of a lab would run something else than the English one: the server's
// flags, a command, its expected output, a controller started or stopped.
func compareLabEditions(en, zh labDoc) error {
	if !slices.Equal(en.serverFlags, zh.serverFlags) {
		return fmt.Errorf("the server's flags differ: %q in English, %q in Chinese", en.serverFlags, zh.serverFlags)
	}
	for i := 0; i < max(len(en.commands), len(zh.commands)); i++ {
		if i >= len(en.commands) {
			return fmt.Errorf("the Chinese edition has more commands: line %d: %s", zh.commands[i].line, describeLabCommand(zh.commands[i]))
		}
		if i >= len(zh.commands) {
			return fmt.Errorf("the Chinese edition misses a command: English line %d: %s", en.commands[i].line, describeLabCommand(en.commands[i]))
		}
		e, z := en.commands[i], zh.commands[i]
		if describeLabCommand(e) != describeLabCommand(z) {
			return fmt.Errorf("command %d differs: English line %d: %s; Chinese line %d: %s",
				i+1, e.line, describeLabCommand(e), z.line, describeLabCommand(z))
		}
		if !slices.Equal(e.expected, z.expected) {
			return fmt.Errorf("the expected output of command %d (%s) differs: English line %d:\n%s\nChinese line %d:\n%s",
				i+1, describeLabCommand(e), e.line, strings.Join(e.expected, "\n"), z.line, strings.Join(z.expected, "\n"))
		}
	}
	return nil
}

// fencedBlock is a fenced code block of a lab (```console, ```yaml,
// ```go ...), fences included, and the line it starts on.
type fencedBlock struct {
	line int
	text string
}

// fencedBlocks lists a lab's fenced code blocks in order.
func fencedBlocks(text string) []fencedBlock {
	var out []fencedBlock
	var cur []string
	start := 0
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur, start = []string{line}, i+1
		case cur != nil:
			cur = append(cur, line)
			if trimmed == "```" {
				out = append(out, fencedBlock{line: start, text: strings.Join(cur, "\n")})
				cur = nil
			}
		}
	}
	return out
}

// compareCodeBlocks reports the first fenced code block that is not the
// same, byte for byte, in both editions: the manifests and programs a lab
// shows are not translated either (the glossary's rule), so a fix to one
// edition's YAML cannot miss the other.
func compareCodeBlocks(en, zh string) error {
	a, b := fencedBlocks(en), fencedBlocks(zh)
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i].text != b[i].text {
			return fmt.Errorf("code block %d differs: English line %d:\n%s\nChinese line %d:\n%s", i+1, a[i].line, a[i].text, b[i].line, b[i].text)
		}
	}
	if len(a) != len(b) {
		return fmt.Errorf("the English edition has %d code blocks, the Chinese one %d", len(a), len(b))
	}
	return nil
}

// describeLabCommand renders a command or a controller start/stop in one
// line, arguments quoted (so "a b" and "a" "b" differ).
func describeLabCommand(c labCommand) string {
	if c.control != "" {
		return fmt.Sprintf("lab-%s %s %q %q", c.control, c.controller, c.controllerArgs, c.script)
	}
	return fmt.Sprintf("$ %q", c.args)
}

func TestLabsChineseEdition(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "docs", "labs")
	pairs, missing, err := labEditions(dir)
	require.NoError(t, err)
	for _, m := range missing {
		t.Errorf("docs/labs/%s is missing: every lab has an English and a Chinese edition", filepath.ToSlash(m))
	}
	for _, p := range pairs {
		t.Run(filepath.Base(p[0]), func(t *testing.T) {
			var docs [2]labDoc
			var texts [2]string
			for i, f := range p {
				text, err := os.ReadFile(f)
				require.NoError(t, err)
				texts[i] = string(text)
				docs[i], err = parseLab(texts[i])
				require.NoError(t, err, f)
			}
			require.NotEmpty(t, docs[0].commands, "a lab has commands to run")
			assert.NoError(t, compareLabEditions(docs[0], docs[1]), "%s against %s", p[1], p[0])
			assert.NoError(t, compareCodeBlocks(texts[0], texts[1]), "%s against %s", p[1], p[0])
		})
	}
}

func TestLabEditionsPairing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "zh"), 0o755))
	for _, f := range []string{"README.md", "01-a.md", "02-b.md", "zh/README.md", "zh/glossary.md", "zh/01-a.md", "zh/03-c.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	pairs, missing, err := labEditions(dir)
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{filepath.Join(dir, "01-a.md"), filepath.Join(dir, "zh", "01-a.md")}}, pairs)
	assert.Equal(t, []string{
		filepath.Join("zh", "02-b.md") + " (the Chinese edition of 02-b.md)",
		"03-c.md (the English lab of " + filepath.Join("zh", "03-c.md") + ")",
	}, missing)
}

func TestCompareLabEditions(t *testing.T) {
	t.Parallel()
	const en = "```sh\nrm -rf .data\nkubesim serve --nodes 2\n```\n学\n```console\n$ kubectl get pods\nNAME  READY\nweb-<id>  1/1\n```\n<!-- lab-start: foo --serviceaccount default/foo -->\n```console\n$ kubectl get foos 'a b'\n```\n<!-- lab-stop: foo -->\n"
	parse := func(text string) labDoc {
		doc, err := parseLab(text)
		require.NoError(t, err)
		return doc
	}
	base := parse(en)
	// Prose may differ, and so may line numbers.
	assert.NoError(t, compareLabEditions(base, parse("# 实验\n\n说明文字\n"+strings.ReplaceAll(en, "学", "控制器和解循环\n更多"))))
	for name, c := range map[string]struct{ from, to, want string }{
		"server flags":      {"--nodes 2", "--nodes 3", "the server's flags differ"},
		"a command":         {"get pods", "get pod", "command 1 differs"},
		"quoting":           {"'a b'", "a b", "command 3 differs"},
		"an expected line":  {"1/1", "0/1", "expected output of command 1"},
		"a missing line":    {"NAME  READY\n", "", "expected output of command 1"},
		"controller flags":  {"default/foo -->", "default/bar -->", "command 2 differs"},
		"a controller stop": {"<!-- lab-stop: foo -->\n", "", "misses a command: English line 15: lab-stop foo"},
		"an extra command":  {"<!-- lab-stop: foo -->\n", "<!-- lab-stop: foo -->\n```console\n$ kubectl get nodes\n```\n", "has more commands"},
	} {
		t.Run(name, func(t *testing.T) {
			drifted := strings.Replace(en, c.from, c.to, 1)
			require.NotEqual(t, en, drifted)
			assert.ErrorContains(t, compareLabEditions(base, parse(drifted)), c.want)
		})
	}
}

func TestCompareCodeBlocks(t *testing.T) {
	t.Parallel()
	const en = "Apply it:\n\n```yaml\nkind: Pod\n```\n\n1. Then:\n   ```go\nfunc f() {}\n   ```\n"
	assert.NoError(t, compareCodeBlocks(en, strings.ReplaceAll(strings.ReplaceAll(en, "Apply it:", "应用它：\n\n再读一遍"), "Then:", "然后：")))
	assert.ErrorContains(t, compareCodeBlocks(en, strings.Replace(en, "kind: Pod", "kind: Pod # 注释", 1)), "code block 1 differs: English line 3:")
	assert.ErrorContains(t, compareCodeBlocks(en, strings.Replace(en, "   ```go", "```go", 1)), "code block 2 differs")
	assert.ErrorContains(t, compareCodeBlocks(en, en+"\n```sh\nls\n```\n"), "the English edition has 2 code blocks, the Chinese one 3")
	assert.Equal(t, []fencedBlock{{3, "```yaml\nkind: Pod\n```"}, {8, "   ```go\nfunc f() {}\n   ```"}}, fencedBlocks(en))
}

// A Chinese reader who steps through a lab's scenario as the Chinese
// edition says gets the stepper's lines and the scenario's notes in
// Chinese: every `kubesim scenario step` it shows carries --lang zh
// (without it the stepper speaks English).
func TestLabsChineseEditionStepsInChinese(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "labs", labsZhDir, "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	steps := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, line := range strings.Split(string(text), "\n") {
			if !strings.Contains(line, "kubesim scenario step ") {
				continue
			}
			steps++
			assert.Contains(t, line, "--lang zh", "%s:%d", f, i+1)
		}
	}
	assert.NotZero(t, steps, "the Chinese labs show how to step through their scenarios")
}
