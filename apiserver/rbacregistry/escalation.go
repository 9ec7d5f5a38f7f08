package rbacregistry

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
)

// fullAuthority is what an aggregated ClusterRole may come to hold: its
// selectors can gather anything, so creating one needs everything.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{rbacv1.VerbAll}, APIGroups: []string{rbacv1.APIGroupAll}, Resources: []string{rbacv1.ResourceAll}},
	{Verbs: []string{rbacv1.VerbAll}, NonResourceURLs: []string{rbacv1.NonResourceAll}},
}

// Escalation refuses a role or a binding that would grant its author rules
// it does not hold (pkg/registry/rbac/{role,clusterrole,rolebinding,
// clusterrolebinding}/policybased): 403 with ConfirmNoEscalation's text.
// A user who may "escalate" a role, or "bind" the role a binding refers
// to, is not checked; neither is system:masters nor the control plane's
// own loopback (no user). It is an admission validator so that it sees
// the object after defaulting, and the user.
type Escalation struct {
	// Authorizer answers the escalate and bind checks.
	Authorizer authz.Authorizer
	// Rules lists the rules the author holds.
	Rules authz.RuleResolver
	// Source reads the role a binding refers to.
	Source authz.RuleSource
}

// PluginName is the name kube-apiserver gives the plugin, in the trace
// and the admission metrics.
func (*Escalation) PluginName() string { return "Escalation" }

// Validate implements admission.Validator.
func (e *Escalation) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Resource.Group != api.RBACGroupName || (a.Operation != admission.Create && a.Operation != admission.Update) {
		return nil
	}
	if a.User == nil || slices.Contains(a.User.Groups, authz.SystemPrivilegedGroup) {
		return nil // EscalationAllowed
	}
	gr := schema.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Resource}
	var rules []rbacv1.PolicyRule
	switch obj := a.Object.(type) {
	case *rbacv1.Role:
		if old, ok := a.OldObject.(*rbacv1.Role); ok && reflect.DeepEqual(old.Rules, obj.Rules) {
			return nil
		}
		if e.allowed(ctx, a.User, "escalate", a.Resource.Resource, a.Namespace, a.Name) {
			return nil
		}
		rules = obj.Rules
	case *rbacv1.ClusterRole:
		if old, ok := a.OldObject.(*rbacv1.ClusterRole); ok && reflect.DeepEqual(old.Rules, obj.Rules) && reflect.DeepEqual(old.AggregationRule, obj.AggregationRule) {
			return nil
		}
		if e.allowed(ctx, a.User, "escalate", a.Resource.Resource, "", a.Name) {
			return nil
		}
		rules = obj.Rules
		if obj.AggregationRule != nil {
			rules = fullAuthority
		}
	case *rbacv1.RoleBinding:
		if old, ok := a.OldObject.(*rbacv1.RoleBinding); ok && reflect.DeepEqual(old.Subjects, obj.Subjects) && old.RoleRef == obj.RoleRef {
			return nil
		}
		r, err := e.bindingRules(ctx, a.User, obj.RoleRef, a.Namespace)
		if err != nil || r == nil {
			return err
		}
		rules = r
	case *rbacv1.ClusterRoleBinding:
		if old, ok := a.OldObject.(*rbacv1.ClusterRoleBinding); ok && reflect.DeepEqual(old.Subjects, obj.Subjects) && old.RoleRef == obj.RoleRef {
			return nil
		}
		r, err := e.bindingRules(ctx, a.User, obj.RoleRef, "")
		if err != nil || r == nil {
			return err
		}
		rules = r
	default:
		return nil
	}
	if err := e.confirmNoEscalation(ctx, a.User, a.Namespace, rules); err != nil {
		return api.NewForbidden(gr, a.Name, err)
	}
	return nil
}

// bindingRules returns the rules of the role a binding refers to, or nil
// when the user may bind that role anyway (BindingAuthorized). A missing
// role is its NotFound, as in Kubernetes.
func (e *Escalation) bindingRules(ctx context.Context, u *authn.UserInfo, ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	// The bind check is in the binding's namespace ("" for a
	// ClusterRoleBinding), so that binding a ClusterRole can be delegated
	// one namespace at a time.
	resource := "clusterroles"
	if ref.Kind == "Role" {
		resource = "roles"
	}
	if e.allowed(ctx, u, "bind", resource, namespace, ref.Name) {
		return nil, nil
	}
	switch ref.Kind {
	case "Role":
		r, err := e.Source.GetRole(ctx, namespace, ref.Name)
		if err != nil {
			return nil, err
		}
		return r.Rules, nil
	case "ClusterRole":
		r, err := e.Source.GetClusterRole(ctx, ref.Name)
		if err != nil {
			return nil, err
		}
		return r.Rules, nil
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

func (e *Escalation) allowed(ctx context.Context, u *authn.UserInfo, verb, resource, namespace, name string) bool {
	d, _, _ := e.Authorizer.Authorize(ctx, authz.Attributes{User: u, Verb: verb, ResourceRequest: true,
		APIGroup: api.RBACGroupName, APIVersion: "v1", Resource: resource, Namespace: namespace, Name: name})
	return d == authz.DecisionAllow
}

// confirmNoEscalation is ConfirmNoEscalation: the author's rules in the
// namespace must cover rules; errors resolving the author's own rules are
// named after the missing ones.
func (e *Escalation) confirmNoEscalation(ctx context.Context, u *authn.UserInfo, namespace string, rules []rbacv1.PolicyRule) error {
	owner, errs := e.Rules.RulesFor(ctx, u, namespace)
	ok, missing := authz.Covers(owner, rules)
	if ok {
		return nil
	}
	msg := authz.EscalationError(u, missing)
	if len(errs) > 0 {
		msg += fmt.Sprintf("; resolution errors: %v", errs)
	}
	return errors.New(msg)
}
