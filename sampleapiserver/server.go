package sampleapiserver

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
	"github.com/kubesim/kubesim/apiserver/serving"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/store/boltstore"
)

// ImageName is the image the fake kubelet runs as this server.
const ImageName = "kubesim/extension-apiserver"

// Resources are the resources the server serves.
func Resources() []*registry.Resource {
	return []*registry.Resource{{
		Group: Group, Version: Version, Name: "flunders", SingularName: "flunder", Kind: "Flunder",
		ListKind: "FlunderList", Namespaced: true,
		New:      func() api.Object { return &Flunder{} },
		Strategy: flunderStrategy{},
		Schema:   schema.FromGoType(reflect.TypeOf(Flunder{})),
		Table: &registry.Table{
			Columns: []metav1.TableColumnDefinition{registry.NameColumn,
				{Name: "Reference", Type: "string", Description: "The flunder or fischer this one refers to."},
				registry.AgeColumn},
			Cells: func(obj api.Object, now time.Time) []any {
				f := obj.(*Flunder)
				return []any{f.Name, f.Spec.Reference, registry.HumanDuration(now.Sub(f.CreationTimestamp.Time))}
			},
		},
	}}
}

// flunderStrategy is the sample's validation: a reference needs a type.
type flunderStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy.
func (flunderStrategy) Validate(obj api.Object) field.ErrorList {
	f := obj.(*Flunder)
	var errs field.ErrorList
	switch f.Spec.ReferenceType {
	case "", "Flunder", "Fischer":
	default:
		errs = append(errs, field.NotSupported(field.NewPath("spec", "referenceType"), f.Spec.ReferenceType, []string{"Flunder", "Fischer"}))
	}
	if f.Spec.Reference != "" && f.Spec.ReferenceType == "" {
		errs = append(errs, field.Required(field.NewPath("spec", "referenceType"), "required when spec.reference is set"))
	}
	return errs
}

// ValidateUpdate implements registry.Strategy.
func (s flunderStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList { return s.Validate(obj) }

// RequestHeaderAuthenticator trusts X-Remote-User and X-Remote-Group of a
// request whose TLS client certificate was issued by the front-proxy CA in
// clientCA for one of allowedNames (any name when empty), and nothing
// else: k8s.io/apiserver's requestheader authenticator with
// --requestheader-client-ca-file and --requestheader-allowed-names. The
// proof is the TLS handshake, so the aggregator gives this server nothing
// it could replay to impersonate anyone.
func RequestHeaderAuthenticator(clientCA *x509.CertPool, allowedNames []string) authn.Authenticator {
	return authn.AuthenticatorFunc(func(req *http.Request) (*authn.UserInfo, bool, error) {
		if err := verifyFrontProxy(req, clientCA, allowedNames); err != nil {
			return nil, false, err
		}
		name := req.Header.Get("X-Remote-User")
		if name == "" {
			return nil, false, errors.New("no X-Remote-User")
		}
		u := &authn.UserInfo{Name: name, Groups: req.Header.Values("X-Remote-Group")}
		// The user is known now; the headers must not be read again.
		req.Header.Del("X-Remote-User")
		req.Header.Del("X-Remote-Group")
		return u, true, nil
	})
}

// verifyFrontProxy checks the request's client certificate.
func verifyFrontProxy(req *http.Request, clientCA *x509.CertPool, allowedNames []string) error {
	if clientCA == nil || req.TLS == nil || len(req.TLS.PeerCertificates) == 0 {
		return errors.New("not the front proxy: no client certificate")
	}
	leaf := req.TLS.PeerCertificates[0]
	inter := x509.NewCertPool()
	for _, c := range req.TLS.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: clientCA, Intermediates: inter,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		return fmt.Errorf("not the front proxy: %w", err)
	}
	if len(allowedNames) > 0 && !slices.Contains(allowedNames, leaf.Subject.CommonName) {
		return fmt.Errorf("not the front proxy: common name %q is not allowed", leaf.Subject.CommonName)
	}
	return nil
}

// Options configure a Server.
type Options struct {
	// Addr is where to listen ("127.0.0.1:0": a free loopback port).
	Addr string
	// DataDir holds the bbolt file and the serving certificate; empty
	// means a temporary directory removed by Stop.
	DataDir string
	// EphemeralDataDir says DataDir is scratch space that Stop removes (a
	// pod's emptyDir, given by the kubelet under the cluster's data
	// directory so that a crash leaves nothing in /tmp).
	EphemeralDataDir bool
	// RequestHeaderClientCA is the front-proxy CA: only a client
	// certificate it issued may name the user in X-Remote-User.
	RequestHeaderClientCA *x509.CertPool
	// RequestHeaderAllowedNames are the common names accepted (default
	// pki.FrontProxyClientName; set []string{} to accept any).
	RequestHeaderAllowedNames []string
	Clock                     clock.Clock
	Logger                    *slog.Logger
	// OnRequest, when set, sees every authenticated request (tests).
	OnRequest func(r *http.Request, user *authn.UserInfo)
}

// Server is a running sample API server.
type Server struct {
	addr   string
	ca     []byte
	http   *http.Server
	closer func()
	once   sync.Once
	done   chan struct{}
}

// Start opens the store and serves until Stop.
func Start(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.RequestHeaderAllowedNames == nil {
		opts.RequestHeaderAllowedNames = []string{pki.FrontProxyClientName}
	}
	dir, tmp := opts.DataDir, opts.EphemeralDataDir
	if dir == "" {
		d, err := os.MkdirTemp("", "kubesim-extension-apiserver-")
		if err != nil {
			return nil, err
		}
		dir, tmp = d, true
	}
	cleanup := func() {
		if tmp {
			_ = os.RemoveAll(dir)
		}
	}
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(dir, boltstore.FileName), Logger: opts.Logger})
	if err != nil {
		cleanup()
		return nil, err
	}
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: opts.Clock, Rand: rand.Reader, Resources: Resources(),
		Authenticator: RequestHeaderAuthenticator(opts.RequestHeaderClientCA, opts.RequestHeaderAllowedNames), Logger: opts.Logger, GenericOnly: true})
	if err == nil {
		err = srv.Bootstrap(context.Background())
	}
	if err != nil {
		_ = st.Close()
		cleanup()
		return nil, err
	}
	bundle, err := pki.EnsureServing(filepath.Join(dir, "pki"), nil, opts.Clock.Now(), rand.Reader)
	if err != nil {
		_ = st.Close()
		cleanup()
		return nil, err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		_ = st.Close()
		cleanup()
		return nil, fmt.Errorf("extension-apiserver: %w", err)
	}
	var h http.Handler = srv.Handler()
	if opts.OnRequest != nil {
		// The same authentication, then a look at the user, then the
		// server's routes.
		h = authn.WithAuthentication(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, _ := authn.UserFrom(r.Context())
			opts.OnRequest(r, u)
			srv.LoopbackHandler().ServeHTTP(w, r)
		}), RequestHeaderAuthenticator(opts.RequestHeaderClientCA, opts.RequestHeaderAllowedNames), nil)
	}
	s := &Server{addr: ln.Addr().String(), ca: bundle.CAPEM, done: make(chan struct{}),
		http: serving.NewServer(h, nil, serving.Options{Logger: opts.Logger})}
	s.closer = func() {
		_ = st.Close()
		cleanup()
	}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(tlsListener(ln, bundle))
	}()
	return s, nil
}

// Addr is the real address the server listens on.
func (s *Server) Addr() string { return s.addr }

// CABundle is the PEM of the CA that signed the serving certificate, for
// an APIService's caBundle.
func (s *Server) CABundle() []byte { return s.ca }

// Stop closes the listener and every connection (watches end), then the
// store. It is safe to call more than once.
func (s *Server) Stop() {
	s.once.Do(func() {
		_ = s.http.Close()
		<-s.done
		s.closer()
	})
}
