package authz

import (
	"context"
	"net/http"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
)

// The authorization modes of kube-apiserver's --authorization-mode that
// kubesim has.
const (
	ModeAlwaysAllow = "AlwaysAllow"
	ModeRBAC        = "RBAC"
)

// AlwaysAllow allows every request (--authorization-mode AlwaysAllow).
type AlwaysAllow struct{}

// Authorize implements Authorizer.
func (AlwaysAllow) Authorize(context.Context, Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}

// RulesFor says that everything is allowed, as kube-apiserver's
// alwaysAllowAuthorizer answers a SelfSubjectRulesReview.
func (AlwaysAllow) RulesFor(context.Context, *authn.UserInfo, string) ([]api.PolicyRule, []error) {
	return []api.PolicyRule{
		{Verbs: []string{api.VerbAll}, APIGroups: []string{api.APIGroupAll}, Resources: []string{api.ResourceAll}},
		{Verbs: []string{api.VerbAll}, NonResourceURLs: []string{api.NonResourceAll}},
	}, nil
}

// RuleResolver lists the rules a user holds (RBAC.RulesFor).
type RuleResolver interface {
	RulesFor(ctx context.Context, user *authn.UserInfo, namespace string) ([]api.PolicyRule, []error)
}

// AttributesFrom describes a request for the authorizer.
func AttributesFrom(u *authn.UserInfo, info *request.Info) Attributes {
	return Attributes{
		User: u, Verb: info.Verb, ResourceRequest: info.IsResourceRequest,
		Namespace: info.Namespace, APIGroup: info.APIGroup, APIVersion: info.APIVersion,
		Resource: info.Resource, Subresource: info.Subresource, Name: info.Name, Path: info.Path,
	}
}

// WithAuthorization refuses, with a 403 and before its body is read, a
// request the authorizer does not allow (the WithAuthorization filter of
// k8s.io/apiserver). It must run after authentication. A request without
// an authenticated user is passed on: only the control plane's in-process
// loopback handler has none, and kubesim does not authorize its own
// components (Kubernetes gives them identities and roles).
func WithAuthorization(h http.Handler, a Authorizer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u, ok := authn.UserFrom(req.Context())
		if !ok {
			h.ServeHTTP(w, req)
			return
		}
		info, ok := request.InfoFrom(req.Context())
		if !ok {
			info = request.Parse(req)
		}
		attrs := AttributesFrom(u, info)
		d, reason, err := a.Authorize(req.Context(), attrs)
		if d == DecisionAllow {
			h.ServeHTTP(w, req)
			return
		}
		if err != nil && reason == "" {
			reason = err.Error()
		}
		responsewriters.WriteError(w, Forbidden(attrs, reason))
	})
}
