package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// The two selections. The parallel run is what the figures count:
// every conformance spec that may share the cluster. The serial run takes
// the [Serial] ones, which must have the cluster to themselves; neither
// takes [Disruptive] specs, which restart nodes.
const (
	conformanceFocus = `\[Conformance\]`
	parallelSkip     = `\[Serial\]|\[Disruptive\]`
	serialFocus      = `\[Serial\].*\[Conformance\]|\[Conformance\].*\[Serial\]`
	serialSkip       = `\[Disruptive\]`
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	home, _ := os.UserHomeDir()
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	serial := fs.Bool("serial", false, "run the [Serial] conformance specs, one at a time, instead of the parallel ones")
	procs := fs.Int("procs", 6, "ginkgo processes for the parallel specs (most of a failing spec's time is waiting, see docs/conformance.md)")
	timeout := fs.Duration("timeout", 3*time.Hour, "ginkgo's suite timeout: specs not finished by then are reported as interrupted")
	focus := fs.String("focus", "", "a further regular expression the specs must match (for trying a few; the page is then not written)")
	cache := fs.String("cache", filepath.Join(home, ".cache", "kubesim", "conformance", KubernetesVersion), "where e2e.test, its source and the ginkgo CLI are kept")
	out := fs.String("out", "docs/conformance.md", "the page to rewrite (its section for this run)")
	nodes := fs.Int("nodes", 3, "fake nodes of the kubesim under test")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "kubesim")); err != nil {
		return fmt.Errorf("run it from the repository's root (make conformance): %w", err)
	}
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		return err
	}
	b := &builder{cacheDir: *cache, log: stdout}
	e2e, err := b.E2ETest()
	if err != nil {
		return err
	}
	ginkgo, err := b.Ginkgo()
	if err != nil {
		return err
	}

	work, err := os.MkdirTemp("", "kubesim-conformance-")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "server data, logs and the JUnit report: %s\n", work)
	srv, err := startServer(ctx, root, work, *nodes, stdout)
	if err != nil {
		return err
	}
	defer srv.Stop()

	title, focusRE, skipRE, n := "Parallel specs", conformanceFocus, parallelSkip, *procs
	if *serial {
		title, focusRE, skipRE, n = "Serial specs", serialFocus, serialSkip, 1
	}
	if *focus != "" {
		focusRE = "(" + focusRE + ").*(" + *focus + ")|(" + *focus + ").*(" + focusRE + ")"
	}
	reportDir := filepath.Join(work, "report")
	ginkgoArgs := []string{"--timeout", timeout.String(), "--no-color", "--focus", focusRE, "--skip", skipRE}
	if n > 1 {
		ginkgoArgs = append(ginkgoArgs, "-p", "--procs", fmt.Sprint(n))
	}
	ginkgoArgs = append(ginkgoArgs, e2e, "--",
		"--provider=skeleton", fmt.Sprintf("--num-nodes=%d", *nodes), "--kubeconfig="+srv.Kubeconfig,
		"--report-dir="+reportDir, "--kubectl-path=kubectl")
	logPath := filepath.Join(work, "ginkgo.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	fmt.Fprintf(stdout, "running %s with %d process(es); progress in %s\n", title, n, logPath)
	loadBefore := loadAverage()
	start := time.Now()
	cmd := exec.CommandContext(ctx, ginkgo, ginkgoArgs...)
	cmd.Dir = work
	// kubectl specs read the kubeconfig from the environment too, and the
	// discovery cache must not be another server's.
	cmd.Env = append(os.Environ(), "KUBECONFIG="+srv.Kubeconfig, "KUBECACHEDIR="+filepath.Join(work, "kubectl-cache"))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	runErr := cmd.Run() // non-zero whenever a spec fails: the report says which
	took := time.Since(start)

	f, err := os.Open(filepath.Join(reportDir, "junit_01.xml"))
	if err != nil {
		return fmt.Errorf("no JUnit report (ginkgo: %v); see %s: %w", runErr, logPath, err)
	}
	defer f.Close()
	focusMatch, skipMatch := regexp.MustCompile(focusRE), regexp.MustCompile(skipRE)
	specs, err := ReadJUnit(f, func(name string) bool { return focusMatch.MatchString(name) && !skipMatch.MatchString(name) })
	if err != nil {
		return err
	}
	info := RunInfo{
		Title: title, Date: start, Took: took, Procs: n, Focus: focusRE, Skip: skipRE,
		Versions: versions(root, srv.Kubeconfig), Load: loadBefore + " at the start, " + loadAverage() + " at the end",
	}
	var section bytes.Buffer
	WriteSection(&section, info, specs)
	total := BySIG(specs)
	sum := total[len(total)-1]
	fmt.Fprintf(stdout, "%s: %d of %d passed, %d failed, in %s\n", title, sum.Passed, sum.Total, sum.Failed, took.Round(time.Second))
	if *focus != "" {
		_, err := io.Copy(stdout, &section)
		return err
	}
	doc, err := os.ReadFile(*out)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	updated := ReplaceSection(string(doc), title, section.String())
	if err := os.WriteFile(*out, []byte(updated), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

// versions names what the run used: the tree kubesim was built from, the
// suite, the ginkgo CLI, Go and the kubectl the kubectl specs drive.
func versions(root, kubeconfig string) []string {
	commit := "unknown commit"
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			commit += " with uncommitted changes"
		}
	}
	kubectl := "kubectl unknown"
	if out, err := exec.Command("kubectl", "--kubeconfig", kubeconfig, "version", "--client", "-o", "yaml").Output(); err == nil {
		if m := regexp.MustCompile(`gitVersion: (\S+)`).FindSubmatch(out); m != nil {
			kubectl = "kubectl " + string(m[1])
		}
	}
	return []string{"kubesim " + commit, "e2e.test " + KubernetesVersion, "ginkgo " + GinkgoVersion, runtime.Version(), kubectl}
}

// loadAverage is the one-minute load average, or "?" where /proc has none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
