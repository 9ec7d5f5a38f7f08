package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/scheduler/app"
)

// newSchedulerCommand is `kubesim scheduler`: the scheduler alone, as its
// own process against a running API server (scheduler/app builds it, so
// that a program can build the same command with plugins of its own).
func newSchedulerCommand(stdout, stderr io.Writer) *cobra.Command {
	return app.NewSchedulerCommand(app.WithOutput(stdout, stderr), app.WithArgs(noArgs))
}
