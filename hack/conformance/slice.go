package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// sliceDir is the module of the fast slice, relative to the repository.
const sliceDir = "hack/conformance/slice"

// buildSlice compiles the slice's test binary into dir. It is a module of
// its own: go test -c there, with the Go build cache doing the rest.
func buildSlice(root, dir string, log io.Writer) (string, error) {
	bin := filepath.Join(dir, "slice.test")
	cmd := exec.Command("go", "test", "-c", "-vet=off", "-o", bin, ".")
	cmd.Dir = filepath.Join(root, sliceDir)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go test -c in %s: %w", sliceDir, err)
	}
	return bin, nil
}

// readSpecList reads specs.txt: one spec's full name a line, as Ginkgo
// prints it; blank lines and lines starting with # are left out.
func readSpecList(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var specs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		specs = append(specs, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("%s names no spec", path)
	}
	return specs, nil
}

// specListFocus is a focus that selects exactly the named specs. Ginkgo
// matches it against the suite's description, a space and the spec's full
// name, so it is anchored at the end only.
func specListFocus(specs []string) string {
	quoted := make([]string, len(specs))
	for i, s := range specs {
		quoted[i] = regexp.QuoteMeta(s)
	}
	return "(" + strings.Join(quoted, "|") + ")$"
}

// sliceVerdict fails unless every spec ran and passed. When the whole list
// of want specs was asked for (all), a spec that did not run fails it too: a spec
// renamed upstream or missing from the slice's imports must not drop out
// of make test unseen.
func sliceVerdict(specs []Spec, want int, all bool, section io.Reader, out io.Writer) error {
	rows := BySIG(specs)
	sum := rows[len(rows)-1]
	if sum.Passed == sum.Total && sum.Total > 0 && (!all || sum.Total == want) {
		return nil
	}
	_, _ = io.Copy(out, section)
	return fmt.Errorf("the fast slice: %d of %d specs passed (specs.txt names %d)", sum.Passed, sum.Total, want)
}
