package pki

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// kubeconfig mirrors the parts of clientcmd's v1 Config that kubesim
// writes and reads; the YAML keys are Kubernetes'.
type kubeconfig struct {
	APIVersion     string         `yaml:"apiVersion"`
	Kind           string         `yaml:"kind"`
	Preferences    map[string]any `yaml:"preferences"`
	Clusters       []namedCluster `yaml:"clusters"`
	Users          []namedUser    `yaml:"users"`
	Contexts       []namedContext `yaml:"contexts"`
	CurrentContext string         `yaml:"current-context"`
}

type namedCluster struct {
	Name    string  `yaml:"name"`
	Cluster cluster `yaml:"cluster"`
}

type cluster struct {
	Server                   string `yaml:"server"`
	CertificateAuthorityData string `yaml:"certificate-authority-data,omitempty"`
	CertificateAuthority     string `yaml:"certificate-authority,omitempty"`
	InsecureSkipTLSVerify    bool   `yaml:"insecure-skip-tls-verify,omitempty"`
}

type namedUser struct {
	Name string   `yaml:"name"`
	User authInfo `yaml:"user"`
}

type authInfo struct {
	Token     string `yaml:"token,omitempty"`
	TokenFile string `yaml:"tokenFile,omitempty"`
	// ClientCertificateData and ClientKeyData are a client certificate
	// and its key, PEM then base64.
	ClientCertificateData string `yaml:"client-certificate-data,omitempty"`
	ClientKeyData         string `yaml:"client-key-data,omitempty"`
}

type namedContext struct {
	Name    string      `yaml:"name"`
	Context contextSpec `yaml:"context"`
}

type contextSpec struct {
	Cluster   string `yaml:"cluster"`
	User      string `yaml:"user"`
	Namespace string `yaml:"namespace,omitempty"`
}

// Kubeconfig is what a client needs from a kubeconfig's current context.
type Kubeconfig struct {
	// Server is the API server URL, such as https://127.0.0.1:6443.
	Server string
	// CAPEM is the PEM CA bundle to trust; empty means the system roots.
	CAPEM []byte
	// InsecureSkipTLSVerify turns certificate checking off.
	InsecureSkipTLSVerify bool
	// Token is the bearer token; empty means none.
	Token string
	// Namespace is the context's default namespace, "" if unset.
	Namespace string
	// Context, Cluster and User name the entries used.
	Context, Cluster, User string
}

// WriteKubeconfig writes a kubeconfig with one cluster (named like the
// context, trusting caPEM), one user (authenticating with token) and one
// context joining them, made current. kubectl reads it as is. The file is
// written with mode 0600 because it holds a credential.
func WriteKubeconfig(path, server string, caPEM []byte, token, user, contextName string) error {
	return writeKubeconfig(path, server, caPEM, authInfo{Token: token}, user, contextName, "")
}

// WriteTokenFileKubeconfig is WriteKubeconfig for a token kept in a file
// that is rewritten as it rotates (client-go reads `tokenFile` again
// every minute), with namespace as the context's default: what a pod's
// mounted service account token and namespace file are in a kubeconfig.
func WriteTokenFileKubeconfig(path, server string, caPEM []byte, tokenFile, user, contextName, namespace string) error {
	return writeKubeconfig(path, server, caPEM, authInfo{TokenFile: tokenFile}, user, contextName, namespace)
}

// WriteCertKubeconfig is WriteKubeconfig for a user who authenticates
// with a client certificate (certPEM, keyPEM) instead of a token.
func WriteCertKubeconfig(path, server string, caPEM, certPEM, keyPEM []byte, user, contextName string) error {
	return writeKubeconfig(path, server, caPEM, authInfo{
		ClientCertificateData: base64.StdEncoding.EncodeToString(certPEM),
		ClientKeyData:         base64.StdEncoding.EncodeToString(keyPEM),
	}, user, contextName, "")
}

func writeKubeconfig(path, server string, caPEM []byte, auth authInfo, user, contextName, namespace string) error {
	if server == "" || user == "" || contextName == "" {
		return fmt.Errorf("kubeconfig %s: server, user and context name are required", path)
	}
	cfg := kubeconfig{
		APIVersion:  "v1",
		Kind:        "Config",
		Preferences: map[string]any{},
		Clusters: []namedCluster{{Name: contextName, Cluster: cluster{
			Server:                   server,
			CertificateAuthorityData: base64.StdEncoding.EncodeToString(caPEM),
		}}},
		Users:          []namedUser{{Name: user, User: auth}},
		Contexts:       []namedContext{{Name: contextName, Context: contextSpec{Cluster: contextName, User: user, Namespace: namespace}}},
		CurrentContext: contextName,
	}
	data, err := yaml.Marshal(&cfg)
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("kubeconfig %s: %w", path, err)
		}
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		// Unchanged: a restart writes nothing, so it works on a full disk
		// and never truncates a good file.
		return nil
	}
	if err := writeFile(path, data, 0o600); err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return nil
}

// LoadKubeconfig reads the current context of a kubeconfig file. It
// understands certificate-authority-data and certificate-authority (a path,
// relative to the kubeconfig's directory), insecure-skip-tls-verify, token
// and tokenFile; other authentication methods are not supported.
func LoadKubeconfig(path string) (*Kubeconfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	var cfg kubeconfig
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if cfg.CurrentContext == "" {
		return nil, fmt.Errorf("kubeconfig %s: current-context is not set", path)
	}
	out := &Kubeconfig{Context: cfg.CurrentContext}
	var ctx *contextSpec
	for i := range cfg.Contexts {
		if cfg.Contexts[i].Name == cfg.CurrentContext {
			ctx = &cfg.Contexts[i].Context
		}
	}
	if ctx == nil {
		return nil, fmt.Errorf("kubeconfig %s: context %q not found", path, cfg.CurrentContext)
	}
	out.Cluster, out.User, out.Namespace = ctx.Cluster, ctx.User, ctx.Namespace

	var cl *cluster
	for i := range cfg.Clusters {
		if cfg.Clusters[i].Name == ctx.Cluster {
			cl = &cfg.Clusters[i].Cluster
		}
	}
	if cl == nil {
		return nil, fmt.Errorf("kubeconfig %s: cluster %q of context %q not found", path, ctx.Cluster, cfg.CurrentContext)
	}
	if cl.Server == "" {
		return nil, fmt.Errorf("kubeconfig %s: cluster %q has no server", path, ctx.Cluster)
	}
	out.Server, out.InsecureSkipTLSVerify = cl.Server, cl.InsecureSkipTLSVerify
	switch {
	case cl.CertificateAuthorityData != "":
		ca, err := base64.StdEncoding.DecodeString(cl.CertificateAuthorityData)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig %s: cluster %q: certificate-authority-data: %w", path, ctx.Cluster, err)
		}
		out.CAPEM = ca
	case cl.CertificateAuthority != "":
		ca, err := os.ReadFile(resolve(path, cl.CertificateAuthority))
		if err != nil {
			return nil, fmt.Errorf("kubeconfig %s: cluster %q: %w", path, ctx.Cluster, err)
		}
		out.CAPEM = ca
	}
	if len(out.CAPEM) > 0 {
		if _, err := ParseCertPEM("certificate authority of cluster "+ctx.Cluster, out.CAPEM); err != nil {
			return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
		}
	}

	if ctx.User != "" {
		var u *authInfo
		for i := range cfg.Users {
			if cfg.Users[i].Name == ctx.User {
				u = &cfg.Users[i].User
			}
		}
		if u == nil {
			return nil, fmt.Errorf("kubeconfig %s: user %q of context %q not found", path, ctx.User, cfg.CurrentContext)
		}
		out.Token = u.Token
		if out.Token == "" && u.TokenFile != "" {
			tok, err := os.ReadFile(resolve(path, u.TokenFile))
			if err != nil {
				return nil, fmt.Errorf("kubeconfig %s: user %q: %w", path, ctx.User, err)
			}
			out.Token = string(bytes.TrimSpace(tok))
		}
	}
	return out, nil
}

// resolve makes a path in a kubeconfig relative to the file's directory,
// as clientcmd does.
func resolve(kubeconfigPath, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(kubeconfigPath), p)
}

// TLSConfig returns a client TLS configuration for the kubeconfig's
// cluster: its CA bundle as the only roots, or the system roots when it
// has none, or no verification when insecure-skip-tls-verify is set.
func (k *Kubeconfig) TLSConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if k.InsecureSkipTLSVerify {
		cfg.InsecureSkipVerify = true // the kubeconfig asked for it
		return cfg, nil
	}
	if len(k.CAPEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(k.CAPEM) {
			return nil, fmt.Errorf("kubeconfig: cluster %q: no certificates in its certificate authority", k.Cluster)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}
