package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/userwebhook"
)

// newWebhookCommand is `kubesim webhook`: the User CRD's admission
// webhook (package userwebhook) as a process on the host. Its certificate
// and CA are kept in --cert-dir (pki.EnsureServing: ca.crt,
// apiserver.crt); a webhook configuration reaches it with
// clientConfig.url https://127.0.0.1:PORT/mutate (or /validate) and the
// caBundle it prints. The same server runs as a pod of the image
// kubesim/webhook (examples/webhook).
func newWebhookCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhook [--cert-dir DIR] [--port PORT]",
		Short: "run the User CRD's admission webhook (defaulting, validation) over HTTPS",
	}
	fs := cmd.Flags()
	certDir := fs.String("cert-dir", "", "directory for the CA and the serving certificate (default: a temporary directory removed on exit)")
	port := fs.Int("port", 9443, "port to listen on, on 127.0.0.1 (0 picks a free port)")
	var hosts stringList
	fs.Var(&hosts, "host", "a name the serving certificate is for besides the loopback names (repeatable), e.g. user-webhook.default.svc")
	verbose := fs.BoolP("v", "v", false, "log every request")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		if len(args) > 0 {
			return fmt.Errorf("webhook: unexpected arguments %q", args)
		}
		level := slog.LevelInfo
		if *verbose {
			level = slog.LevelDebug
		}
		logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
		s, err := userwebhook.Start(userwebhook.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)),
			CertDir: *certDir, Hosts: hosts, Logger: logger})
		if err != nil {
			return err
		}
		defer s.Stop()
		fmt.Fprintf(stdout, "webhook for auth.ilinux.io Users listening on https://%s (/mutate, /validate)\n", s.Addr())
		fmt.Fprintf(stdout, "caBundle: %s\n", base64.StdEncoding.EncodeToString(s.CABundle()))
		<-ctx.Done()
		logger.Info("shutting down")
		return nil
	}
	return cmd
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return fmt.Sprint(*l) }

func (l *stringList) Type() string { return "string" }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}
