package doclinks

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// linkRE matches a Markdown inline link or image: [text](target).
var linkRE = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// Broken returns the relative link targets of the Markdown file at path
// that do not exist. URLs (scheme:...) and in-page anchors are skipped; an
// anchor after a path is dropped before the check. Links inside code
// blocks and code spans are not links.
func Broken(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	inFence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(withoutCodeSpans(line), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			file, _, _ := strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(filepath.Dir(path), filepath.FromSlash(file))); err != nil {
				out = append(out, target)
			}
		}
	}
	return out, nil
}

// withoutCodeSpans blanks `code` in a line.
func withoutCodeSpans(line string) string {
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = ""
	}
	return strings.Join(parts, "`")
}
