package words

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cases below split their words with a middle dot, taken out before
// the match: written whole, they would be lines of this file that the
// repository's check reports.
func unsplit(s string) string { return strings.ReplaceAll(s, "·", "") }

// No line of the repository names a tracker item or a work period.
func TestNoTrackerNumbersInTheRepository(t *testing.T) {
	files, err := Files("../..")
	require.NoError(t, err)
	require.Contains(t, files, "hack/words/words_test.go", "the check must list the repository's files, this one among them")
	findings, err := Check("../..")
	require.NoError(t, err)
	if len(findings) > 0 {
		lines := make([]string, len(findings))
		for i, f := range findings {
			lines[i] = f.String()
		}
		t.Errorf("%d lines name a tracker item or a work period, which the next reader cannot open; "+
			"say what the number stood for, or nothing (the rule: hack/words/doc.go):\n%s",
			len(findings), strings.Join(lines, "\n"))
	}
}

func TestNames(t *testing.T) {
	for _, line := range []string{
		"see is·sue 12",
		"// The claims come first: the pod mounts them (is·sue 12 part 4).",
		"tried in ses·sion 8",
		"Ses·sions 6 and 7",
		"fixed in is·sue #7",
		"the tables of #12 pa·rt 4",
		"#12, pa·rts 3 and 6",
		"IS·SUE 14",
		"is·sue 14's first slice",
		"is·sues 12 and 13",
		"as ro·und 3 found",
		"Ro·und 2: the watch cache",
		"the end of is·sue 12.",
		"func TestIs·sue15(t *testing.T)",
		"ses·sion-8",
		"is·sue_12",
		"is·sue15",
		"# Ses·sion 5's figures",
	} {
		assert.True(t, Names(unsplit(line)), "must be reported: %q", unsplit(line))
	}
	for _, line := range []string{
		"an is·sue with the watch",
		"round 1,000 nodes",
		"about round 2.5 seconds",
		"wraps round to 10.0",
		"the ses·sion ends",
		"a ses·sion opened by the login link",
		"it is·sues the token",
		"Tokens is·sues and checks service account tokens",
		"ses·sionID 12",
		"is·sued 5 tokens",
		"the is·suer 2",
		"tis·sue 5",
		"PKCS #8",
		"kubernetes/kubernetes#101350",
		"https://github.com/kubernetes/kubernetes/is·sues/101350",
		"lab 15 points at it",
		"part 2 of the lab",
		"sessions *sessions",
	} {
		assert.False(t, Names(unsplit(line)), "must pass: %q", unsplit(line))
	}
}

// A name broken over two lines is reported once, at its first line; a
// quantity broken over two is not a name.
func TestScanReadsALineWithTheNextOnesStart(t *testing.T) {
	content := unsplit("package p\n\n// on a warm one (is·sue\n// 15's targets: under 100 ms).\n" +
		"// one for is·sue 3, and\n//  is·sue 4 on the next line\n" +
		"# a YAML comment about the ses·sion\n#   8 figures\n" +
		"// the last line names ses·sion 2")
	assert.Equal(t, []Finding{
		{"p.go", 3, "// on a warm one (" + unsplit("is·sue")},
		{"p.go", 5, unsplit("// one for is·sue 3, and")},
		{"p.go", 6, unsplit("//  is·sue 4 on the next line")},
		{"p.go", 7, unsplit("# a YAML comment about the ses·sion")},
		{"p.go", 9, unsplit("// the last line names ses·sion 2")},
	}, Scan("p.go", []byte(content)))
	assert.Empty(t, Scan("p.md", []byte("the cluster grew to round\n1,000 nodes\n")))
}

func TestChecked(t *testing.T) {
	for _, p := range []string{"main.go", "cmd/kubesim/app/app.go", "README.md", "docs/labs/zh/README.md",
		"examples/operators/web.yaml", "operators/foo/crd.yml", "Makefile", "examples/steward-operator/Makefile",
		".ci/run", "ui/assets/app.js", "ui/assets/index.html", "cmd/kubesim/testdata/demo.golden",
		"apiserver/protobuf/testdata/golden/pod.hex", "testdata/x.txt"} {
		assert.True(t, Checked(p), p)
	}
	for _, p := range []string{"go.mod", "go.sum", ".gitignore", "ui/page.png", "notes.txt", "run", "e2e/go.sum"} {
		assert.False(t, Checked(p), p)
	}
}

// The check can fail: in a tree that is not a git repository (the walk),
// every checked file's offending lines are reported with their path and
// line, and unchecked, binary and .git files are not read.
func TestCheckReportsPathAndLine(t *testing.T) {
	root := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(unsplit(content)), 0o644))
	}
	write("a/claims.go", "package a\n\n// The claims come first (is·sue 12 part 4).\nfunc f() {}\n")
	write("docs/perf.md", "# Performance\n\nround 1,000 nodes\n\n## After ses·sion 8\n")
	write("Makefile", "bench:\n\t# the ro·und 3 targets\n")
	write("a/testdata/out.golden", "fine\nis·sue 9\n")
	write("notes.txt", "is·sue 1\n")
	write("a/testdata/blob.bin", "\x00is·sue 2\n")
	write(".git/HEAD", "is·sue 3\n")
	write("a/clean.go", "package a\n\n// an is·sue with the watch\n")

	findings, err := Check(root)
	require.NoError(t, err)
	var got []string
	for _, f := range findings {
		got = append(got, f.String())
	}
	assert.ElementsMatch(t, []string{
		unsplit("a/claims.go:3: // The claims come first (is·sue 12 part 4)."),
		unsplit("docs/perf.md:5: ## After ses·sion 8"),
		unsplit("Makefile:2: # the ro·und 3 targets"),
		unsplit("a/testdata/out.golden:2: is·sue 9"),
	}, got)
}
