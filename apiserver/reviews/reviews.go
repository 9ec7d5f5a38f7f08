package reviews

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// The groups of the review resources.
const (
	AuthorizationGroup  = "authorization.k8s.io"
	AuthenticationGroup = "authentication.k8s.io"
)

// Authentication is what a TokenReview is answered with: the server's
// token authenticators (without anonymous) and its own audiences
// (--api-audiences), the ones a review that names none asks for.
type Authentication struct {
	Tokens    authn.Authenticator
	Audiences []string
}

// Resources are the review resources, answered by a (the server's
// authorizer), rules (its rule lister) and tokens (TokenReview).
func Resources(a authz.Authorizer, rules authz.RuleResolver, tokens Authentication) []*registry.Resource {
	r := &reviewer{authorizer: a, rules: rules, tokens: tokens}
	res := func(group, name, kind string, newObj func() api.Object, goType any, st registry.Strategy, answer func(context.Context, api.Object) (api.Object, error)) *registry.Resource {
		return &registry.Resource{
			Group: group, Version: "v1", Name: name, SingularName: strings.ToLower(kind), Kind: kind, ListKind: kind + "List",
			New: newObj, Strategy: st, Schema: schema.FromGoType(reflect.TypeOf(goType)), CreateOnly: answer,
		}
	}
	local := res(AuthorizationGroup, "localsubjectaccessreviews", "LocalSubjectAccessReview",
		func() api.Object { return &authorizationv1.LocalSubjectAccessReview{} }, authorizationv1.LocalSubjectAccessReview{}, lsarStrategy{}, r.localSubjectAccessReview)
	local.Namespaced = true
	return []*registry.Resource{
		res(AuthorizationGroup, "selfsubjectaccessreviews", "SelfSubjectAccessReview",
			func() api.Object { return &authorizationv1.SelfSubjectAccessReview{} }, authorizationv1.SelfSubjectAccessReview{}, ssarStrategy{}, r.selfSubjectAccessReview),
		res(AuthorizationGroup, "subjectaccessreviews", "SubjectAccessReview",
			func() api.Object { return &authorizationv1.SubjectAccessReview{} }, authorizationv1.SubjectAccessReview{}, sarStrategy{}, r.subjectAccessReview),
		local,
		res(AuthorizationGroup, "selfsubjectrulesreviews", "SelfSubjectRulesReview",
			func() api.Object { return &authorizationv1.SelfSubjectRulesReview{} }, authorizationv1.SelfSubjectRulesReview{}, nil, r.selfSubjectRulesReview),
		res(AuthenticationGroup, "selfsubjectreviews", "SelfSubjectReview",
			func() api.Object { return &authenticationv1.SelfSubjectReview{} }, authenticationv1.SelfSubjectReview{}, nil, selfSubjectReview),
		res(AuthenticationGroup, "tokenreviews", "TokenReview",
			func() api.Object { return &authenticationv1.TokenReview{} }, authenticationv1.TokenReview{}, nil, r.tokenReview),
	}
}

type reviewer struct {
	authorizer authz.Authorizer
	rules      authz.RuleResolver
	tokens     Authentication
}

// attributes turns a review's spec into the authorizer's attributes.
func attributes(u *authn.UserInfo, ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) authz.Attributes {
	if ra != nil {
		return authz.Attributes{User: u, Verb: ra.Verb, ResourceRequest: true, Namespace: ra.Namespace,
			APIGroup: ra.Group, APIVersion: ra.Version, Resource: ra.Resource, Subresource: ra.Subresource, Name: ra.Name}
	}
	return authz.Attributes{User: u, Verb: nra.Verb, Path: nra.Path}
}

func (r *reviewer) decide(ctx context.Context, a authz.Attributes) authorizationv1.SubjectAccessReviewStatus {
	d, reason, err := r.authorizer.Authorize(ctx, a)
	st := authorizationv1.SubjectAccessReviewStatus{Allowed: d == authz.DecisionAllow, Denied: d == authz.DecisionDeny, Reason: reason}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	return st
}

// user is the requesting user; the loopback has none and asks as nobody.
func user(ctx context.Context) *authn.UserInfo {
	u, _ := authn.UserFrom(ctx)
	return u
}

func (r *reviewer) selfSubjectAccessReview(ctx context.Context, obj api.Object) (api.Object, error) {
	rev := obj.(*authorizationv1.SelfSubjectAccessReview)
	rev.Status = r.decide(ctx, attributes(user(ctx), rev.Spec.ResourceAttributes, rev.Spec.NonResourceAttributes))
	return rev, nil
}

func (r *reviewer) subjectAccessReview(ctx context.Context, obj api.Object) (api.Object, error) {
	rev := obj.(*authorizationv1.SubjectAccessReview)
	u := &authn.UserInfo{Name: rev.Spec.User, UID: rev.Spec.UID, Groups: rev.Spec.Groups}
	rev.Status = r.decide(ctx, attributes(u, rev.Spec.ResourceAttributes, rev.Spec.NonResourceAttributes))
	return rev, nil
}

// localSubjectAccessReview is a SubjectAccessReview about one namespace,
// which a namespace's admin may be allowed to ask
// (pkg/registry/authorization/localsubjectaccessreview).
func (r *reviewer) localSubjectAccessReview(ctx context.Context, obj api.Object) (api.Object, error) {
	rev := obj.(*authorizationv1.LocalSubjectAccessReview)
	u := &authn.UserInfo{Name: rev.Spec.User, UID: rev.Spec.UID, Groups: rev.Spec.Groups}
	rev.Status = r.decide(ctx, attributes(u, rev.Spec.ResourceAttributes, rev.Spec.NonResourceAttributes))
	return rev, nil
}

// tokenReview says whom a bearer token authenticates, as the server itself
// would (pkg/registry/authentication/tokenreview): webhook token
// authenticators and other components ask it.
func (r *reviewer) tokenReview(ctx context.Context, obj api.Object) (api.Object, error) {
	rev := obj.(*authenticationv1.TokenReview)
	if rev.Spec.Token == "" {
		return nil, api.NewBadRequest("token is required for TokenReview in authentication")
	}
	if r.tokens.Tokens == nil {
		return rev, nil // no authenticator: nothing is known of any token
	}
	auds := rev.Spec.Audiences
	if len(auds) == 0 {
		auds = r.tokens.Audiences
	}
	// A request carrying nothing but the token.
	req, err := http.NewRequestWithContext(authn.WithAudiences(ctx, auds), http.MethodPost, "/", nil)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	req.Header.Set("Authorization", "Bearer "+rev.Spec.Token)
	u, ok, err := r.tokens.Tokens.AuthenticateRequest(req)
	rev.Status.Authenticated = ok
	if err != nil {
		rev.Status.Error = err.Error()
	}
	if ok && u != nil {
		groups := slices.Clone(u.Groups)
		if !slices.Contains(groups, authn.AllAuthenticated) {
			groups = append(groups, authn.AllAuthenticated)
		}
		rev.Status.User = authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: groups, Extra: map[string]authenticationv1.ExtraValue{}}
		for k, v := range u.Extra {
			rev.Status.User.Extra[k] = authenticationv1.ExtraValue(v)
		}
		rev.Status.Audiences = slices.Clone(auds)
	}
	return rev, nil
}

func (r *reviewer) selfSubjectRulesReview(ctx context.Context, obj api.Object) (api.Object, error) {
	rev := obj.(*authorizationv1.SelfSubjectRulesReview)
	if rev.Spec.Namespace == "" {
		return nil, api.NewBadRequest("no namespace on request")
	}
	rules, errs := r.rules.RulesFor(ctx, user(ctx), rev.Spec.Namespace)
	st := authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{}, NonResourceRules: []authorizationv1.NonResourceRule{}}
	for _, p := range rules {
		if len(p.NonResourceURLs) > 0 {
			st.NonResourceRules = append(st.NonResourceRules, authorizationv1.NonResourceRule{Verbs: p.Verbs, NonResourceURLs: p.NonResourceURLs})
		} else {
			st.ResourceRules = append(st.ResourceRules, authorizationv1.ResourceRule{Verbs: p.Verbs, APIGroups: p.APIGroups, Resources: p.Resources, ResourceNames: p.ResourceNames})
		}
	}
	if len(errs) > 0 {
		st.Incomplete = true
		st.EvaluationError = aggregate(errs)
	}
	rev.Status = st
	return rev, nil
}

// aggregate prints errors as an aggregate error does: one alone, several
// in brackets.
func aggregate(errs []error) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

func selfSubjectReview(ctx context.Context, obj api.Object) (api.Object, error) {
	rev := obj.(*authenticationv1.SelfSubjectReview)
	u := user(ctx)
	if u == nil {
		return nil, api.NewInternalError(fmt.Errorf("no user in the request"))
	}
	rev.Status.UserInfo = authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	return rev, nil
}

// validateSpec is ValidateSelfSubjectAccessReviewSpec: exactly one of
// the attributes.
func validateSpec(ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) field.ErrorList {
	p := field.NewPath("spec")
	var errs field.ErrorList
	if ra != nil && nra != nil {
		errs = append(errs, field.Invalid(p.Child("nonResourceAttributes"), nra, "cannot be specified in combination with resourceAttributes"))
	}
	if ra == nil && nra == nil {
		errs = append(errs, field.Invalid(p.Child("resourceAttributes"), nra, "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	return errs
}

type ssarStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy.
func (ssarStrategy) Validate(obj api.Object) field.ErrorList {
	s := obj.(*authorizationv1.SelfSubjectAccessReview).Spec
	return validateSpec(s.ResourceAttributes, s.NonResourceAttributes)
}

type lsarStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy (ValidateLocalSubjectAccessReview):
// a SubjectAccessReview's checks, about resources in its own namespace
// only, with no metadata but that namespace.
func (lsarStrategy) Validate(obj api.Object) field.ErrorList {
	rev := obj.(*authorizationv1.LocalSubjectAccessReview)
	errs := validateSARSpec(rev.Spec)
	meta := rev.ObjectMeta
	meta.Namespace, meta.ManagedFields = "", nil
	if !equality.Semantic.DeepEqual(metav1.ObjectMeta{}, meta) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), rev.ObjectMeta, "must be empty except for namespace"))
	}
	if ra := rev.Spec.ResourceAttributes; ra != nil && ra.Namespace != rev.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("spec.resourceAttributes.namespace"), ra.Namespace, "must match metadata.namespace"))
	}
	if nra := rev.Spec.NonResourceAttributes; nra != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec.nonResourceAttributes"), nra, "disallowed on this kind of request"))
	}
	return errs
}

type sarStrategy struct{ registry.DefaultStrategy }

// Validate implements registry.Strategy (ValidateSubjectAccessReviewSpec).
func (sarStrategy) Validate(obj api.Object) field.ErrorList {
	return validateSARSpec(obj.(*authorizationv1.SubjectAccessReview).Spec)
}

// validateSARSpec is ValidateSubjectAccessReviewSpec: one kind of
// attributes, and someone to ask about.
func validateSARSpec(s authorizationv1.SubjectAccessReviewSpec) field.ErrorList {
	errs := validateSpec(s.ResourceAttributes, s.NonResourceAttributes)
	if s.User == "" && len(s.Groups) == 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "user"), s.User, "at least one of user or group must be specified"))
	}
	return errs
}
