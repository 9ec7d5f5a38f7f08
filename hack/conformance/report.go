package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"
)

// junitSuites is the part of Ginkgo's JUnit report the summary needs (the
// e2e framework writes it to <report-dir>/junit_01.xml, merged across the
// parallel processes).
type junitSuites struct {
	Suites []struct {
		Cases []junitCase `xml:"testcase"`
	} `xml:"testsuite"`
}

type junitCase struct {
	Name    string  `xml:"name,attr"`
	Status  string  `xml:"status,attr"`
	Time    float64 `xml:"time,attr"`
	Skipped *struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
	Failure *junitFailure `xml:"failure"`
	Error   *junitFailure `xml:"error"`
}

type junitFailure struct {
	Message     string `xml:"message,attr"`
	Description string `xml:",chardata"`
}

// Spec is one conformance spec's outcome.
type Spec struct {
	Name  string // the full Ginkgo text, "[sig-node] Pods should ... [Conformance]"
	SIG   string // "node", from the [sig-node] tag; "other" without one
	State string // passed, failed, skipped (at run time), or Ginkgo's timedout, panicked, interrupted, aborted
	Cause string // the failure message's first line, normalised (see Cause)
	Time  time.Duration
}

// NotRun is the state of a selected spec the report does not list as run:
// the suite's timeout came first, or a process ended early.
const NotRun = "not run"

// Passed reports whether the spec passed.
func (s Spec) Passed() bool { return s.State == "passed" }

// Failed reports whether the spec ran and did not pass: every state but
// passed, skipped and not run.
func (s Spec) Failed() bool { return s.State != "passed" && s.State != "skipped" && s.State != NotRun }

// ReadJUnit returns the outcome of every spec whose name matches selected.
// Ginkgo lists the specs its focus filtered out as skipped with the bare
// message "skipped"; they are left out, while a spec that skipped itself at
// run time (e2eskipper, "skipped - <why>") is kept. Suite nodes that failed
// (a BeforeSuite, a ReportAfterSuite) are returned as specs of SIG "suite"
// so that a run which never reached the specs says why.
func ReadJUnit(r io.Reader, selected func(name string) bool) ([]Spec, error) {
	var doc junitSuites
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("reading the JUnit report: %w", err)
	}
	var specs []Spec
	for _, suite := range doc.Suites {
		for _, c := range suite.Cases {
			name, isIt := strings.CutPrefix(c.Name, "[It] ")
			if !isIt {
				// [SynchronizedBeforeSuite], [ReportAfterSuite] and the like.
				if c.Failure == nil && c.Error == nil {
					continue
				}
				specs = append(specs, Spec{Name: c.Name, SIG: "suite", State: c.Status, Cause: Cause(failureText(c)),
					Time: time.Duration(c.Time * float64(time.Second))})
				continue
			}
			if !selected(name) {
				continue
			}
			if c.Status == "skipped" && c.Skipped != nil && c.Skipped.Message == "skipped" {
				continue // filtered out, not run
			}
			s := Spec{Name: name, SIG: sigOf(name), State: c.Status, Time: time.Duration(c.Time * float64(time.Second))}
			if s.Failed() {
				s.Cause = Cause(failureText(c))
			}
			specs = append(specs, s)
		}
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs, nil
}

var listedSpec = regexp.MustCompile(`^\s+\S+:[0-9]+: (.+)$`)

// ReadSpecList reads the names e2e.test --list-tests prints, one a line
// after its file:line.
func ReadSpecList(r io.Reader) ([]string, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		if m := listedSpec.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	return names, nil
}

// AddNotRun adds a spec in state NotRun for each selected name the report
// does not hold: Ginkgo reports the specs a suite timeout kept from
// starting as it reports the ones its focus filtered out, so only the
// list of what was selected tells them apart.
func AddNotRun(specs []Spec, selected []string) []Spec {
	seen := map[string]bool{}
	for _, s := range specs {
		seen[s.Name] = true
	}
	for _, name := range selected {
		if !seen[name] {
			specs = append(specs, Spec{Name: name, SIG: sigOf(name), State: NotRun})
			seen[name] = true
		}
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs
}

func failureText(c junitCase) string {
	for _, f := range []*junitFailure{c.Failure, c.Error} {
		if f == nil {
			continue
		}
		if strings.TrimSpace(f.Description) != "" {
			return f.Description
		}
		return f.Message
	}
	return c.Status
}

var sigTag = regexp.MustCompile(`\[sig-([a-z0-9-]+)\]`)

func sigOf(name string) string {
	if m := sigTag.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return "other"
}

// Normalising a failure's first line: the parts that differ from spec to
// spec with the same cause — generated names, UIDs, numbers, durations —
// are replaced, so that one cause is one group.
var (
	uid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// generateName's suffix: five characters of the alphabet
	// k8s.io/apimachinery's rand.String draws from (no vowels, no 0, 1, 3).
	generated = regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{5}\b`)
	number    = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
	// A quoted object name with a dash or a digit (pod "pod-secrets-4bx7q"
	// in namespace "secrets-1234"): each spec makes its own.
	quotedName = regexp.MustCompile(`"[a-z0-9]([a-z0-9.]*[-0-9][a-z0-9.-]*)?[a-z0-9]"`)
	spaces     = regexp.MustCompile(`\s+`)
)

// Cause returns the message of a Ginkgo failure description — its lines up
// to the "In [It] at:" that locates it, joined by spaces (a Gomega message's
// first line is often a bare "Expected"), usually one line — with
// "[FAILED] " dropped (the other tags, [TIMEDOUT] and [PANICKED], say
// something and stay) and its varying parts replaced: a UID by <uid>, a
// quoted object name by "NAME", a generated name suffix by -xxxxx, every
// number by N. It is cut at 200 characters.
func Cause(description string) string {
	var lines []string
	for _, l := range strings.Split(description, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "In [") && len(lines) > 0 {
			break
		}
		if l != "" {
			lines = append(lines, l)
		}
	}
	line := strings.Join(lines, " ")
	line = strings.TrimPrefix(line, "[FAILED] ")
	line = uid.ReplaceAllString(line, "<uid>")
	line = quotedName.ReplaceAllString(line, `"NAME"`)
	line = generated.ReplaceAllString(line, "-xxxxx")
	line = number.ReplaceAllString(line, "N")
	line = spaces.ReplaceAllString(line, " ")
	if r := []rune(line); len(r) > 200 {
		line = string(r[:200]) + "…"
	}
	if line == "" {
		line = "(no message)"
	}
	return line
}

// SIGRow is one line of the per-SIG table.
type SIGRow struct {
	SIG                            string
	Passed, Failed, Skipped, Total int
}

// BySIG counts the specs per SIG, in SIG order, with the sum last.
func BySIG(specs []Spec) []SIGRow {
	rows := map[string]*SIGRow{}
	total := SIGRow{SIG: "**all**"}
	for _, s := range specs {
		if s.SIG == "suite" {
			continue
		}
		r := rows[s.SIG]
		if r == nil {
			r = &SIGRow{SIG: s.SIG}
			rows[s.SIG] = r
		}
		for _, row := range []*SIGRow{r, &total} {
			row.Total++
			switch {
			case s.Passed():
				row.Passed++
			case s.Failed():
				row.Failed++
			default:
				row.Skipped++
			}
		}
	}
	var out []SIGRow
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SIG < out[j].SIG })
	return append(out, total)
}

// Group is the failures with one cause.
type Group struct {
	Cause string
	Specs []Spec
}

// FailureGroups groups the failed specs by cause, the largest group first
// (ties by cause, so the page is the same for the same results).
func FailureGroups(specs []Spec) []Group {
	byCause := map[string][]Spec{}
	for _, s := range specs {
		if s.Failed() {
			byCause[s.Cause] = append(byCause[s.Cause], s)
		}
	}
	var out []Group
	for cause, ss := range byCause {
		out = append(out, Group{Cause: cause, Specs: ss})
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].Specs) != len(out[j].Specs) {
			return len(out[i].Specs) > len(out[j].Specs)
		}
		return out[i].Cause < out[j].Cause
	})
	return out
}

// RunInfo is what the page says about a run besides its results.
type RunInfo struct {
	Title    string // "Parallel specs" or "Serial specs"
	Date     time.Time
	Took     time.Duration
	Procs    int
	Focus    string
	Skip     string
	Versions []string // "kubesim 75bfabd", "e2e.test v1.32.4", ...
	Load     string   // the load average at the start and the end
}

// WriteSection writes one run's section of docs/conformance.md.
func WriteSection(w io.Writer, info RunInfo, specs []Spec) {
	fmt.Fprintf(w, "## %s\n\n", info.Title)
	fmt.Fprintf(w, "Run on %s, took %s with %d ginkgo processes (load average %s).  \n",
		info.Date.UTC().Format("2006-01-02 15:04 MST"), info.Took.Round(time.Second), info.Procs, info.Load)
	fmt.Fprintf(w, "Focus `%s`, skip `%s`.  \n", info.Focus, info.Skip)
	fmt.Fprintf(w, "Versions: %s.\n\n", strings.Join(info.Versions, ", "))

	rows := BySIG(specs)
	skipped := rows[len(rows)-1].Skipped > 0
	fmt.Fprint(w, "| SIG | passed | failed |")
	if skipped {
		fmt.Fprint(w, " skipped or not run |")
	}
	fmt.Fprint(w, " total |\n| --- | ---: | ---: |")
	if skipped {
		fmt.Fprint(w, " ---: |")
	}
	fmt.Fprint(w, " ---: |\n")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %d | %d |", r.SIG, r.Passed, r.Failed)
		if skipped {
			fmt.Fprintf(w, " %d |", r.Skipped)
		}
		fmt.Fprintf(w, " %d |\n", r.Total)
	}
	fmt.Fprintln(w)

	var suite []Spec
	for _, s := range specs {
		if s.SIG == "suite" {
			suite = append(suite, s)
		}
	}
	if len(suite) > 0 {
		fmt.Fprint(w, "Suite nodes that failed:\n\n")
		for _, s := range suite {
			fmt.Fprintf(w, "- %s (%s): `%s`\n", s.Name, s.State, s.Cause)
		}
		fmt.Fprintln(w)
	}

	groups := FailureGroups(specs)
	if len(groups) == 0 {
		fmt.Fprint(w, "No failures.\n\n")
		return
	}
	fmt.Fprintf(w, "### Failures by cause\n\n")
	fmt.Fprint(w, "Each cause is the failure message (up to the line where Ginkgo locates it, cut at 200 characters), with object names (\"NAME\"), generated suffixes (-xxxxx), UIDs and numbers (N) replaced.\n\n")
	for _, g := range groups {
		fmt.Fprintf(w, "**%d** — `%s`\n\n", len(g.Specs), strings.ReplaceAll(g.Cause, "`", "'"))
		for _, s := range g.Specs {
			state := ""
			if s.State != "failed" {
				state = " (" + s.State + ")"
			}
			fmt.Fprintf(w, "- %s%s\n", s.Name, state)
		}
		fmt.Fprintln(w)
	}
}

// ReplaceSection returns doc with the text between the markers of the
// section named name replaced by body; without the markers the section is
// appended. Each run rewrites only its own section, so the parallel and
// the serial runs and the hand-written text around them stay.
func ReplaceSection(doc, name, body string) string {
	begin := "<!-- BEGIN " + name + " (written by go run ./hack/conformance) -->\n"
	end := "<!-- END " + name + " -->\n"
	section := begin + body + end
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		if doc != "" && !strings.HasSuffix(doc, "\n\n") {
			doc = strings.TrimRight(doc, "\n") + "\n\n"
		}
		return doc + section
	}
	return doc[:i] + section + doc[j+len(end):]
}
