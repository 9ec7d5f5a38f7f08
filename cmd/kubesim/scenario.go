package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/scenario"
)

// errFailed makes the command exit 1 after it has printed why.
var errFailed = errors.New("scenario failed")

// newScenarioCommand is `kubesim scenario run|step|trace`. The flags
// belong to scenario, so that each subcommand takes them all, as it did
// when the three shared one flag set; each flag's help names the
// subcommands that read it.
func newScenarioCommand(stdin io.Reader, stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "run a scenario file as a test, step through it, or print its trace",
		Long: `Run a scenario file as a test, step through it, or print its trace:

  kubesim scenario run [-v] FILE...   run scenarios; each step passes or fails (exit 1 on a failure)
  kubesim scenario step FILE          step through a scenario one unit of work at a time
  kubesim scenario step --ui FILE     the same, in the web page
  kubesim scenario trace FILE         print the whole trace (the golden-file form)

--lang zh shows the notes in Chinese where a scenario has them (note: ... zh: ...).

The file format is described in docs/scenarios.md.`,
		Args: subcommandRequired,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return &usageError{cmd: cmd, err: errors.New("scenario: expected run, step or trace"), code: 1}
		},
	}
	fs := cmd.PersistentFlags()
	color := fs.String("color", "auto", "colour the output: auto (on a terminal), always, never")
	verbose := fs.BoolP("v", "v", false, "run: print the trace as it happens")
	full := fs.Bool("full", false, "step: show every write, events included")
	webUI := fs.Bool("ui", false, "step: step through the scenario in the web page (served on --ui-addr until interrupted)")
	uiAddr := fs.String("ui-addr", defaultUIAddr, "step --ui: the web page's address (port 0 picks a free port)")
	lang := langFlag(fs)
	registerFlagValues(cmd, "color", "auto", "always", "never")
	registerFlagValues(cmd, "lang", "en", "zh")
	useColor := func() bool { return *color == "always" || (*color == "auto" && isTerminal(stdout)) }
	// Scenario files are YAML: the shells complete those.
	yamlFiles := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	}
	cmd.AddCommand(&cobra.Command{
		Use:               "run [-v] FILE...",
		Short:             "run scenarios; each step passes or fails (exit 1 on a failure)",
		ValidArgsFunction: yamlFiles,
		RunE: func(cmd *cobra.Command, files []string) error {
			if len(files) == 0 {
				return errors.New("scenario run: expected at least one FILE")
			}
			return runScenarios(cmd.Context(), files, stdout, useColor(), *verbose, *lang)
		},
	}, &cobra.Command{
		Use:               "trace FILE",
		Short:             "print the whole trace (the golden-file form)",
		ValidArgsFunction: yamlFiles,
		RunE: func(cmd *cobra.Command, files []string) error {
			if len(files) != 1 {
				return errors.New("scenario trace: expected one FILE")
			}
			s, err := scenario.Load(files[0])
			if err != nil {
				return err
			}
			ok, err := traceScenario(cmd.Context(), s, stdout, *lang)
			if err != nil {
				return err
			}
			if !ok {
				return errFailed
			}
			return nil
		},
	}, &cobra.Command{
		Use:               "step [--ui] FILE",
		Short:             "step through a scenario one unit of work at a time (--ui: in the web page)",
		ValidArgsFunction: yamlFiles,
		RunE: func(cmd *cobra.Command, files []string) error {
			if len(files) != 1 {
				return errors.New("scenario step: expected one FILE")
			}
			s, err := scenario.Load(files[0])
			if err != nil {
				return err
			}
			if *webUI {
				return stepInPage(cmd.Context(), s, *uiAddr, stdout)
			}
			return stepScenario(cmd.Context(), s, stdin, stdout, useColor(), *full, *lang)
		},
	})
	return cmd
}

// runScenarios parses every file first (a bad file runs nothing), then
// runs each, printing a line per step.
func runScenarios(ctx context.Context, files []string, out io.Writer, color, verbose bool, lang scenario.Lang) error {
	var all []*scenario.Scenario
	for _, f := range files {
		s, err := scenario.Load(f)
		if err != nil {
			return err
		}
		all = append(all, s)
	}
	failed := 0
	for i, s := range all {
		if i > 0 {
			fmt.Fprintln(out)
		}
		rep := &scenario.Reporter{W: out, Style: scenario.StyleSummary, Color: color, Verbose: verbose, Lang: lang}
		r, err := scenario.NewWithOptions(s, rep, scenario.Options{Phrases: wordsFor(lang).steps})
		if err != nil {
			return err
		}
		rep.Header(s)
		_, err = r.RunAll(ctx)
		r.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", s.File, err)
		}
		if !rep.Footer(s) {
			failed++
		}
	}
	if len(all) > 1 {
		fmt.Fprintf(out, "\n%d scenario(s): %d passed, %d failed\n", len(all), len(all)-failed, failed)
	}
	if failed > 0 {
		return errFailed
	}
	return nil
}

// traceScenario prints a scenario's whole trace, every write included.
func traceScenario(ctx context.Context, s *scenario.Scenario, out io.Writer, lang scenario.Lang) (bool, error) {
	rep := &scenario.Reporter{W: out, Style: scenario.StyleTrace, Lang: lang}
	r, err := scenario.NewWithOptions(s, rep, scenario.Options{Phrases: wordsFor(lang).steps})
	if err != nil {
		return false, err
	}
	defer r.Close()
	rep.Header(s)
	if _, err := r.RunAll(ctx); err != nil {
		return false, err
	}
	return rep.Footer(s), nil
}

// stepScenario is the interactive stepper: it reads one command per line.
func stepScenario(ctx context.Context, s *scenario.Scenario, in io.Reader, out io.Writer, color, full bool, lang scenario.Lang) error {
	rep := &scenario.Reporter{W: out, Style: scenario.StyleTrace, Color: color, Full: full, Interactive: true, Lang: lang}
	say := wordsFor(lang)
	r, err := scenario.NewWithOptions(s, rep, scenario.Options{Phrases: say.steps})
	if err != nil {
		return err
	}
	defer r.Close()
	fmt.Fprintf(out, say.steppingThrough, s.File, s.NameIn(lang), len(s.Steps))
	if d := strings.TrimSpace(s.DescriptionIn(lang)); d != "" {
		fmt.Fprintln(out, d)
	}
	fmt.Fprintln(out, say.stepHelp)
	lines := bufio.NewScanner(in)
	announced := -1
	for !r.Done() {
		if i := r.Current(); i != announced {
			announced = i
			fmt.Fprintf(out, say.next, i+1, len(s.Steps), s.Steps[i].TitleIn(lang))
		}
		fmt.Fprint(out, "> ")
		if !lines.Scan() {
			fmt.Fprintln(out)
			return lines.Err()
		}
		switch cmd := strings.TrimSpace(lines.Text()); cmd {
		case "":
			if _, err := r.Next(ctx); err != nil {
				return err
			}
		case "c":
			if err := r.FinishStep(ctx); err != nil {
				return err
			}
		case "a":
			found, err := r.NextAdmission(ctx)
			if err != nil {
				return err
			}
			if !found {
				fmt.Fprintln(out, say.noAdmission)
			}
		case "?":
			fmt.Fprint(out, r.ExplainIn(say.explain))
		case "q":
			fmt.Fprintln(out, say.bye)
			return nil
		default:
			fmt.Fprintf(out, say.unknownCommand, cmd, say.stepHelp)
		}
	}
	if r.Failed() {
		fmt.Fprintln(out, say.failed)
		return errFailed
	}
	fmt.Fprintf(out, say.over, len(s.Steps))
	return nil
}
