package serviceaccount

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/clock"
)

// DefaultIssuer is the iss claim of the tokens and, unless told
// otherwise, their audience: kube-apiserver's --service-account-issuer as
// kubeadm sets it (and --api-audiences defaults to the issuer).
const DefaultIssuer = "https://kubernetes.default.svc.cluster.local"

// Token lifetimes of TokenRequest (pkg/apis/authentication/validation
// and the registry's defaulting).
const (
	DefaultExpirationSeconds = 3600
	MinExpirationSeconds     = 600
	MaxExpirationSeconds     = 1 << 32
)

// Groups every service account is in.
const (
	AllServiceAccountsGroup = "system:serviceaccounts"
	// Extra keys of a token bound to a pod (serviceaccount.PodNameKey...)
	// and of the node that pod ran on when the token was issued.
	PodNameKey  = "authentication.kubernetes.io/pod-name"
	PodUIDKey   = "authentication.kubernetes.io/pod-uid"
	NodeNameKey = "authentication.kubernetes.io/node-name"
	NodeUIDKey  = "authentication.kubernetes.io/node-uid"
	// CredentialIDKey is the extra that names the token itself,
	// "JTI=<its jti claim>", so that audit logs can tell one token of an
	// account from another (authenticationinfo's CredentialIDKey).
	CredentialIDKey = "authentication.kubernetes.io/credential-id"
)

// UserName is the user a service account's tokens authenticate as.
func UserName(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// NamespaceGroup is the group of the service accounts of a namespace.
func NamespaceGroup(namespace string) string {
	return "system:serviceaccounts:" + namespace
}

// Claims are a service account token's payload, with the JSON names of
// pkg/serviceaccount/claims.go.
type Claims struct {
	Issuer    string   `json:"iss"`
	Subject   string   `json:"sub"`
	Audience  []string `json:"aud"`
	Expiry    int64    `json:"exp"`
	IssuedAt  int64    `json:"iat"`
	NotBefore int64    `json:"nbf"`
	// JTI is the token's own random id (a UUID), which the authenticator
	// reports as the credential-id extra.
	JTI string `json:"jti,omitempty"`
	// Kubernetes are the private claims that tie the token to objects.
	Kubernetes *PrivateClaims `json:"kubernetes.io,omitempty"`
}

// PrivateClaims name the service account and the object the token is
// bound to; the authenticator checks that they still exist.
type PrivateClaims struct {
	Namespace      string `json:"namespace"`
	ServiceAccount Ref    `json:"serviceaccount"`
	Pod            *Ref   `json:"pod,omitempty"`
	Secret         *Ref   `json:"secret,omitempty"`
	// Node is where the bound pod was scheduled when the token was
	// issued (kube-apiserver's ServiceAccountTokenPodNodeInfo): reported
	// as the node-name and node-uid extras, not checked.
	Node *Ref `json:"node,omitempty"`
}

// Ref names an object by name and uid.
type Ref struct {
	Name string    `json:"name"`
	UID  types.UID `json:"uid"`
}

// Config builds Tokens.
type Config struct {
	// Key signs and verifies tokens (pki.EnsureServiceAccountKey).
	Key *ecdsa.PrivateKey
	// Issuer is the iss claim (DefaultIssuer when empty).
	Issuer string
	// Audiences are the API server's own (--api-audiences; [Issuer] when
	// empty): a token must name one to authenticate here.
	Audiences []string
	Clock     clock.Clock
	// Rand feeds the signatures' nonces.
	Rand io.Reader
	// GetServiceAccount, GetPod and GetSecret read the live objects,
	// without authorization (the API server's own storage).
	GetServiceAccount func(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	GetPod            func(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	GetSecret         func(ctx context.Context, namespace, name string) (*corev1.Secret, error)
	// GetNode, if set, reads the node a bound pod runs on, whose name and
	// uid the token then carries (optional, as in kube-apiserver: a
	// missing node leaves them out).
	GetNode func(ctx context.Context, name string) (*corev1.Node, error)
}

// Tokens issues and checks service account tokens: the JWT token
// generator and authenticator of pkg/serviceaccount, with the bound-token
// validator's lookups.
type Tokens struct {
	cfg Config
	kid string
}

// New checks cfg and returns Tokens.
func New(cfg Config) (*Tokens, error) {
	if cfg.Key == nil || cfg.Clock == nil || cfg.Rand == nil || cfg.GetServiceAccount == nil || cfg.GetPod == nil || cfg.GetSecret == nil {
		return nil, errors.New("serviceaccount: Key, Clock, Rand and the getters are required")
	}
	if cfg.Issuer == "" {
		cfg.Issuer = DefaultIssuer
	}
	if len(cfg.Audiences) == 0 {
		cfg.Audiences = []string{cfg.Issuer}
	}
	kid, err := KeyID(&cfg.Key.PublicKey)
	if err != nil {
		return nil, err
	}
	return &Tokens{cfg: cfg, kid: kid}, nil
}

// Audiences are the API server's audiences.
func (t *Tokens) Audiences() []string { return slices.Clone(t.cfg.Audiences) }

// Issue signs a token for sa, valid from now for expiration, for
// audiences; pod or secret (at most one) bind it, and node, when the pod
// has one, is recorded beside the pod. It returns the token and its
// expiry.
func (t *Tokens) Issue(sa *corev1.ServiceAccount, pod *corev1.Pod, node *corev1.Node, secret *corev1.Secret, audiences []string, expiration time.Duration) (string, time.Time, error) {
	now := t.cfg.Clock.Now().Truncate(time.Second)
	exp := now.Add(expiration)
	jti, err := uuid.NewRandomFromReader(t.cfg.Rand)
	if err != nil {
		return "", time.Time{}, err
	}
	private := &PrivateClaims{Namespace: sa.Namespace, ServiceAccount: Ref{Name: sa.Name, UID: sa.UID}}
	if pod != nil {
		private.Pod = &Ref{Name: pod.Name, UID: pod.UID}
		if node != nil {
			private.Node = &Ref{Name: node.Name, UID: node.UID}
		}
	}
	if secret != nil {
		private.Secret = &Ref{Name: secret.Name, UID: secret.UID}
	}
	claims := Claims{
		Issuer: t.cfg.Issuer, Subject: UserName(sa.Namespace, sa.Name), Audience: slices.Clone(audiences),
		Expiry: exp.Unix(), IssuedAt: now.Unix(), NotBefore: now.Unix(), JTI: jti.String(), Kubernetes: private,
	}
	tok, err := signJWT(t.cfg.Key, t.kid, claims, t.cfg.Rand)
	return tok, exp, err
}

// AuthenticateRequest implements authn.Authenticator for bearer tokens.
func (t *Tokens) AuthenticateRequest(req *http.Request) (*authn.UserInfo, bool, error) {
	token, ok := authn.BearerToken(req)
	if !ok {
		return nil, false, nil
	}
	return t.AuthenticateToken(req.Context(), token)
}

// AuthenticateToken checks a token: not a JWT of this issuer is "not
// mine" (ok false, no error), so that the token file may know it; a JWT of
// this issuer that fails a check is an error (401).
func (t *Tokens) AuthenticateToken(ctx context.Context, token string) (*authn.UserInfo, bool, error) {
	if !looksLikeJWT(token) {
		return nil, false, nil
	}
	var c Claims
	if err := parseJWT(token, &t.cfg.Key.PublicKey, t.kid, &c); err != nil {
		return nil, false, err
	}
	if c.Issuer != t.cfg.Issuer {
		return nil, false, nil // another issuer's token: not ours to judge
	}
	if err := t.validate(ctx, &c); err != nil {
		return nil, false, err
	}
	p := c.Kubernetes
	u := &authn.UserInfo{
		Name: UserName(p.Namespace, p.ServiceAccount.Name), UID: string(p.ServiceAccount.UID),
		Groups: []string{AllServiceAccountsGroup, NamespaceGroup(p.Namespace)},
	}
	if c.JTI != "" || p.Pod != nil {
		u.Extra = map[string][]string{}
	}
	if c.JTI != "" {
		u.Extra[CredentialIDKey] = []string{"JTI=" + c.JTI}
	}
	if p.Pod != nil {
		u.Extra[PodNameKey], u.Extra[PodUIDKey] = []string{p.Pod.Name}, []string{string(p.Pod.UID)}
		if p.Node != nil {
			u.Extra[NodeNameKey], u.Extra[NodeUIDKey] = []string{p.Node.Name}, []string{string(p.Node.UID)}
		}
	}
	return u, true, nil
}

// validate checks the time window, the audience and that the objects the
// token names still exist with the same uids (pkg/serviceaccount's
// validator), so that deleting a pod or its account revokes its tokens.
func (t *Tokens) validate(ctx context.Context, c *Claims) error {
	now := t.cfg.Clock.Now().Unix()
	switch {
	case c.Expiry == 0 || now >= c.Expiry:
		return errors.New("service account token has expired")
	case now < c.NotBefore:
		return errors.New("service account token is not valid yet")
	}
	target := t.cfg.Audiences
	if auds, ok := authn.AudiencesFrom(ctx); ok {
		target = auds // a TokenReview's spec.audiences
	}
	if !slices.ContainsFunc(c.Audience, func(a string) bool { return slices.Contains(target, a) }) {
		return errors.New("token audiences " + fmt.Sprintf("%q", c.Audience) + " is invalid for the target audiences " + fmt.Sprintf("%q", target))
	}
	p := c.Kubernetes
	if p == nil || p.Namespace == "" || p.ServiceAccount.Name == "" || c.Subject != UserName(p.Namespace, p.ServiceAccount.Name) {
		return errors.New("service account token claims are incomplete")
	}
	sa, err := t.cfg.GetServiceAccount(ctx, p.Namespace, p.ServiceAccount.Name)
	if err != nil {
		return fmt.Errorf("service account %s/%s: %w", p.Namespace, p.ServiceAccount.Name, err)
	}
	if sa.DeletionTimestamp != nil || sa.UID != p.ServiceAccount.UID {
		return fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.UID, p.ServiceAccount.UID)
	}
	if p.Pod != nil {
		pod, err := t.cfg.GetPod(ctx, p.Namespace, p.Pod.Name)
		if err != nil {
			return fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Pod.Name, err)
		}
		if pod.DeletionTimestamp != nil || pod.UID != p.Pod.UID {
			return fmt.Errorf("pod UID (%s) does not match claim (%s)", pod.UID, p.Pod.UID)
		}
	}
	if p.Secret != nil {
		secret, err := t.cfg.GetSecret(ctx, p.Namespace, p.Secret.Name)
		if err != nil {
			return fmt.Errorf("secret %s/%s: %w", p.Namespace, p.Secret.Name, err)
		}
		if secret.DeletionTimestamp != nil || secret.UID != p.Secret.UID {
			return fmt.Errorf("secret UID (%s) does not match claim (%s)", secret.UID, p.Secret.UID)
		}
	}
	return nil
}
