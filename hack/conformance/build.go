package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Versions of what the run uses. KubernetesVersion matches the kubectl
// installed on these machines (kubectl's dispatcher picks the client by
// the server's minor, 32); the staging modules are published as
// v0.<minor>.<patch> of the same release. GinkgoVersion is the version
// k8s.io/kubernetes v1.32.4 requires: the CLI and the library it drives
// must agree.
const (
	KubernetesVersion = "v1.32.4"
	StagingVersion    = "v0.32.4"
	GinkgoVersion     = "v2.21.0"
)

// unpublished are staging modules the module proxy does not serve. e2e
// does not import them, so a go.mod naming the module satisfies the
// replace directive that points at them.
var unpublished = map[string]bool{
	"k8s.io/sample-cli-plugin": true,
	"k8s.io/sample-controller": true,
}

// stagingReplace matches go.mod's `k8s.io/X => ./staging/src/k8s.io/X`.
var stagingReplace = regexp.MustCompile(`(?m)^\s*(k8s\.io/[A-Za-z0-9._-]+)\s+=>\s+\./staging/src/(k8s\.io/[A-Za-z0-9._-]+)\s*$`)

// StagingModules returns the modules k8s.io/kubernetes's go.mod replaces
// with a directory under staging/src, in the order it names them.
func StagingModules(gomod []byte) []string {
	var mods []string
	for _, m := range stagingReplace.FindAllSubmatch(gomod, -1) {
		mods = append(mods, string(m[1]))
	}
	return mods
}

// builder prepares the k8s.io/kubernetes source tree and builds e2e.test.
type builder struct {
	cacheDir string    // ~/.cache/kubesim/conformance/<version>
	log      io.Writer // progress for the person waiting
}

// E2ETest returns the path of e2e.test, building it when the cache does
// not hold one. The build takes minutes of CPU; its duration is kept
// beside the binary for the report.
func (b *builder) E2ETest() (string, error) {
	bin := filepath.Join(b.cacheDir, "e2e.test")
	if _, err := os.Stat(bin); err == nil {
		fmt.Fprintf(b.log, "reusing %s\n", bin)
		return bin, nil
	}
	src, err := b.source()
	if err != nil {
		return "", err
	}
	fmt.Fprintf(b.log, "building e2e.test in %s (minutes)\n", src)
	start := time.Now()
	tmp := bin + ".tmp"
	cmd := exec.Command("go", "test", "-vet=off", "-c", "-o", tmp, "./test/e2e")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	cmd.Stdout, cmd.Stderr = b.log, b.log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go test -c ./test/e2e: %w", err)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	took := time.Since(start).Round(time.Second)
	fmt.Fprintf(b.log, "built e2e.test in %s\n", took)
	_ = os.WriteFile(filepath.Join(b.cacheDir, "build-duration"), []byte(took.String()+"\n"), 0o644)
	return bin, nil
}

// source returns a writable copy of k8s.io/kubernetes with staging/src
// filled, making it on first use.
func (b *builder) source() (string, error) {
	src := filepath.Join(b.cacheDir, "src")
	done := filepath.Join(src, ".kubesim-staging-filled")
	if _, err := os.Stat(done); err == nil {
		return src, nil
	}
	if err := os.RemoveAll(src); err != nil {
		return "", err
	}
	dir, err := download("k8s.io/kubernetes@" + KubernetesVersion)
	if err != nil {
		return "", err
	}
	if err := copyTree(dir, src); err != nil {
		return "", err
	}
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, mod := range StagingModules(gomod) {
		dst := filepath.Join(src, "staging", "src", filepath.FromSlash(mod))
		if unpublished[mod] {
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(dst, "go.mod"), []byte("module "+mod+"\n"), 0o644); err != nil {
				return "", err
			}
			continue
		}
		dir, err := download(mod + "@" + StagingVersion)
		if err != nil {
			return "", err
		}
		if err := copyTree(dir, dst); err != nil {
			return "", err
		}
	}
	return src, os.WriteFile(done, nil, 0o644)
}

// download fetches a module through the module proxy and returns the
// directory of its (read-only) copy in the module cache.
func download(modVersion string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", modVersion)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	var out bytes.Buffer
	cmd.Stdout = &out
	runErr := cmd.Run()
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		return "", fmt.Errorf("go mod download %s: %v %v", modVersion, runErr, err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", modVersion, m.Error)
	}
	return m.Dir, nil
}

// copyTree copies a directory tree, making every copy writable (the
// module cache's files are read-only, and go build must write go.sum).
func copyTree(from, to string) error {
	return filepath.Walk(from, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm()|0o200)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, bufio.NewReader(in)); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// Ginkgo returns the path of the ginkgo CLI at GinkgoVersion, installing
// it into the cache directory when missing.
func (b *builder) Ginkgo() (string, error) {
	binDir := filepath.Join(b.cacheDir, "bin")
	bin := filepath.Join(binDir, "ginkgo")
	if out, err := exec.Command(bin, "version").Output(); err == nil &&
		strings.Contains(string(out), strings.TrimPrefix(GinkgoVersion, "v")) {
		return bin, nil
	}
	fmt.Fprintf(b.log, "installing the ginkgo CLI %s\n", GinkgoVersion)
	cmd := exec.Command("go", "install", "github.com/onsi/ginkgo/v2/ginkgo@"+GinkgoVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+binDir, "GOFLAGS=-mod=mod", "GOWORK=off")
	cmd.Stdout, cmd.Stderr = b.log, b.log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go install ginkgo: %w", err)
	}
	return bin, nil
}
