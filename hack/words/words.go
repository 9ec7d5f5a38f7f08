package words

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// The pattern is put together from pieces, so that this file does not
// match it itself.
var (
	// keyword is the word before the number: a whole word in any case,
	// or the capitalized tail of a camel-case name (TestIs...).
	keyword = `(?:\b(?i:` + alternatives("issue", "session", "round") + `)|` + alternatives("Issue", "Session") + `)`
	// number is what may stand between the word and the number, the
	// number, and what follows it: not a digit, and not a comma or point
	// that goes on with digits (a quantity: 1,000 or 2.5).
	number = `[ \t_-]*#?\d+(?:[^\d,.]|[,.](?:\D|$)|$)`
	// part is a tracker item's part: #12, the word part, a number.
	part = `#\d+,? ` + alternatives("part") + ` \d`

	pattern = regexp.MustCompile(keyword + number + `|` + part)
)

// alternatives is a regexp alternation of the words and their plurals.
func alternatives(words ...string) string {
	for i, w := range words {
		words[i] = w + "s?"
	}
	return strings.Join(words, "|")
}

// Names reports whether text names a tracker item or a work period (the
// rule is in the package's doc).
func Names(text string) bool { return mayName(text) && pattern.MatchString(text) }

// mayName is a quick look before the pattern, which is slow on a whole
// repository (seconds, and a minute under -race): a name has a digit, and
// a number sign or one of the words.
func mayName(text string) bool {
	if !strings.ContainsAny(text, "0123456789") {
		return false
	}
	if strings.Contains(text, "#") {
		return true
	}
	lower := strings.ToLower(text)
	return strings.Contains(lower, "issue") || strings.Contains(lower, "session") || strings.Contains(lower, "round")
}

// Finding is a line that names a tracker item or a work period.
type Finding struct {
	Path string // slash-separated, relative to the root checked
	Line int    // from 1
	Text string // the line, trimmed
}

func (f Finding) String() string { return fmt.Sprintf("%s:%d: %s", f.Path, f.Line, f.Text) }

// continuation is what a line may start with before its words: spaces
// and a comment or list mark.
var continuation = regexp.MustCompile(`^\s*(?://+|#+|\*+|>+|-+|;+)?\s*`)

// Scan returns the lines of content that name a tracker item or a work
// period. A name broken over two lines (the word at the end of one, the
// number at the start of the next) is reported at its first line.
func Scan(name string, content []byte) []Finding {
	lines := strings.Split(string(content), "\n")
	var out []Finding
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		joined := line
		if i+1 < len(lines) {
			next := strings.TrimSuffix(lines[i+1], "\r")
			joined += " " + next[len(continuation.FindString(next)):]
		}
		// A match that starts on this line, whether it ends on it or on
		// the next; one that starts on the next is the next line's.
		if !mayName(joined) {
			continue
		}
		for _, m := range pattern.FindAllStringIndex(joined, -1) {
			if m[0] < len(line) {
				out = append(out, Finding{Path: name, Line: i + 1, Text: strings.TrimSpace(line)})
				break
			}
		}
	}
	return out
}

// Checked reports whether the check reads the file at the slash-separated
// path, relative to the repository's root.
func Checked(p string) bool {
	switch path.Ext(p) {
	case ".go", ".md", ".yaml", ".yml":
		return true
	}
	switch {
	case path.Base(p) == "Makefile", p == ".ci/run", strings.HasPrefix(p, "ui/assets/"):
		return true
	}
	return strings.HasPrefix(p, "testdata/") || strings.Contains(p, "/testdata/")
}

// Files lists the repository's files under root, slash-separated and
// relative to it: git's tracked files and the new ones it does not
// ignore, or, when git is not there (not installed, not a repository),
// every file of a walk of the tree but .git.
func Files(root string) ([]string, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return walk(root)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// walk lists the files under root but those in .git directories.
func walk(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files, err
}

// Check scans every checked text file of the repository at root. A file
// listed but gone (deleted, not yet committed) is skipped, and so is a
// binary one (it holds a NUL byte).
func Check(root string) ([]Finding, error) {
	files, err := Files(root)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, f := range files {
		if !Checked(f) {
			continue
		}
		content, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if bytes.IndexByte(content, 0) >= 0 {
			continue
		}
		out = append(out, Scan(f, content)...)
	}
	return out, nil
}
