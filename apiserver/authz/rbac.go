package authz

import (
	"context"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/authn"
)

// Attributes describe one request to authorize
// (k8s.io/apiserver/pkg/authorization/authorizer.Attributes).
type Attributes struct {
	User *authn.UserInfo
	// Verb is the API verb (get, list, watch, create, update, patch,
	// delete, deletecollection, or impersonate, bind, escalate…), or for a
	// non-resource request the lower-case HTTP method.
	Verb string
	// ResourceRequest says the request is for an API object; otherwise
	// Path names a non-resource URL (/healthz, /version, /api).
	ResourceRequest bool
	Namespace       string
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Name            string
	Path            string
	// FieldSelector is the request's fieldSelector (list and watch): the
	// Node authorizer lets a kubelet list only its pods by it.
	FieldSelector string
}

// Decision is an authorizer's answer.
type Decision int

// The decisions. RBAC never denies: it allows or has no opinion.
const (
	DecisionNoOpinion Decision = iota
	DecisionAllow
	DecisionDeny
)

// Authorizer decides a request; reason explains a refusal (it ends the
// 403 message) and may be empty.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (d Decision, reason string, err error)
}

// RuleSource reads roles and bindings. A missing role is an error whose
// text the refusal reports ("clusterroles.rbac.authorization.k8s.io
// \"x\" not found").
type RuleSource interface {
	GetRole(ctx context.Context, namespace, name string) (*rbacv1.Role, error)
	GetClusterRole(ctx context.Context, name string) (*rbacv1.ClusterRole, error)
	ListRoleBindings(ctx context.Context, namespace string) ([]*rbacv1.RoleBinding, error)
	ListClusterRoleBindings(ctx context.Context) ([]*rbacv1.ClusterRoleBinding, error)
}

// SystemPrivilegedGroup is allowed everything (kube-apiserver's
// privileged-group authorizer, before RBAC).
const SystemPrivilegedGroup = "system:masters"

// RBAC is the role-based authorizer.
type RBAC struct {
	Source RuleSource
}

// Authorize implements Authorizer.
func (r *RBAC) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	if a.User != nil && slices.Contains(a.User.Groups, SystemPrivilegedGroup) {
		return DecisionAllow, "", nil
	}
	allowed := false
	var errs []string
	r.visitRules(ctx, a.User, a.Namespace, func(rule *rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err.Error())
			return true
		}
		if RuleAllows(a, rule) {
			allowed = true
			return false
		}
		return true
	})
	if allowed {
		return DecisionAllow, "", nil
	}
	reason := ""
	if len(errs) > 0 {
		reason = "RBAC: " + strings.Join(errs, ", ")
		if len(errs) > 1 {
			reason = "RBAC: [" + strings.Join(errs, ", ") + "]"
		}
	}
	return DecisionNoOpinion, reason, nil
}

// RulesFor returns every rule that applies to user in namespace ("" for
// the cluster-wide ones only): what SelfSubjectRulesReview lists and what
// the escalation check compares against. Errors (missing roles) are
// returned beside the rules that could be read.
func (r *RBAC) RulesFor(ctx context.Context, user *authn.UserInfo, namespace string) ([]rbacv1.PolicyRule, []error) {
	var rules []rbacv1.PolicyRule
	var errs []error
	r.visitRules(ctx, user, namespace, func(rule *rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
		} else {
			rules = append(rules, *rule)
		}
		return true
	})
	return rules, errs
}

// visitRules calls visit with each rule granted to user, cluster-wide
// first, then in namespace; visit returns false to stop.
func (r *RBAC) visitRules(ctx context.Context, user *authn.UserInfo, namespace string, visit func(*rbacv1.PolicyRule, error) bool) {
	if user == nil {
		return
	}
	crbs, err := r.Source.ListClusterRoleBindings(ctx)
	if err != nil && !visit(nil, err) {
		return
	}
	for _, b := range crbs {
		if !appliesTo(user, b.Subjects, "") {
			continue
		}
		rules, err := r.roleRules(ctx, b.RoleRef, "")
		if err != nil {
			if !visit(nil, err) {
				return
			}
			continue
		}
		for i := range rules {
			if !visit(&rules[i], nil) {
				return
			}
		}
	}
	if namespace == "" {
		return
	}
	rbs, err := r.Source.ListRoleBindings(ctx, namespace)
	if err != nil && !visit(nil, err) {
		return
	}
	for _, b := range rbs {
		if !appliesTo(user, b.Subjects, namespace) {
			continue
		}
		rules, err := r.roleRules(ctx, b.RoleRef, namespace)
		if err != nil {
			if !visit(nil, err) {
				return
			}
			continue
		}
		for i := range rules {
			if !visit(&rules[i], nil) {
				return
			}
		}
	}
}

// roleRules reads the rules of the role a binding refers to.
func (r *RBAC) roleRules(ctx context.Context, ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "ClusterRole":
		cr, err := r.Source.GetClusterRole(ctx, ref.Name)
		if err != nil {
			return nil, err
		}
		return cr.Rules, nil
	case "Role":
		if namespace == "" {
			return nil, fmt.Errorf("a ClusterRoleBinding may not refer to the Role %q", ref.Name)
		}
		role, err := r.Source.GetRole(ctx, namespace, ref.Name)
		if err != nil {
			return nil, err
		}
		return role.Rules, nil
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

// ServiceAccountUsername is the user name of a service account's tokens.
func ServiceAccountUsername(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// appliesTo reports whether one of subjects names user; a ServiceAccount
// subject without a namespace is in the binding's.
func appliesTo(user *authn.UserInfo, subjects []rbacv1.Subject, bindingNamespace string) bool {
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			if user.Name == s.Name {
				return true
			}
		case api.GroupSubjectKind:
			if slices.Contains(user.Groups, s.Name) {
				return true
			}
		case rbacv1.ServiceAccountKind:
			ns := s.Namespace
			if ns == "" {
				ns = bindingNamespace
			}
			if ns != "" && user.Name == ServiceAccountUsername(ns, s.Name) {
				return true
			}
		}
	}
	return false
}

// RuleAllows reports whether rule allows the request a describes.
func RuleAllows(a Attributes, rule *rbacv1.PolicyRule) bool {
	if a.ResourceRequest {
		combined := a.Resource
		if a.Subresource != "" {
			combined += "/" + a.Subresource
		}
		return verbMatches(rule, a.Verb) &&
			apiGroupMatches(rule, a.APIGroup) &&
			resourceMatches(rule, combined, a.Subresource) &&
			resourceNameMatches(rule, a.Name)
	}
	return verbMatches(rule, a.Verb) && nonResourceURLMatches(rule, a.Path)
}

func verbMatches(rule *rbacv1.PolicyRule, verb string) bool {
	return slices.Contains(rule.Verbs, rbacv1.VerbAll) || slices.Contains(rule.Verbs, verb)
}

func apiGroupMatches(rule *rbacv1.PolicyRule, group string) bool {
	return slices.Contains(rule.APIGroups, rbacv1.APIGroupAll) || slices.Contains(rule.APIGroups, group)
}

// resourceMatches: "*" matches everything, "pods/log" its subresource, and
// "*/scale" the scale subresource of anything.
func resourceMatches(rule *rbacv1.PolicyRule, combined, subresource string) bool {
	for _, rr := range rule.Resources {
		switch {
		case rr == rbacv1.ResourceAll, rr == combined:
			return true
		case subresource != "" && rr == "*/"+subresource:
			return true
		}
	}
	return false
}

// resourceNameMatches: a rule without names matches every name; one with
// names only those (and so never a list or a create, which have none).
func resourceNameMatches(rule *rbacv1.PolicyRule, name string) bool {
	return len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, name)
}

// nonResourceURLMatches: "*" matches every path, "/apis/*" every path
// below /apis/.
func nonResourceURLMatches(rule *rbacv1.PolicyRule, path string) bool {
	for _, u := range rule.NonResourceURLs {
		switch {
		case u == rbacv1.NonResourceAll, u == path:
			return true
		case strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimSuffix(u, "*")):
			return true
		}
	}
	return false
}

// ForbiddenMessage is the text of the 403 kube-apiserver answers when a
// request is not authorized (responsewriters.forbiddenMessage), with the
// authorizer's reason after a colon.
func ForbiddenMessage(a Attributes, reason string) string {
	user := ""
	if a.User != nil {
		user = a.User.Name
	}
	var msg string
	switch {
	case !a.ResourceRequest:
		msg = fmt.Sprintf("User %q cannot %s path %q", user, a.Verb, a.Path)
	default:
		resource := a.Resource
		if a.Subresource != "" {
			resource += "/" + a.Subresource
		}
		if a.Namespace != "" {
			msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", user, a.Verb, resource, a.APIGroup, a.Namespace)
		} else {
			msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", user, a.Verb, resource, a.APIGroup)
		}
	}
	if reason != "" {
		msg += ": " + reason
	}
	return msg
}

// Forbidden is the 403 Status of an unauthorized request: "pods is
// forbidden: User ..." or, for a named object, `pods "web" is forbidden:
// User ...`.
func Forbidden(a Attributes, reason string) *api.StatusError {
	// The resource without its subresource: `pods "web" is forbidden:
	// User "x" cannot create resource "pods/exec" ...`.
	gr := schema.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	return api.NewForbidden(gr, a.Name, fmt.Errorf("%s", ForbiddenMessage(a, reason)))
}
