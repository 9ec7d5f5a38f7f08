package impersonation

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
)

// The impersonation headers (k8s.io/api/authentication/v1).
const (
	UserHeader        = "Impersonate-User"
	GroupHeader       = "Impersonate-Group"
	UIDHeader         = "Impersonate-Uid"
	ExtraHeaderPrefix = "Impersonate-Extra-"
)

// authenticationGroup is the API group of the uids and userextras
// impersonation resources; users, groups and serviceaccounts are in "".
const authenticationGroup = "authentication.k8s.io"

// target is one thing a request asks to impersonate. Its fields, in this
// order, are those of the core/v1 ObjectReference Kubernetes uses for it,
// so that %v prints a list of them as kube-apiserver's error does.
type target struct {
	Kind            string
	Namespace       string
	Name            string
	UID             string
	APIVersion      string
	ResourceVersion string
	FieldPath       string // the extra's key, for a UserExtra
}

// targets reads the impersonation headers (buildImpersonationRequests).
// Groups, extras or a uid without a user are an error.
func targets(h http.Header) ([]target, error) {
	var ts []target
	requested := h.Get(UserHeader)
	if requested != "" {
		if ns, name, ok := splitServiceAccount(requested); ok {
			ts = append(ts, target{Kind: "ServiceAccount", Namespace: ns, Name: name})
		} else {
			ts = append(ts, target{Kind: "User", Name: requested})
		}
	}
	for _, g := range h.Values(GroupHeader) {
		ts = append(ts, target{Kind: "Group", Name: g})
	}
	// Header names are canonical ("Impersonate-Extra-Scopes"); the key is
	// lower-cased and %-decoded, as kubectl %-encodes what a header name
	// cannot hold. Sorted keys keep the order of checks, and so which
	// refusal a request gets, independent of map order.
	var keys []string
	for name := range h {
		if strings.HasPrefix(name, ExtraHeaderPrefix) {
			keys = append(keys, name)
		}
	}
	slices.Sort(keys)
	for _, name := range keys {
		key := strings.ToLower(name[len(ExtraHeaderPrefix):])
		if k, err := url.PathUnescape(key); err == nil {
			key = k
		}
		for _, v := range h[name] {
			ts = append(ts, target{Kind: "UserExtra", APIVersion: authenticationGroup + "/v1", Name: v, FieldPath: key})
		}
	}
	if uid := h.Get(UIDHeader); uid != "" {
		ts = append(ts, target{Kind: "UID", Name: uid, APIVersion: authenticationGroup + "/v1"})
	}
	if requested == "" && len(ts) > 0 {
		return nil, fmt.Errorf("requested %v without impersonating a user", ts)
	}
	return ts, nil
}

// splitServiceAccount splits system:serviceaccount:<ns>:<name>.
func splitServiceAccount(user string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(user, "system:serviceaccount:")
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	if !ok || namespace == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return namespace, name, true
}

// WithImpersonation switches the request's user to the one its
// impersonation headers name, once a has allowed the authenticated user
// to impersonate each of them. It must run after authentication; a
// request without impersonation headers passes unchanged.
func WithImpersonation(h http.Handler, a authz.Authorizer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ts, err := targets(req.Header)
		if err != nil {
			internalError(w, req, err)
			return
		}
		if len(ts) == 0 {
			h.ServeHTTP(w, req)
			return
		}
		requestor, ok := authn.UserFrom(req.Context())
		if !ok {
			internalError(w, req, fmt.Errorf("no user found for request"))
			return
		}
		groupsGiven := len(req.Header.Values(GroupHeader)) > 0
		acting := &authn.UserInfo{Groups: []string{}}
		for _, t := range ts {
			attrs := authz.Attributes{User: requestor, Verb: "impersonate", ResourceRequest: true,
				Namespace: t.Namespace, Name: t.Name}
			switch t.Kind {
			case "ServiceAccount":
				attrs.Resource = "serviceaccounts"
				acting.Name = authz.ServiceAccountUsername(t.Namespace, t.Name)
				if !groupsGiven {
					acting.Groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + t.Namespace}
				}
			case "User":
				attrs.Resource = "users"
				acting.Name = t.Name
			case "Group":
				attrs.Resource = "groups"
				acting.Groups = append(acting.Groups, t.Name)
			case "UserExtra":
				attrs.APIGroup, attrs.APIVersion = authenticationGroup, "v1"
				attrs.Resource, attrs.Subresource = "userextras", t.FieldPath
				if acting.Extra == nil {
					acting.Extra = map[string][]string{}
				}
				acting.Extra[t.FieldPath] = append(acting.Extra[t.FieldPath], t.Name)
			case "UID":
				attrs.APIGroup, attrs.APIVersion = authenticationGroup, "v1"
				attrs.Resource = "uids"
				acting.UID = t.Name
			}
			d, reason, err := a.Authorize(req.Context(), attrs)
			if d != authz.DecisionAllow {
				if err != nil && reason == "" {
					reason = err.Error()
				}
				responsewriters.WriteError(w, authz.Forbidden(attrs, reason))
				return
			}
		}
		addAllGroup(acting)
		audit.LogImpersonatedUser(req.Context(), acting)
		req = req.WithContext(authn.WithUser(req.Context(), acting))
		// Nothing further down (the aggregator's proxy least of all) may
		// act on the headers again.
		req.Header.Del(UserHeader)
		req.Header.Del(GroupHeader)
		req.Header.Del(UIDHeader)
		for name := range req.Header {
			if strings.HasPrefix(name, ExtraHeaderPrefix) {
				req.Header.Del(name)
			}
		}
		h.ServeHTTP(w, req)
	})
}

// addAllGroup puts the impersonated user in system:authenticated, unless
// the groups asked for already say whether it is authenticated;
// system:anonymous goes in system:unauthenticated instead.
func addAllGroup(u *authn.UserInfo) {
	if u.Name == authn.Anonymous {
		if !slices.Contains(u.Groups, authn.AllUnauthenticated) {
			u.Groups = append(u.Groups, authn.AllUnauthenticated)
		}
		return
	}
	if !slices.Contains(u.Groups, authn.AllAuthenticated) && !slices.Contains(u.Groups, authn.AllUnauthenticated) {
		u.Groups = append(u.Groups, authn.AllAuthenticated)
	}
}

// internalError is responsewriters.InternalError of k8s.io/apiserver: a
// plain-text 500 naming the request URI, with HTML metacharacters escaped.
func internalError(w http.ResponseWriter, req *http.Request, err error) {
	msg := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").
		Replace(fmt.Sprintf("Internal Server Error: %q: %v", req.RequestURI, err))
	http.Error(w, msg, http.StatusInternalServerError)
}
