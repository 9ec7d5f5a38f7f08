// Command coscheduling is kubesim's scheduler built with the Coscheduling
// plugin, as a kube-scheduler binary is built with out-of-tree plugins
// (scheduler-plugins' cmd/scheduler): run it against a kubesim API server
// with a configuration that enables the plugin (README.md).
package main

import (
	"os"

	"github.com/kubesim/kubesim/examples/coscheduling/coscheduling"
	"github.com/kubesim/kubesim/scheduler/app"
)

func main() {
	cmd := app.NewSchedulerCommand(app.WithPlugin(coscheduling.Name, coscheduling.New))
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
