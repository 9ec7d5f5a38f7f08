package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	scenarios "github.com/kubesim/kubesim/examples/scenarios"
	"github.com/kubesim/kubesim/scenario"
)

// demoScenario is the scenario the demo runs, from examples/scenarios.
const demoScenario = "demo.yaml"

// newDemoCommand is `kubesim demo`: it tells the seed's story in process,
// in step mode: a ReplicaSet of 3, its pods scheduled and running, one
// deleted and replaced by the control loop (和解循环), scaled up and down,
// then deleted with its pods. It is a scenario run
// (examples/scenarios/demo.yaml) printed as a story: every unit of work is
// a line of the trace; --step pauses between steps.
func newDemoCommand(stdin io.Reader, stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "tell the ReplicaSet story in process, step by step (--lang zh: the notes in Chinese)",
		Args:  noArgs,
	}
	fs := cmd.Flags()
	color := fs.String("color", "auto", "colour the trace: auto (on a terminal), always, never")
	full := fs.Bool("full", false, "show every write, events included")
	step := fs.Bool("step", false, "pause after each step of the story until Enter is pressed")
	webUI := fs.Bool("ui", false, "step through the story in the web page instead (served on --ui-addr until interrupted)")
	uiAddr := fs.String("ui-addr", defaultUIAddr, "address of the web page with --ui (port 0 picks a free port)")
	lang := langFlag(fs)
	registerFlagValues(cmd, "color", "auto", "always", "never")
	registerFlagValues(cmd, "lang", "en", "zh")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *webUI {
			s, err := scenario.LoadFS(scenarios.FS(), demoScenario)
			if err != nil {
				return err
			}
			return stepInPage(ctx, s, *uiAddr, stdout)
		}
		useColor := *color == "always" || (*color == "auto" && isTerminal(stdout))
		o := demoOptions{color: useColor, full: *full, lang: *lang}
		if *step {
			o.pause = bufio.NewScanner(stdin)
		}
		return runDemo(ctx, stdout, o)
	}
	return cmd
}

type demoOptions struct {
	color bool
	full  bool
	// lang is the language of the notes and of the demo's own lines.
	lang scenario.Lang
	// pause, when set, is read for an Enter between steps.
	pause *bufio.Scanner
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func runDemo(ctx context.Context, out io.Writer, o demoOptions) error {
	s, err := scenario.LoadFS(scenarios.FS(), demoScenario)
	if err != nil {
		return err
	}
	rep := &scenario.Reporter{W: out, Style: scenario.StyleStory, Color: o.color, Full: o.full, Lang: o.lang}
	say := wordsFor(o.lang)
	r, err := scenario.NewWithOptions(s, rep, scenario.Options{Phrases: say.steps})
	if err != nil {
		return err
	}
	defer r.Close()
	for !r.Done() {
		if err := r.FinishStep(ctx); err != nil {
			return err
		}
		if o.pause != nil && !r.Done() {
			fmt.Fprint(out, say.pressEnter)
			if !o.pause.Scan() {
				fmt.Fprintln(out)
				o.pause = nil
			}
		}
	}
	if r.Failed() {
		return errors.New(say.demoFailed)
	}
	fmt.Fprintf(out, say.demoEnd, len(r.Cluster().Trace()))
	return nil
}
