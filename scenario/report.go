package scenario

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubesim/kubesim/stepper"
)

// Style is how a Reporter prints a run.
type Style int

const (
	// StyleSummary prints one line per step, pass or fail, and on a
	// failure what was expected, what was found and the trace before it
	// (kubesim scenario run).
	StyleSummary Style = iota
	// StyleTrace prints every step and every trace entry with all its
	// writes: the golden-file form (kubesim scenario trace).
	StyleTrace
	// StyleStory prints notes as headlines and the trace as it happens,
	// events summarised: a lesson to read (kubesim demo).
	StyleStory
)

// ContextEntries is how many trace entries a failure shows.
const ContextEntries = 20

// Reporter prints a run as text; it is an Observer.
type Reporter struct {
	W     io.Writer
	Style Style
	// Full shows every write, events included (StyleStory summarises them).
	Full bool
	// Color paints actors and headlines with ANSI colours.
	Color bool
	// Verbose prints trace entries in StyleSummary too.
	Verbose bool
	// Interactive leaves out StyleTrace's step headlines (the stepper
	// announces each step before it runs).
	Interactive bool
	// Lang is the language of the notes ("": English); the trace stays
	// as it is.
	Lang Lang

	recent []stepper.Entry
	steps  int
	passed int
	failed bool
}

// Header prints the scenario's title (before the run).
func (p *Reporter) Header(s *Scenario) {
	switch p.Style {
	case StyleTrace:
		fmt.Fprintf(p.W, "# scenario: %s\n", s.NameIn(p.Lang))
	case StyleSummary:
		fmt.Fprintf(p.W, "=== %s: %s\n", s.File, s.NameIn(p.Lang))
	case StyleStory:
		if s.Name != "" {
			fmt.Fprintln(p.W, paint(p.Color, "1", s.NameIn(p.Lang)))
		}
	}
}

// StepStarted implements Observer.
func (p *Reporter) StepStarted(i int, s *Step) {
	p.steps++
	if p.Style == StyleTrace && !p.Interactive {
		fmt.Fprintf(p.W, "== %d %s\n", i+1, s.TitleIn(p.Lang))
	}
}

// Entry implements Observer.
func (p *Reporter) Entry(e stepper.Entry) {
	if p.Lang == Chinese && e.NoteZh != "" {
		e.Note = e.NoteZh
	}
	p.recent = append(p.recent, e)
	if len(p.recent) > ContextEntries {
		p.recent = p.recent[len(p.recent)-ContextEntries:]
	}
	switch {
	case p.Style == StyleTrace:
		fmt.Fprintln(p.W, RenderEntry(e, p.Full || !p.Interactive, p.Color))
	case p.Style == StyleStory || p.Verbose:
		fmt.Fprintln(p.W, RenderEntry(e, p.Full, p.Color))
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// StepFinished implements Observer.
func (p *Reporter) StepFinished(i int, s *Step, res *StepResult) {
	if res.OK {
		p.passed++
	} else {
		p.failed = true
	}
	msg := res.Message
	if s.Op == OpNote {
		msg = s.NoteText(p.Lang)
	}
	switch p.Style {
	case StyleTrace:
		status := "ok"
		if !res.OK {
			status = "FAIL"
		}
		if msg != "" {
			fmt.Fprintln(p.W, indent(status+": "+msg, "   "))
		} else {
			fmt.Fprintln(p.W, "   "+status)
		}
		for _, w := range res.Writes {
			fmt.Fprintf(p.W, "   -> %s\n", w)
		}
		if !res.OK && res.Expected != "" {
			fmt.Fprintf(p.W, "   expected: %s\n   actual:   %s\n", res.Expected, res.Actual)
		}
	case StyleSummary:
		status := paint(p.Color, "32", "ok  ")
		if !res.OK {
			status = paint(p.Color, "31", "FAIL")
		}
		fmt.Fprintf(p.W, "%s %3d  %s\n", status, i+1, s.TitleIn(p.Lang))
		if s.Op == OpNote && strings.Count(msg, "\n") == 0 && strings.HasPrefix(s.TitleIn(p.Lang), "note: "+msg) {
			msg = ""
		}
		if msg != "" && (res.OK || res.Expected == "") {
			fmt.Fprintln(p.W, indent(msg, "           "))
		}
		if !res.OK {
			if res.Expected != "" {
				fmt.Fprintf(p.W, "           expected: %s\n           actual:   %s\n", res.Expected, res.Actual)
			}
			p.printContext()
		}
	case StyleStory:
		switch {
		case s.Op == OpNote:
			fmt.Fprintln(p.W)
			fmt.Fprintln(p.W, paint(p.Color, "1", "== "+msg))
		case s.Op == OpShow:
			fmt.Fprintln(p.W)
			fmt.Fprintln(p.W, indent(res.Message, "  "))
		case runsCluster(s.Op) && res.OK:
		case s.Op == OpExpect:
			fmt.Fprintln(p.W, paint(p.Color, "2", "  (checked: "+strings.TrimPrefix(s.Title(), "expect ")+")"))
		case !res.OK:
			fmt.Fprintf(p.W, "%s %s\n", paint(p.Color, "31", "FAIL"), s.Title())
			if res.Expected != "" {
				fmt.Fprintf(p.W, "  expected: %s\n  actual:   %s\n", res.Expected, res.Actual)
			} else {
				fmt.Fprintln(p.W, indent(res.Message, "  "))
			}
		default:
			fmt.Fprintln(p.W, paint(p.Color, "2", "$ "+s.Title()))
			if res.Message != "" && s.Op != OpExpect {
				fmt.Fprintln(p.W, indent(res.Message, "  "))
			}
		}
	}
}

// printContext prints the last trace entries before a failure.
func (p *Reporter) printContext() {
	if len(p.recent) == 0 {
		fmt.Fprintln(p.W, "           (the trace is empty)")
		return
	}
	fmt.Fprintf(p.W, "           the trace before it (last %d entries):\n", len(p.recent))
	for _, e := range p.recent {
		fmt.Fprintln(p.W, indent(e.String(), "           "))
	}
}

// Footer prints the outcome after the run and reports whether it passed.
func (p *Reporter) Footer(s *Scenario) bool {
	ok := !p.failed && p.passed == len(s.Steps)
	switch p.Style {
	case StyleSummary:
		if ok {
			fmt.Fprintf(p.W, "--- %s: %d steps\n", paint(p.Color, "32", "PASS"), len(s.Steps))
		} else {
			fmt.Fprintf(p.W, "--- %s: %d of %d steps passed\n", paint(p.Color, "31", "FAIL"), p.passed, len(s.Steps))
		}
	case StyleTrace:
		if ok {
			fmt.Fprintf(p.W, "# PASS: %d steps\n", len(s.Steps))
		} else {
			fmt.Fprintf(p.W, "# FAIL: %d of %d steps passed\n", p.passed, len(s.Steps))
		}
	}
	return ok
}

// actorColors give each kind of component its colour on a terminal.
var actorColors = []struct{ prefix, code string }{
	{"replicaset", "32"}, {"deployment", "32"}, {"garbagecollector", "35"}, {"namespace", "35"},
	{"nodelifecycle", "33"}, {"scheduler", "36"}, {"kubelet", "34"},
}

func paint(on bool, code, s string) string {
	if !on {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// RenderEntry prints one trace entry for a reader: unless full, Event
// writes are summarised as a count (they only report the other writes).
func RenderEntry(e stepper.Entry, full, color bool) string {
	if full {
		return colorize(e.String(), e, color)
	}
	var kept []stepper.Write
	events := 0
	for _, w := range e.Writes {
		if strings.Contains(w.Path, "/events") {
			if w.Code < 300 {
				events++
			}
			continue
		}
		kept = append(kept, w)
	}
	e.Writes = kept
	s := e.String()
	if events > 0 {
		s = strings.Replace(s, "  (no change)", "", 1)
		first, rest, _ := strings.Cut(s, "\n")
		s = first + fmt.Sprintf("  [+%d event(s)]", events)
		if rest != "" {
			s += "\n" + rest
		}
	}
	return colorize(s, e, color)
}

func colorize(s string, e stepper.Entry, on bool) string {
	if !on {
		return s
	}
	if e.Actor == "" {
		return paint(true, "2", s)
	}
	for _, c := range actorColors {
		if strings.HasPrefix(e.Actor, c.prefix) {
			return strings.Replace(s, e.Actor, paint(true, c.code, e.Actor), 1)
		}
	}
	return s
}
