package apiserver

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/serviceaccount"
)

// ServiceAccounts and their tokens (issue 14): what the API server needs
// to mint tokens through serviceaccounts/NAME/token and to accept them.

// getObject reads one object of a core/v1 resource from the server's own
// storage, without authorization.
func getObject[T api.Object](s *Server, resource string) func(ctx context.Context, ns, name string) (T, error) {
	return func(ctx context.Context, ns, name string) (T, error) {
		var zero T
		st, ok := s.Store("", "v1", resource)
		if !ok {
			return zero, api.NewNotFound(api.GroupResource{Resource: resource}, name)
		}
		obj, err := st.Get(ctx, ns, name)
		if err != nil {
			return zero, err
		}
		t, ok := obj.(T)
		if !ok {
			return zero, api.NewInternalError(fmt.Errorf("%s store returned %T", resource, obj))
		}
		return t, nil
	}
}

// setUpServiceAccounts builds the token issuer when the server has a
// signing key, gives the serviceaccounts resource its token subresource,
// and composes the authenticator: the configured one, then service
// account tokens, then (with AnonymousAuth) anonymous.
func (s *Server) setUpServiceAccounts() error {
	s.authenticator = s.cfg.Authenticator
	if s.cfg.ServiceAccountKey != nil && !s.cfg.GenericOnly {
		tokens, err := serviceaccount.New(serviceaccount.Config{
			Key: s.cfg.ServiceAccountKey, Issuer: s.cfg.ServiceAccountIssuer, Audiences: s.cfg.APIAudiences,
			// Signature nonces come from crypto/rand: tokens are never in
			// traces, and the seeded source stays for uids.
			Clock: s.cfg.Clock, Rand: crand.Reader,
			GetServiceAccount: getObject[*api.ServiceAccount](s, "serviceaccounts"),
			GetPod:            getObject[*api.Pod](s, "pods"),
			GetSecret:         getObject[*api.Secret](s, "secrets"),
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
	if s.authenticator != nil && s.cfg.AnonymousAuth {
		s.authenticator = authn.FailOnError(s.authenticator, authn.AnonymousAuthenticator())
	}
	return nil
}

// Tokens is the service account token issuer (nil without
// Config.ServiceAccountKey).
func (s *Server) Tokens() *serviceaccount.Tokens { return s.tokens }

// serviceAccountAdmission is the ServiceAccount admission plugin, reading
// accounts from this server's storage, when Config.ServiceAccountAdmission
// asks for it.
func (s *Server) serviceAccountAdmission() []any {
	if !s.cfg.ServiceAccountAdmission {
		return nil
	}
	return []any{&admission.ServiceAccount{Get: getObject[*api.ServiceAccount](s, "serviceaccounts"), Suffix: s.ids.Suffix}}
}

// bootstrapServiceAccounts creates the "default" ServiceAccount of the
// system namespaces when the ServiceAccount admission plugin is on. In
// Kubernetes the serviceaccount controller makes them within a second of
// the start, and the plugin waits up to a second for a missing "default";
// kubesim's plugin never waits (step mode must not block), so the first
// pods, created right after the start, find their account here. The
// controller makes the others and remakes these if deleted.
func (s *Server) bootstrapServiceAccounts(ctx context.Context) error {
	st, ok := s.Store("", "v1", "serviceaccounts")
	if !s.cfg.ServiceAccountAdmission || !ok {
		return nil
	}
	for _, ns := range SystemNamespaces {
		sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: admission.DefaultServiceAccountName, Namespace: ns}}
		if _, err := st.Create(ctx, ns, sa, registry.CreateOptions{}); err != nil && !api.IsAlreadyExists(err) {
			return fmt.Errorf("creating service account %s/%s: %w", ns, sa.Name, err)
		}
	}
	return nil
}
