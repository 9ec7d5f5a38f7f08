package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/scheduler/extender/sample"
)

// newExtenderCommand is `kubesim extender`: the sample scheduler extender
// (scheduler/extender/sample), a web service in plain net/http that the
// scheduler calls when a KubeSchedulerConfiguration's extenders name it.
// It serves until interrupted.
func newExtenderCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "extender --listen ADDR [--prefer-label K=V] [--refuse-annotation K]",
		Short: "run the sample scheduler extender: refuse annotated nodes, prefer labelled ones",
		Long: `Run the sample scheduler extender (scheduler/extender/sample) over HTTP, or
HTTPS with --tls-cert and --tls-key. POST /filter refuses the nodes with
the annotation --refuse-annotation; POST /prioritize gives 10 (the
highest extender priority) to the nodes with the label --prefer-label.
A KubeSchedulerConfiguration names it in its extenders, for example:

  extenders:
  - urlPrefix: http://127.0.0.1:8888
    filterVerb: filter
    prioritizeVerb: prioritize
    weight: 1

It needs whole nodes: leave nodeCacheCapable unset. See docs/plugins.md.`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	listen := fs.String("listen", "127.0.0.1:8888", "the address to serve on (port 0: any free port)")
	prefer := fs.String("prefer-label", "", "KEY=VALUE: nodes with this label get the highest priority")
	refuse := fs.String("refuse-annotation", "", "an annotation key: nodes that carry it are refused")
	cert := fs.String("tls-cert", "", "serve HTTPS with this certificate file (PEM), with --tls-key")
	key := fs.String("tls-key", "", "the key file of --tls-cert")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if (*cert == "") != (*key == "") {
			return &usageError{cmd: cmd, err: errors.New("--tls-cert and --tls-key go together"), code: 2}
		}
		x, err := sample.New(sample.Config{PreferLabel: *prefer, RefuseAnnotation: *refuse})
		if err != nil {
			return &usageError{cmd: cmd, err: err, code: 2}
		}
		l, err := net.Listen("tcp", *listen)
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: x.Handler(), ReadHeaderTimeout: 10 * time.Second}
		scheme := "http"
		if *cert != "" {
			scheme = "https"
		}
		fmt.Fprintf(stdout, "scheduler extender listening on %s://%s (POST /filter, /prioritize)\n", scheme, l.Addr())
		done := make(chan error, 1)
		go func() {
			if *cert != "" {
				done <- srv.ServeTLS(l, *cert, *key)
				return
			}
			done <- srv.Serve(l)
		}()
		select {
		case err := <-done:
			return err
		case <-cmd.Context().Done():
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			fmt.Fprintln(stderr, "extender: shutting down:", err)
		}
		return nil
	}
	return cmd
}
