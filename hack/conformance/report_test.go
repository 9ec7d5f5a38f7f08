package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// testdata/junit_01.xml is shaped as the e2e framework writes it: Ginkgo's
// JUnit with the failure message attribute left out, filtered-out specs
// listed as skipped, suite nodes beside the specs.
func readTestReport(t *testing.T) []Spec {
	t.Helper()
	f, err := os.Open("testdata/junit_01.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	focus, skip := regexp.MustCompile(conformanceFocus), regexp.MustCompile(parallelSkip)
	specs, err := ReadJUnit(f, func(name string) bool { return focus.MatchString(name) && !skip.MatchString(name) })
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

func TestReadJUnitKeepsTheSpecsThatRan(t *testing.T) {
	specs := readTestReport(t)
	var got []string
	for _, s := range specs {
		got = append(got, s.SIG+" "+s.State+" "+s.Name)
	}
	want := []string{
		"suite failed [ReportAfterSuite] Kubernetes e2e suite report",
		"node failed [sig-node] ConfigMap should be consumable via environment variable [NodeConformance] [Conformance]",
		"node timedout [sig-node] Downward API should provide pod UID as env vars [NodeConformance] [Conformance]",
		"node passed [sig-node] Pods should get a host IP [NodeConformance] [Conformance]",
		"storage skipped [sig-storage] ConfigMap should be consumable from pods in volume [NodeConformance] [Conformance]",
		"storage failed [sig-storage] Secrets should be consumable from pods in volume [NodeConformance] [Conformance]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("specs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if specs[3].Time != 2500*time.Millisecond {
		t.Errorf("time of the passed spec = %v, want 2.5s", specs[2].Time)
	}
}

func TestCauseNormalisesWhatDiffersBetweenSpecs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"[FAILED] pod \"pod-secrets-7fd2b\" in namespace \"secrets-4821\" did not succeed\nIn [It] at: x.go:12",
			`pod "NAME" in namespace "NAME" did not succeed`},
		{`[FAILED] expected "Running", got "Pending" for bob-7fd2b`, `expected "Running", got "Pending" for bob-xxxxx`},
		{"\n  [TIMEDOUT] A suite timeout occurred\n", "[TIMEDOUT] A suite timeout occurred"},
		{"[FAILED] uid 0f8a9c3e-1b2d-4e5f-8a9b-0c1d2e3f4a5b   gone after 30.5s", "uid <uid> gone after Ns"},
		{"[FAILED] should create a deployment", "should create a deployment"},
		{"[FAILED] Expected\n    <int>: 3\nto equal\n    <int>: 4\nIn [It] at: chunking.go:108 @ 12/07/26\n", "Expected <int>: N to equal <int>: N"},
		{"", "(no message)"},
	} {
		if got := Cause(tc.in); got != tc.want {
			t.Errorf("Cause(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBySIGAndFailureGroups(t *testing.T) {
	specs := readTestReport(t)
	rows := BySIG(specs)
	want := []SIGRow{
		{SIG: "node", Passed: 1, Failed: 2, Total: 3},
		{SIG: "storage", Failed: 1, Skipped: 1, Total: 2},
		{SIG: "**all**", Passed: 1, Failed: 3, Skipped: 1, Total: 5},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows = %+v, want %+v", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	groups := FailureGroups(specs)
	var got []string
	for _, g := range groups {
		got = append(got, g.Cause+" x"+string(rune('0'+len(g.Specs))))
	}
	wantGroups := []string{
		`pod "NAME" in namespace "NAME" did not succeed x2`,
		"[TIMEDOUT] A suite timeout occurred x1",
		"writing the report failed x1",
	}
	if strings.Join(got, "\n") != strings.Join(wantGroups, "\n") {
		t.Errorf("groups:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantGroups, "\n"))
	}
}

func TestWriteSection(t *testing.T) {
	var b bytes.Buffer
	WriteSection(&b, RunInfo{Title: "Parallel specs", Date: time.Date(2026, 12, 7, 2, 0, 0, 0, time.UTC), Took: 90 * time.Second,
		Procs: 6, Focus: "F", Skip: "S", Versions: []string{"kubesim abc", "e2e.test v1.32.4"}, Load: "1 at the start, 2 at the end"}, readTestReport(t))
	page := b.String()
	for _, want := range []string{
		"## Parallel specs\n",
		"Run on 2026-12-07 02:00 UTC, took 1m30s with 6 ginkgo processes (load average 1 at the start, 2 at the end).",
		"| SIG | passed | failed | skipped or not run | total |",
		"| node | 1 | 2 | 0 | 3 |",
		"| **all** | 1 | 3 | 1 | 5 |",
		"- [ReportAfterSuite] Kubernetes e2e suite report (failed): `writing the report failed`",
		"**2** — `pod \"NAME\" in namespace \"NAME\" did not succeed`\n\n- [sig-node] ConfigMap should be consumable via environment variable [NodeConformance] [Conformance]\n- [sig-storage] Secrets",
		"- [sig-node] Downward API should provide pod UID as env vars [NodeConformance] [Conformance] (timedout)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("section lacks %q:\n%s", want, page)
		}
	}
}

func TestReplaceSectionKeepsTheRest(t *testing.T) {
	doc := ReplaceSection("# Conformance\n\nhow to run\n", "Parallel specs", "first\n")
	doc = ReplaceSection(doc, "Serial specs", "serial\n")
	doc = ReplaceSection(doc, "Parallel specs", "second\n")
	want := "# Conformance\n\nhow to run\n\n" +
		"<!-- BEGIN Parallel specs (written by go run ./hack/conformance) -->\nsecond\n<!-- END Parallel specs -->\n\n" +
		"<!-- BEGIN Serial specs (written by go run ./hack/conformance) -->\nserial\n<!-- END Serial specs -->\n"
	if doc != want {
		t.Errorf("doc:\n%s\nwant:\n%s", doc, want)
	}
}

func TestStagingModules(t *testing.T) {
	gomod := []byte("module k8s.io/kubernetes\n\nreplace (\n\tk8s.io/api => ./staging/src/k8s.io/api\n\tgithub.com/x/y => github.com/x/z v1.0.0\n\tk8s.io/sample-controller => ./staging/src/k8s.io/sample-controller\n)\n")
	got := StagingModules(gomod)
	if strings.Join(got, " ") != "k8s.io/api k8s.io/sample-controller" {
		t.Errorf("StagingModules = %v", got)
	}
}

func TestSpecsNotRunAreCounted(t *testing.T) {
	listing := "The following spec names can be used with 'ginkgo run --focus/skip':\n" +
		"    test/e2e/common/node/pods.go:1: [sig-node] Pods should get a host IP [NodeConformance] [Conformance]\n" +
		"    test/e2e/common/node/pods.go:2: [sig-node] Pods should be submitted and removed [NodeConformance] [Conformance]\n\n"
	names, err := ReadSpecList(strings.NewReader(listing))
	if err != nil || len(names) != 2 {
		t.Fatalf("ReadSpecList = %q, %v", names, err)
	}
	specs := AddNotRun(readTestReport(t), names)
	rows := BySIG(specs)
	if got, want := rows[0], (SIGRow{SIG: "node", Passed: 1, Failed: 2, Skipped: 1, Total: 4}); got != want {
		t.Errorf("node row = %+v, want %+v", got, want)
	}
	for _, s := range specs {
		if s.Name == names[1] && s.State != NotRun {
			t.Errorf("%s: state %q, want %q", s.Name, s.State, NotRun)
		}
	}
}

func TestSliceFocusSelectsExactlyTheListedSpecs(t *testing.T) {
	names := []string{
		"[sig-node] Pods should get a host IP [NodeConformance] [Conformance]",
		"[sig-api-machinery] Watchers should be able to start watching from a specific resource version [Conformance]",
	}
	focus := regexp.MustCompile(specListFocus(names))
	for _, n := range names {
		// Ginkgo matches the suite's description, a space and the name.
		if !focus.MatchString("kubesim conformance slice " + n) {
			t.Errorf("focus misses %q", n)
		}
	}
	for _, n := range []string{
		"[sig-node] Pods should get a host IP [NodeConformance] [Conformance] twice",
		"[sig-node] Pods should get a host IP [NodeConformance]",
	} {
		if focus.MatchString("kubesim conformance slice " + n) {
			t.Errorf("focus selects %q", n)
		}
	}
}

func TestSliceVerdict(t *testing.T) {
	passed := []Spec{{Name: "a", SIG: "node", State: "passed"}, {Name: "b", SIG: "node", State: "passed"}}
	var out bytes.Buffer
	if err := sliceVerdict(passed, 2, true, strings.NewReader("page"), &out); err != nil {
		t.Errorf("all passed: %v", err)
	}
	if err := sliceVerdict(passed, 3, true, strings.NewReader("page"), &out); err == nil {
		t.Error("a listed spec that did not run passed the slice")
	}
	if err := sliceVerdict(passed, 3, false, strings.NewReader("page"), &out); err != nil {
		t.Errorf("a focused run of two passing specs: %v", err)
	}
	failed := append(passed, Spec{Name: "c", SIG: "node", State: "failed", Cause: "x"})
	if err := sliceVerdict(failed, 3, true, strings.NewReader("page"), &out); err == nil {
		t.Error("a failed spec passed the slice")
	}
	if !strings.Contains(out.String(), "page") {
		t.Error("a failing slice does not print its section")
	}
}
