package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/apiserver"
)

// newVersionCommand is `kubesim version`, as `kubectl version` and `helm
// version`: kubesim's own version (its module version, stamped by go
// build from the commit it was built at) and the Kubernetes version its
// API server speaks, what the server's /version answers.
func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print kubesim's version and the Kubernetes version it speaks",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			k8s := apiserver.DefaultVersion()
			fmt.Fprintf(stdout, "kubesim version: %s\n", kubesimVersion())
			fmt.Fprintf(stdout, "Kubernetes version: %s (API %s.%s, as /version answers)\n", k8s.GitVersion, k8s.Major, k8s.Minor)
			fmt.Fprintf(stdout, "Go version: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}

// kubesimVersion is the main module's version in the build information:
// a tag or pseudo-version when go build could read the checkout's
// version control (with the commit and "+dirty" for uncommitted
// changes), "(devel)" when it could not, as in a test binary.
func kubesimVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}
