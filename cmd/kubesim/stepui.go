package main

import (
	"context"
	"fmt"
	"io"

	"github.com/kubesim/kubesim/cmd/kubesim/app"
	"github.com/kubesim/kubesim/scenario"
)

// defaultUIAddr is where `demo --ui` and `scenario step --ui` serve the
// page: the loopback interface, as step mode's page is plain HTTP.
const defaultUIAddr = "127.0.0.1:8080"

// stepInPage serves the web page over a step-mode run of s until ctx
// ends: the page's Step, Run and Advance buttons drive it.
func stepInPage(ctx context.Context, s *scenario.Scenario, addr string, out io.Writer) error {
	r, err := scenario.New(s, nil)
	if err != nil {
		return err
	}
	defer r.Close()
	page, err := app.StartStepUI(r, addr, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Stepping through %s: %s (%d steps) in the web page.\n", s.File, s.Name, len(s.Steps))
	fmt.Fprintf(out, "Open %s (works once, within 10 minutes), or %s and log in with the token %s\n", page.LoginURL, page.URL, page.Token)
	fmt.Fprintln(out, "Press Ctrl-C to stop.")
	return page.Wait(ctx)
}
