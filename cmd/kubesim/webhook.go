package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"

	"github.com/kubesim/kubesim/userwebhook"
)

// webhookCmd is `kubesim webhook`: the User CRD's admission webhook
// (package userwebhook) as a process on the host. Its certificate and CA
// are kept in --cert-dir (pki.EnsureServing: ca.crt, apiserver.crt); a
// webhook configuration reaches it with clientConfig.url
// https://127.0.0.1:PORT/mutate (or /validate) and the caBundle it prints.
// The same server runs as a pod of the image kubesim/webhook
// (examples/webhook).
func webhookCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("webhook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	certDir := fs.String("cert-dir", "", "directory for the CA and the serving certificate (default: a temporary directory removed on exit)")
	port := fs.Int("port", 9443, "port to listen on, on 127.0.0.1 (0 picks a free port)")
	var hosts stringList
	fs.Var(&hosts, "host", "a name the serving certificate is for besides the loopback names (repeatable), e.g. user-webhook.default.svc")
	verbose := fs.Bool("v", false, "log every request")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("webhook: unexpected arguments %q", fs.Args())
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

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return fmt.Sprint(*l) }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}
