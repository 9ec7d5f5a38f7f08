package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/operators/catalog"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/runmode"
)

// controllerFactory builds one controller for `kubesim run-controller`,
// and for pods of the image kubesim/controller:NAME under `kubesim serve`.
type controllerFactory = cluster.InitFunc

// controllerImages are the controllers pods may run, by name
// (cluster.Config.ControllerImages).
func controllerImages() map[string]cluster.InitFunc { return runnableControllers() }

// runnableControllers are the controllers that can run as their own
// process: the built-in ones a lab may want to move out of the controller
// manager, and the example operators. A function, not a package variable:
// no global state.
func runnableControllers() map[string]controllerFactory { return catalog.Controllers() }

// newRunControllerCommand is `kubesim run-controller NAME`: it runs one
// controller as its own process against an API server reached through a
// kubeconfig (HTTPS and a bearer token), with live informers: the seed's
// point that a controller is only a client of the API server, in the
// cluster or out of it.
func newRunControllerCommand(stdout, stderr io.Writer) *cobra.Command {
	known := runnableControllers()
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	slices.Sort(names)
	cmd := &cobra.Command{
		Use:   "run-controller NAME --kubeconfig FILE [flags]",
		Short: "run one controller as its own process against an API server",
		Long:  "Run one controller as its own process against an API server.\n\nNAME is one of: " + strings.Join(names, ", "),
		// The shells complete NAME with the controllers' names.
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
	}
	fs := cmd.Flags()
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the API server (default $KUBECONFIG)")
	namespace := fs.String("namespace", "", "watch only this namespace (default all)")
	serviceAccount := fs.String("serviceaccount", "", "act as this service account, NAMESPACE/NAME: the kubeconfig's user asks a token for it (as `kubectl create token` does) and the controller uses only that token, as in a pod")
	verbose := fs.BoolP("v", "v", false, "log debug messages")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		if len(args) == 0 {
			fmt.Fprint(stderr, cmd.UsageString())
			return errors.New("run-controller: a controller NAME is required")
		}
		name := args[0]
		if len(args) > 1 {
			return fmt.Errorf("run-controller: unexpected arguments %q", args[1:])
		}
		factory, ok := known[name]
		if !ok {
			return fmt.Errorf("run-controller: unknown controller %q (known: %s)", name, strings.Join(names, ", "))
		}
		level := slog.LevelInfo
		if *verbose {
			level = slog.LevelDebug
		}
		logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
		cl, kc, tlsCfg, err := kubeconfigClient("run-controller", *kubeconfig, "kubesim-run-controller/"+name)
		if err != nil {
			return err
		}
		if *serviceAccount != "" {
			if cl, err = asServiceAccount(ctx, cl, kc, tlsCfg, *serviceAccount, "kubesim-run-controller/"+name); err != nil {
				return fmt.Errorf("run-controller: %w", err)
			}
		}
		comp, err := factory(cluster.ControllerContext{Client: cl, Clock: clock.Real{}, Mode: runmode.Live,
			Namespace: *namespace, Logger: logger})
		if err != nil {
			return fmt.Errorf("run-controller %s: %w", name, err)
		}
		fmt.Fprintf(stdout, "controller %s running; stop with Ctrl-C\n", name)
		comp.Run(ctx)
		fmt.Fprintf(stdout, "controller %s stopped\n", name)
		return nil
	}
	return cmd
}

// asServiceAccount returns a client that authenticates with a fresh token
// of the service account ref ("namespace/name"), asked for with admin's
// credentials: the controller then holds exactly the rights of the
// account's roles, as it would in a pod with the token the kubelet
// projects. It reaches the server of kc, trusting it as tlsCfg does.
func asServiceAccount(ctx context.Context, admin *client.Client, kc *pki.Kubeconfig, tlsCfg *tls.Config, ref, userAgent string) (*client.Client, error) {
	ns, name, ok := strings.Cut(ref, "/")
	if !ok || ns == "" || name == "" {
		return nil, fmt.Errorf("--serviceaccount %q: want NAMESPACE/NAME", ref)
	}
	day := int64(24 * 60 * 60)
	tr, err := admin.CreateToken(ctx, ns, name, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &day}})
	if err != nil {
		return nil, fmt.Errorf("a token for service account %s: %w", ref, err)
	}
	return client.New(client.Config{Server: kc.Server, Token: tr.Status.Token, TLS: tlsCfg, UserAgent: userAgent})
}
