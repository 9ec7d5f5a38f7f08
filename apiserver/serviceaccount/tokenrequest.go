package serviceaccount

import (
	"context"
	"fmt"
	"reflect"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// TokenRequestResource describes the posted authentication.k8s.io/v1
// TokenRequest, for decoding.
func TokenRequestResource() *registry.Resource {
	return &registry.Resource{
		Group: "authentication.k8s.io", Version: "v1", Name: "tokenrequests", SingularName: "tokenrequest", Kind: "TokenRequest",
		Namespaced: true,
		New:        func() api.Object { return &authenticationv1.TokenRequest{} },
		Schema:     schema.FromGoType(reflect.TypeOf(authenticationv1.TokenRequest{})),
	}
}

// CreateToken serves POST serviceaccounts/NAME/token
// (pkg/registry/core/serviceaccount/storage/token.go): it defaults and
// checks the request, looks up the account and the bound object, and
// answers the request with the signed token. Nothing is stored.
func (t *Tokens) CreateToken(ctx context.Context, st *registry.Store, ns, name string, obj api.Object) (api.Object, error) {
	req, ok := obj.(*authenticationv1.TokenRequest)
	if !ok {
		return nil, api.NewBadRequest(fmt.Sprintf("not a TokenRequest: %T", obj))
	}
	out := req.DeepCopy()
	if len(out.Spec.Audiences) == 0 {
		out.Spec.Audiences = t.Audiences()
	}
	if out.Spec.ExpirationSeconds == nil {
		seconds := int64(DefaultExpirationSeconds)
		out.Spec.ExpirationSeconds = &seconds
	}
	if errs := validateTokenRequest(out); len(errs) > 0 {
		return nil, api.NewInvalid(k8sschema.GroupKind{Group: "authentication.k8s.io", Kind: "TokenRequest"}, out.Name, errs)
	}
	cur, err := st.Get(ctx, ns, name)
	if err != nil {
		return nil, err // serviceaccounts "x" not found
	}
	sa := cur.(*corev1.ServiceAccount)
	var pod *corev1.Pod
	var secret *corev1.Secret
	if ref := out.Spec.BoundObjectRef; ref != nil {
		var uid types.UID
		switch ref.Kind {
		case "Pod":
			if pod, err = t.cfg.GetPod(ctx, ns, ref.Name); err != nil {
				return nil, err
			}
			if pod.Spec.ServiceAccountName != name {
				return nil, api.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", name))
			}
			uid = pod.UID
		case "Secret":
			if secret, err = t.cfg.GetSecret(ctx, ns, ref.Name); err != nil {
				return nil, err
			}
			uid = secret.UID
		default:
			return nil, api.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to object of kind %q", name, ref.Kind))
		}
		if ref.UID != "" && ref.UID != uid {
			return nil, api.NewConflict(k8sschema.GroupResource{Resource: "serviceaccounts"}, name,
				fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
		}
		out.Spec.BoundObjectRef.UID = uid
	}
	var node *corev1.Node
	if pod != nil && pod.Spec.NodeName != "" && t.cfg.GetNode != nil {
		// The node is optional: one that cannot be read is left out.
		node, _ = t.cfg.GetNode(ctx, pod.Spec.NodeName)
	}
	token, exp, err := t.Issue(sa, pod, node, secret, out.Spec.Audiences, time.Duration(*out.Spec.ExpirationSeconds)*time.Second)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	out.TypeMeta = metav1.TypeMeta{Kind: "TokenRequest", APIVersion: "authentication.k8s.io/v1"}
	out.Name, out.Namespace = name, ns
	out.CreationTimestamp = metav1.NewTime(t.cfg.Clock.Now().Truncate(time.Second))
	out.Status = authenticationv1.TokenRequestStatus{Token: token, ExpirationTimestamp: metav1.NewTime(exp)}
	return out, nil
}

// validateTokenRequest is ValidateTokenRequest of
// pkg/apis/authentication/validation.
func validateTokenRequest(tr *authenticationv1.TokenRequest) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec", "expirationSeconds")
	switch seconds := *tr.Spec.ExpirationSeconds; {
	case seconds < MinExpirationSeconds:
		errs = append(errs, field.Invalid(p, seconds, "may not specify a duration less than 10 minutes"))
	case seconds > MaxExpirationSeconds:
		errs = append(errs, field.Invalid(p, seconds, "may not specify a duration larger than 2^32 seconds"))
	}
	return errs
}
