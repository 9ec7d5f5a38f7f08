package csrsigning

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/certificates"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the name --controllers uses.
const ControllerName = "csrsigning"

// ServiceAccountName is the account the controller acts as with
// --use-service-account-credentials (the certificate-controller role
// grants it "sign" on the built-in signers).
const ServiceAccountName = "certificate-controller"

// DefaultDuration is --cluster-signing-duration's default: one year.
const DefaultDuration = 365 * 24 * time.Hour

// backdate is how far in the past a certificate starts (authority's
// PermissiveSigningPolicy Backdate), and minDuration the shortest one
// issued (twice that).
const (
	backdate    = 5 * time.Minute
	minDuration = 2 * backdate
)

// CA is the certificate authority the controller signs with.
type CA interface {
	// Certificate is the CA's certificate, the issuer.
	Certificate() *x509.Certificate
	// Sign signs tmpl for the public key pub with the CA's key and
	// returns the certificate in DER.
	Sign(tmpl *x509.Certificate, pub any) ([]byte, error)
}

// CSRWriter is what the controller writes through: a request's status
// (the issued certificate, or the Failed condition).
type CSRWriter interface {
	UpdateStatus(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) (*certificatesv1.CertificateSigningRequest, error)
}

// Config builds a Controller.
type Config struct {
	// Client is the controller's API client (required).
	Client *client.Client
	// Informers shares informers with the other controllers (nil:
	// private ones).
	Informers *cache.Factory
	// Clock stamps validity periods and conditions (required).
	Clock clock.Clock
	Mode  runmode.Mode
	// CA signs; nil leaves every request unsigned (the loop still
	// runs, so that the trace shows it).
	CA CA
	// Duration is the longest certificate issued (DefaultDuration).
	Duration time.Duration
	// Rand draws serial numbers (crypto/rand).
	Rand   io.Reader
	Logger *slog.Logger
}

// Controller signs approved CSRs.
type Controller struct {
	cfg    Config
	csrs   *cache.Informer[*certificatesv1.CertificateSigningRequest]
	writer CSRWriter
	ctrl   *controllers.Controller
}

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("csrsigning: Client and Clock are required")
	}
	if cfg.Duration <= 0 {
		cfg.Duration = DefaultDuration
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{cfg: cfg, writer: cfg.Client.CertificateSigningRequests()}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: c,
		Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c.ctrl = ctrl
	c.csrs = controllers.InformerFor(ctrl, cfg.Client.CertificateSigningRequests())
	enqueue := func(event string, csr *certificatesv1.CertificateSigningRequest) {
		// Only an approved request without a certificate is work.
		if len(csr.Status.Certificate) == 0 && certificates.IsApproved(csr) {
			ctrl.Enqueue(csr.Name, controllers.CauseOf(event, "CertificateSigningRequest", &csr.ObjectMeta))
		}
	}
	c.csrs.AddHandler(cache.Handler[*certificatesv1.CertificateSigningRequest]{
		OnAdd:    func(csr *certificatesv1.CertificateSigningRequest) { enqueue("ADDED", csr) },
		OnUpdate: func(_, csr *certificatesv1.CertificateSigningRequest) { enqueue("MODIFIED", csr) },
	})
	return c, nil
}

// Controllers returns the loop, for the stepper.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.ctrl}
}

// Run runs the loop until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// Reconcile implements controllers.Reconciler: key is a CSR's name. An
// approved request to one of its signers is signed, or marked Failed when
// it breaks the signer's rules (signer.handle).
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	cached, ok := c.csrs.Get("", key)
	if !ok || c.cfg.CA == nil || len(cached.Status.Certificate) > 0 ||
		!certificates.IsApproved(cached) || certificates.HasTrueCondition(cached, certificatesv1.CertificateFailed) {
		return controllers.Result{}, nil
	}
	csr := cached.DeepCopy()
	req, err := certificates.ParseCSR(csr.Spec.Request)
	if err != nil {
		// Validation parsed it on create; an unparsable one cannot
		// become parsable.
		c.cfg.Logger.Error("unable to parse csr", "csr", csr.Name, "err", err)
		return controllers.Result{}, nil
	}
	recognized, err := CheckRequest(req, csr.Spec.Usages, csr.Spec.SignerName)
	if !recognized {
		return controllers.Result{}, nil
	}
	now := c.cfg.Clock.Now()
	if err != nil {
		csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: certificatesv1.CertificateFailed, Status: corev1.ConditionTrue, Reason: "SignerValidationFailure",
			Message: err.Error(), LastUpdateTime: metav1.NewTime(now.UTC().Truncate(time.Second))})
		_, err = c.writer.UpdateStatus(ctx, csr)
		if api.IsConflict(err) || api.IsNotFound(err) {
			return controllers.Result{}, nil // the next event brings it back
		}
		return controllers.Result{}, err
	}
	cert, err := c.sign(req, csr.Spec.Usages, csr.Spec.ExpirationSeconds, now)
	if err != nil {
		return controllers.Result{}, fmt.Errorf("error auto signing csr: %w", err)
	}
	csr.Status.Certificate = cert
	_, err = c.writer.UpdateStatus(ctx, csr)
	if api.IsConflict(err) || api.IsNotFound(err) {
		return controllers.Result{}, nil
	}
	return controllers.Result{}, err
}

// CheckRequest says whether the controller runs signerName (recognized)
// and, if so, whether the request is one that signer may sign (each
// signer's isRequestForSignerFn). kubernetes.io/legacy-unknown is not
// recognized: see the package documentation.
func CheckRequest(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage, signerName string) (recognized bool, err error) {
	switch signerName {
	case certificatesv1.KubeAPIServerClientSignerName:
		return true, certificates.ValidateAPIServerClientUsages(usages)
	case certificatesv1.KubeAPIServerClientKubeletSignerName:
		return true, certificates.ValidateKubeletClientCSR(req, usages)
	case certificatesv1.KubeletServingSignerName:
		return true, certificates.ValidateKubeletServingCSR(req, usages)
	}
	return false, nil
}

// CertificateDuration is how long a certificate lasts: the requested
// duration, within [minDuration, max] (signer's duration()).
func CertificateDuration(max time.Duration, expirationSeconds *int32) time.Duration {
	if expirationSeconds == nil {
		return max
	}
	d := time.Duration(*expirationSeconds) * time.Second
	switch {
	case d > max:
		return max
	case d < minDuration:
		return minDuration
	}
	return d
}

// sign issues the certificate of req (authority.Sign with the permissive
// policy): the request's subject, names and public key, the requested
// usages, valid from five minutes ago for the certificate's duration but
// not past the CA's own end. It returns it PEM-encoded.
func (c *Controller) sign(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage, expirationSeconds *int32, now time.Time) ([]byte, error) {
	limit := new(big.Int).Lsh(big.NewInt(1), 128)
	serial, err := rand.Int(c.cfg.Rand, limit)
	if err != nil {
		return nil, fmt.Errorf("unable to generate a serial number for %s: %w", req.Subject.CommonName, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               req.Subject,
		DNSNames:              req.DNSNames,
		IPAddresses:           req.IPAddresses,
		EmailAddresses:        req.EmailAddresses,
		URIs:                  req.URIs,
		NotBefore:             now.Add(-backdate).UTC(),
		NotAfter:              now.Add(CertificateDuration(c.cfg.Duration, expirationSeconds)).UTC(),
		BasicConstraintsValid: true,
		IsCA:                  false,
	}
	if ca := c.cfg.CA.Certificate(); ca.NotAfter.Before(tmpl.NotAfter) {
		tmpl.NotAfter = ca.NotAfter
	}
	for _, u := range usages {
		if ku, ok := certificates.KeyUsages[u]; ok {
			tmpl.KeyUsage |= ku
		} else if eku, ok := certificates.ExtKeyUsages[u]; ok {
			tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, eku)
		}
	}
	der, err := c.cfg.CA.Sign(tmpl, req.PublicKey)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
