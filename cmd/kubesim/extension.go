package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/sampleapiserver"
)

// newExtensionAPIServerCommand is `kubesim extension-apiserver`: the
// sample extension API server (wardle.example.com/v1alpha1, package
// sampleapiserver) as a program of its own, as k8s.io/sample-apiserver
// runs. The aggregator of `kubesim serve` reaches it through an
// APIService whose Service is an ExternalName naming this host (see
// examples/aggregator/outside/outside.yaml); the same server also runs as
// a pod of the image kubesim/extension-apiserver.
func newExtensionAPIServerCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "extension-apiserver --requestheader-client-ca-file FILE [flags]",
		Short: "run the sample extension API server (wardle.example.com) on its own",
	}
	fs := cmd.Flags()
	addr := fs.String("addr", "127.0.0.1:8443", "address to listen on (port 0 picks a free port)")
	dataDir := fs.String("data-dir", "", "directory for the store and the serving certificate (default: a temporary directory removed on exit)")
	caFile := fs.String("requestheader-client-ca-file", "",
		"the front-proxy CA (kubesim serve writes DATA-DIR/"+pki.FrontProxyCACertFile+"): only a client certificate it issued may name the user in X-Remote-User and X-Remote-Group")
	allowed := fs.String("requestheader-allowed-names", pki.FrontProxyClientName,
		"common names of the front proxy's client certificates that are trusted, comma-separated (empty: any name the CA issued)")
	verbose := fs.BoolP("v", "v", false, "log every request")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		if len(args) > 0 {
			return fmt.Errorf("extension-apiserver: unexpected arguments %q", args)
		}
		if *caFile == "" {
			return errors.New("extension-apiserver: --requestheader-client-ca-file is required: without the front proxy's CA no request can be trusted")
		}
		pool, err := pki.ReadCAFile(*caFile)
		if err != nil {
			return fmt.Errorf("extension-apiserver: %w", err)
		}
		names := []string{}
		for _, n := range strings.Split(*allowed, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		level := slog.LevelInfo
		if *verbose {
			level = slog.LevelDebug
		}
		logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
		s, err := sampleapiserver.Start(sampleapiserver.Options{Addr: *addr, DataDir: *dataDir,
			RequestHeaderClientCA: pool, RequestHeaderAllowedNames: names, Logger: logger})
		if err != nil {
			return err
		}
		defer s.Stop()
		fmt.Fprintf(stdout, "extension API server for %s/%s listening on https://%s\n", sampleapiserver.Group, sampleapiserver.Version, s.Addr())
		<-ctx.Done()
		logger.Info("shutting down")
		return nil
	}
	return cmd
}
