package apiserver

import (
	"context"
	crand "crypto/rand"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/reviews"
	"github.com/kubesim/kubesim/apiserver/serviceaccount"
)

// ServiceAccount tokens: what the API server needs to mint them through
// serviceaccounts/NAME/token (TokenRequest) and to accept them as
// credentials. The ServiceAccount admission plugin is in the chain
// (admission_chain.go), the "default" accounts of the system namespaces
// are made at Bootstrap (bootstrap.go).

// setUpServiceAccountTokens builds the token issuer when the server has a
// signing key, gives the serviceaccounts resource its token subresource,
// and composes the authenticator: the configured one, then service
// account tokens, then (with AnonymousAuth) anonymous.
func (s *Server) setUpServiceAccountTokens() error {
	s.authenticator = s.cfg.Authenticator
	if s.cfg.ServiceAccountKey != nil && !s.cfg.GenericOnly {
		tokens, err := serviceaccount.New(serviceaccount.Config{
			Key: s.cfg.ServiceAccountKey, Issuer: s.cfg.ServiceAccountIssuer, Audiences: s.cfg.APIAudiences,
			// Signature nonces come from crypto/rand: tokens are never in
			// traces, and the seeded source stays for uids.
			Clock: s.cfg.Clock, Rand: crand.Reader,
			GetServiceAccount: getObject[*corev1.ServiceAccount](s, "serviceaccounts"),
			GetPod:            getObject[*corev1.Pod](s, "pods"),
			GetSecret:         getObject[*corev1.Secret](s, "secrets"),
			GetNode: func(ctx context.Context, name string) (*corev1.Node, error) {
				return getObject[*corev1.Node](s, "nodes")(ctx, "", name)
			},
		})
		if err != nil {
			return err
		}
		s.tokens = tokens
		s.cfg.Resources = slices.Clone(s.cfg.Resources)
		for i, r := range s.cfg.Resources {
			if r.Group == "" && r.Name == "serviceaccounts" {
				withToken := *r
				withToken.CreateSubresources = map[string]registry.CreateSubresource{
					"token": {Resource: serviceaccount.TokenRequestResource(), Create: tokens.CreateToken},
				}
				s.cfg.Resources[i] = &withToken
			}
		}
		if s.authenticator != nil {
			s.authenticator = authn.Union(s.authenticator, tokens)
		}
	}
	// TokenReviews are answered by the token authenticators alone: a
	// token no one knows is not anonymous there.
	s.tokenAuthenticator = s.authenticator
	if s.authenticator != nil && s.cfg.AnonymousAuth {
		s.authenticator = authn.FailOnError(s.authenticator, authn.AnonymousAuthenticator())
	}
	return nil
}

// tokenReviewAuthentication is what TokenReviews are answered with.
func (s *Server) tokenReviewAuthentication() reviews.Authentication {
	a := reviews.Authentication{Tokens: s.tokenAuthenticator, Audiences: s.cfg.APIAudiences}
	if s.tokens != nil {
		a.Audiences = s.tokens.Audiences()
	}
	return a
}

// Tokens is the service account token issuer (nil without
// Config.ServiceAccountKey).
func (s *Server) Tokens() *serviceaccount.Tokens { return s.tokens }
