package authz

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

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
	// ModeNode is the Node authorizer (package nodeauthz), put before
	// RBAC as kube-apiserver's default "Node,RBAC".
	ModeNode = "Node"
)

// ParseModes splits an --authorization-mode value ("Node,RBAC") into its
// modes, in order; "" is AlwaysAllow. Each mode is known and appears once.
func ParseModes(mode string) ([]string, error) {
	if mode == "" {
		return []string{ModeAlwaysAllow}, nil
	}
	var modes []string
	for _, m := range strings.Split(mode, ",") {
		m = strings.TrimSpace(m)
		switch m {
		case ModeAlwaysAllow, ModeRBAC, ModeNode:
		default:
			return nil, fmt.Errorf("authorization-mode %q is not a valid mode (want %s, %s or %s)", m, ModeNode, ModeRBAC, ModeAlwaysAllow)
		}
		if slices.Contains(modes, m) {
			return nil, fmt.Errorf("authorization-mode %q has mode specified more than once", m)
		}
		modes = append(modes, m)
	}
	return modes, nil
}

// Union asks each authorizer in turn (kube-apiserver's union authorizer):
// the first allow or deny decides; the reasons of those with no opinion
// are joined into the refusal's.
func Union(auths ...Authorizer) Authorizer { return union(auths) }

type union []Authorizer

func (u union) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	var reasons []string
	var errs []error
	for _, auth := range u {
		d, reason, err := auth.Authorize(ctx, a)
		if err != nil {
			errs = append(errs, err)
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
		if d != DecisionNoOpinion {
			return d, reason, err
		}
	}
	return DecisionNoOpinion, strings.Join(reasons, "\n"), errors.Join(errs...)
}

// AlwaysAllow allows every request (--authorization-mode AlwaysAllow).
type AlwaysAllow struct{}

// Authorize implements Authorizer.
func (AlwaysAllow) Authorize(context.Context, Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}

// RulesFor says that everything is allowed, as kube-apiserver's
// alwaysAllowAuthorizer answers a SelfSubjectRulesReview.
func (AlwaysAllow) RulesFor(context.Context, *authn.UserInfo, string) ([]rbacv1.PolicyRule, []error) {
	return []rbacv1.PolicyRule{
		{Verbs: []string{rbacv1.VerbAll}, APIGroups: []string{rbacv1.APIGroupAll}, Resources: []string{rbacv1.ResourceAll}},
		{Verbs: []string{rbacv1.VerbAll}, NonResourceURLs: []string{rbacv1.NonResourceAll}},
	}, nil
}

// RuleResolver lists the rules a user holds (RBAC.RulesFor).
type RuleResolver interface {
	RulesFor(ctx context.Context, user *authn.UserInfo, namespace string) ([]rbacv1.PolicyRule, []error)
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
// an authenticated user is passed on: only the API server's own privileged
// loopback has none (the components' in-process clients carry their
// identity, attached by apiserver.LoopbackAs, and are authorized).
func WithAuthorization(h http.Handler, a Authorizer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u, ok := authn.UserFrom(req.Context())
		if !ok {
			h.ServeHTTP(w, req)
			return
		}
		info := request.InfoOf(req)
		attrs := AttributesFrom(u, info)
		attrs.FieldSelector = req.URL.Query().Get("fieldSelector")
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

// EmptyRuleSource holds no role and no binding: the rules of a server
// without RBAC (--authorization-mode Node alone).
type EmptyRuleSource struct{}

// GetRole implements RuleSource.
func (EmptyRuleSource) GetRole(_ context.Context, _, name string) (*rbacv1.Role, error) {
	return nil, api.NewNotFound(schema.GroupResource{Group: api.RBACGroupName, Resource: "roles"}, name)
}

// GetClusterRole implements RuleSource.
func (EmptyRuleSource) GetClusterRole(_ context.Context, name string) (*rbacv1.ClusterRole, error) {
	return nil, api.NewNotFound(schema.GroupResource{Group: api.RBACGroupName, Resource: "clusterroles"}, name)
}

// ListRoleBindings implements RuleSource.
func (EmptyRuleSource) ListRoleBindings(context.Context, string) ([]*rbacv1.RoleBinding, error) {
	return nil, nil
}

// ListClusterRoleBindings implements RuleSource.
func (EmptyRuleSource) ListClusterRoleBindings(context.Context) ([]*rbacv1.ClusterRoleBinding, error) {
	return nil, nil
}
