package main

import (
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/pki"
)

// loadKubeconfig reads the kubeconfig a component run as its own process
// is given (--kubeconfig, or $KUBECONFIG: `kubesim scheduler`, `kubesim
// kubelet`, `kubesim run-controller`), and the TLS configuration that
// trusts its cluster's CA; component starts the errors, as kube-scheduler
// and the kubelet name themselves in theirs.
func loadKubeconfig(component, path string) (*pki.Kubeconfig, *tls.Config, error) {
	if path == "" {
		return nil, nil, fmt.Errorf("%s: --kubeconfig (or $KUBECONFIG) is required", component)
	}
	kc, err := pki.LoadKubeconfig(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", component, err)
	}
	tlsCfg, err := kc.TLSConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", component, err)
	}
	return kc, tlsCfg, nil
}

// kubeconfigClient is a client of the API server the kubeconfig at path
// names, with its credentials, calling itself userAgent (loadKubeconfig).
func kubeconfigClient(component, path, userAgent string) (*client.Client, *pki.Kubeconfig, *tls.Config, error) {
	kc, tlsCfg, err := loadKubeconfig(component, path)
	if err != nil {
		return nil, nil, nil, err
	}
	cl, err := client.New(client.Config{Server: kc.Server, Token: kc.Token, TLS: tlsCfg, UserAgent: userAgent})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", component, err)
	}
	return cl, kc, tlsCfg, nil
}

// groupFlags collects a repeated --group.
type groupFlags []string

func (g *groupFlags) String() string { return strings.Join(*g, ",") }

func (g *groupFlags) Type() string { return "string" }

func (g *groupFlags) Set(v string) error {
	if v == "" {
		return errors.New("a group name cannot be empty")
	}
	*g = append(*g, v)
	return nil
}

// newKubeconfigCommand is `kubesim kubeconfig --user NAME [--group G]...`:
// it signs a client certificate for the user with the cluster CA of a
// data directory (CN the user, O the groups) and writes a kubeconfig that
// uses it, as `kubeadm kubeconfig user --client-name` does. The server
// address and CA come from the kubeconfig `kubesim serve` wrote in the
// directory.
func newKubeconfigCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kubeconfig --user NAME [--group GROUP]... [--data-dir DIR] [--out FILE]",
		Short: "write a kubeconfig with a client certificate for a user",
		Args:  noArgs,
	}
	fs := cmd.Flags()
	dataDir := fs.String("data-dir", ".data", "the data directory of `kubesim serve` (its ca.crt, ca.key and kubeconfig)")
	user := fs.String("user", "", "the user name, the certificate's CN (required)")
	var groups groupFlags
	fs.Var(&groups, "group", "a group of the user, the certificate's O (repeat for several)")
	server := fs.String("server", "", "the API server URL (default: the server of DATA-DIR/kubeconfig)")
	out := fs.String("out", "", "where to write the kubeconfig (default: standard output)")
	cmd.RunE = func(*cobra.Command, []string) error {
		if *user == "" {
			return errors.New("kubeconfig: --user is required")
		}
		ca, err := pki.LoadCA(*dataDir)
		if err != nil {
			return err
		}
		if *server == "" {
			admin, err := pki.LoadKubeconfig(filepath.Join(*dataDir, "kubeconfig"))
			if err != nil {
				return fmt.Errorf("kubeconfig: no --server and %w", err)
			}
			*server = admin.Server
		}
		certPEM, keyPEM, err := ca.IssueClientCert(*user, groups, time.Now(), rand.Reader)
		if err != nil {
			return err
		}
		path := *out
		if path == "" {
			tmp, err := os.MkdirTemp("", "kubesim-kubeconfig-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			path = filepath.Join(tmp, "kubeconfig")
		}
		if err := pki.WriteCertKubeconfig(path, *server, ca.CAPEM, certPEM, keyPEM, *user, "kubesim-"+*user); err != nil {
			return err
		}
		if *out != "" {
			fmt.Fprintf(stderr, "kubeconfig for user %q written to %s\n", *user, *out)
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		_, err = stdout.Write(data)
		return err
	}
	return cmd
}
