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
	slice := fs.Bool("slice", false, "run only the fast slice of make test (slice/specs.txt, built from slice/): fail unless every spec of it passes")
	procs := fs.Int("procs", 24, "ginkgo processes for the parallel specs: most of a spec's time is waiting, so more processes than cores (docs/conformance.md has the measurement)")
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
	work, err := os.MkdirTemp("", "kubesim-conformance-")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "server data, logs and the JUnit report: %s\n", work)

	var sliceSpecs []string
	s := suite{title: "Parallel specs", focus: conformanceFocus, skip: parallelSkip, procs: *procs, timeout: *timeout, nodes: *nodes, work: work}
	switch {
	case *slice:
		if sliceSpecs, err = readSpecList(filepath.Join(root, sliceDir, "specs.txt")); err != nil {
			return err
		}
		s.title, s.focus, s.skip, s.procs = "Fast slice", specListFocus(sliceSpecs), `^$`, 1
		if s.binary, err = buildSlice(root, work, stdout); err != nil {
			return err
		}
	default:
		if *serial {
			s.title, s.focus, s.skip, s.procs = "Serial specs", serialFocus, serialSkip, 1
		}
		if err := os.MkdirAll(*cache, 0o755); err != nil {
			return err
		}
		b := &builder{cacheDir: *cache, log: stdout}
		if s.binary, err = b.E2ETest(); err != nil {
			return err
		}
		if s.ginkgo, err = b.Ginkgo(); err != nil {
			return err
		}
	}
	if *focus != "" {
		s.focus = "(" + s.focus + ").*(" + *focus + ")|(" + *focus + ").*(" + s.focus + ")"
	}

	if err := s.list(ctx); err != nil {
		return err
	}
	srv, err := startServer(ctx, root, work, *nodes, stdout)
	if err != nil {
		return err
	}
	defer srv.Stop()
	fmt.Fprintf(stdout, "running the %s with %d process(es); progress in %s\n", strings.ToLower(s.title), s.procs, filepath.Join(work, "ginkgo.log"))
	loadBefore := loadAverage()
	start := time.Now()
	specs, err := s.run(ctx, srv.Kubeconfig)
	if err != nil {
		return err
	}
	took := time.Since(start)
	rows := BySIG(specs)
	sum := rows[len(rows)-1]
	fmt.Fprintf(stdout, "%s: %d of %d passed, %d failed, in %s\n", s.title, sum.Passed, sum.Total, sum.Failed, took.Round(time.Second))

	info := RunInfo{
		Title: s.title, Date: start, Took: took, Procs: s.procs, Focus: s.focus, Skip: s.skip,
		Versions: versions(root, srv.Kubeconfig), Load: loadBefore + " at the start, " + loadAverage() + " at the end",
	}
	var section bytes.Buffer
	WriteSection(&section, info, specs)
	if *slice {
		return sliceVerdict(specs, len(sliceSpecs), *focus == "", &section, stdout)
	}
	if *focus != "" {
		_, err := io.Copy(stdout, &section)
		return err
	}
	doc, err := os.ReadFile(*out)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.WriteFile(*out, []byte(ReplaceSection(string(doc), s.title, section.String())), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

// suite is one run of a spec binary against the server.
type suite struct {
	title, focus, skip string
	binary             string // e2e.test, or the slice's test binary
	ginkgo             string // the ginkgo CLI; empty runs the binary itself
	procs, nodes       int
	timeout            time.Duration
	work               string   // the run's directory: report/, ginkgo.log
	listed             []string // every spec of the binary (list)
}

// run runs the specs and returns their outcomes from the JUnit report the
// e2e framework writes. Ginkgo exits non-zero whenever a spec fails, so
// only a missing report is an error.
func (s suite) run(ctx context.Context, kubeconfig string) ([]Spec, error) {
	reportDir := filepath.Join(s.work, "report")
	e2eArgs := []string{"--provider=skeleton", fmt.Sprintf("--num-nodes=%d", s.nodes), "--kubeconfig=" + kubeconfig,
		"--report-dir=" + reportDir, "--kubectl-path=kubectl"}
	var cmd *exec.Cmd
	if s.ginkgo != "" {
		args := []string{"--timeout", s.timeout.String(), "--no-color", "--focus", s.focus, "--skip", s.skip}
		if s.procs > 1 {
			args = append(args, "-p", "--procs", fmt.Sprint(s.procs))
		}
		cmd = exec.CommandContext(ctx, s.ginkgo, append(append(args, s.binary, "--"), e2eArgs...)...)
	} else {
		cmd = exec.CommandContext(ctx, s.binary, append(e2eArgs, "--ginkgo.timeout="+s.timeout.String(), "--ginkgo.no-color",
			"--ginkgo.focus="+s.focus, "--ginkgo.skip="+s.skip)...)
	}
	// Ctrl-C reaches ginkgo as an interrupt, as from a terminal: it
	// interrupts its processes' specs and still writes the report. If
	// they hang in their cleanup, they are killed a minute later.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	cmd.Dir = s.work
	// kubectl specs read the kubeconfig from the environment too, and the
	// discovery cache must not be another server's.
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "KUBECACHEDIR="+filepath.Join(s.work, "kubectl-cache"))
	logPath := filepath.Join(s.work, "ginkgo.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	runErr := cmd.Run()
	f, err := os.Open(filepath.Join(reportDir, "junit_01.xml"))
	if err != nil {
		return nil, fmt.Errorf("no JUnit report (%v); see %s: %w", runErr, logPath, err)
	}
	defer f.Close()
	focus, skip := regexp.MustCompile(s.focus), regexp.MustCompile(s.skip)
	selected := func(name string) bool { return focus.MatchString(name) && !skip.MatchString(name) }
	specs, err := ReadJUnit(f, selected)
	if err != nil {
		return nil, err
	}
	var want []string
	for _, name := range s.listed {
		if selected(name) {
			want = append(want, name)
		}
	}
	return AddNotRun(specs, want), nil
}

// list returns the full name of every spec the binary holds (its
// --list-tests, a dry run that needs no cluster).
func (s *suite) list(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, s.binary, "--list-tests")
	cmd.Dir = s.work
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s --list-tests: %w", s.binary, err)
	}
	s.listed, err = ReadSpecList(bytes.NewReader(out))
	return err
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
