package nodeauthz

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
)

// The node identity, as k8s.io/apiserver/pkg/authentication/user names it.
const (
	// NodesGroup is the group every kubelet is in.
	NodesGroup = "system:nodes"
	// NodeUserPrefix starts a kubelet's user name.
	NodeUserPrefix = "system:node:"
)

// NodeUser is the identity of the kubelet of a node.
func NodeUser(nodeName string) *authn.UserInfo {
	return &authn.UserInfo{Name: NodeUserPrefix + nodeName, Groups: []string{NodesGroup, authn.AllAuthenticated}}
}

// NodeIdentity returns the node a user is the kubelet of
// (nodeidentifier.NodeIdentity): isNode when it is in system:nodes and its
// name starts with system:node:, the name after that prefix.
func NodeIdentity(u *authn.UserInfo) (nodeName string, isNode bool) {
	if u == nil || !strings.HasPrefix(u.Name, NodeUserPrefix) || !slices.Contains(u.Groups, NodesGroup) {
		return "", false
	}
	return strings.TrimPrefix(u.Name, NodeUserPrefix), true
}

// PodsOnNode lists the pods bound to a node (spec.nodeName).
type PodsOnNode func(ctx context.Context, nodeName string) ([]*corev1.Pod, error)

// Authorizer is the Node authorizer.
type Authorizer struct {
	// Pods lists a node's pods: the edges of Kubernetes' graph.
	Pods PodsOnNode
	// Rules are the node's static rules (the system:node role's), for the
	// resources the authorizer does not subdivide.
	Rules []rbacv1.PolicyRule
}

// Authorize implements authz.Authorizer. It never denies: what it does not
// allow goes on to RBAC with its reason kept.
func (n *Authorizer) Authorize(ctx context.Context, a authz.Attributes) (authz.Decision, string, error) {
	nodeName, isNode := NodeIdentity(a.User)
	if !isNode {
		return authz.DecisionNoOpinion, "", nil
	}
	if nodeName == "" {
		return authz.DecisionNoOpinion, fmt.Sprintf("unknown node for user %q", a.User.Name), nil
	}
	if a.ResourceRequest && a.APIGroup == "" {
		switch a.Resource {
		case "secrets", "configmaps":
			return n.readNamespaced(ctx, nodeName, a)
		case "persistentvolumeclaims":
			if a.Subresource == "status" {
				if a.Verb != "update" && a.Verb != "patch" {
					return authz.DecisionNoOpinion, "can only get/update/patch this type", nil
				}
				return n.related(ctx, nodeName, a)
			}
			if a.Verb != "get" {
				return authz.DecisionNoOpinion, "can only get individual resources of this type", nil
			}
			if a.Subresource != "" {
				return authz.DecisionNoOpinion, "cannot get subresource", nil
			}
			return n.related(ctx, nodeName, a)
		case "serviceaccounts":
			if a.Verb != "create" || a.Name == "" {
				return authz.DecisionNoOpinion, "can only create tokens for individual service accounts", nil
			}
			if a.Subresource != "token" {
				return authz.DecisionNoOpinion, "can only create token subresource of serviceaccount", nil
			}
			return n.related(ctx, nodeName, a)
		case "nodes":
			return authorizeNode(nodeName, a)
		case "pods":
			return n.authorizePod(ctx, nodeName, a)
		}
	}
	if a.ResourceRequest && a.APIGroup == "coordination.k8s.io" && a.Resource == "leases" {
		return authorizeLease(nodeName, a)
	}
	for i := range n.Rules {
		if authz.RuleAllows(a, &n.Rules[i]) {
			return authz.DecisionAllow, "", nil
		}
	}
	return authz.DecisionNoOpinion, "", nil
}

func (n *Authorizer) readNamespaced(ctx context.Context, nodeName string, a authz.Attributes) (authz.Decision, string, error) {
	switch a.Verb {
	case "get", "list", "watch":
	default:
		return authz.DecisionNoOpinion, "can only read resources of this type", nil
	}
	if a.Subresource != "" {
		return authz.DecisionNoOpinion, "cannot read subresource", nil
	}
	if a.Namespace == "" {
		return authz.DecisionNoOpinion, "can only read namespaced object of this type", nil
	}
	return n.related(ctx, nodeName, a)
}

// related allows a request for a named object that a pod bound to the
// node uses (the graph's path object → pod → node).
func (n *Authorizer) related(ctx context.Context, nodeName string, a authz.Attributes) (authz.Decision, string, error) {
	if a.Name == "" {
		return authz.DecisionNoOpinion, "No Object name found", nil
	}
	noRelation := fmt.Sprintf("no relationship found between node '%s' and this object", nodeName)
	pods, err := n.Pods(ctx, nodeName)
	if err != nil {
		return authz.DecisionNoOpinion, noRelation, nil
	}
	for _, p := range pods {
		if p.Namespace == a.Namespace && slices.Contains(references(p, a.Resource), a.Name) {
			return authz.DecisionAllow, "", nil
		}
	}
	return authz.DecisionNoOpinion, noRelation, nil
}

// authorizeNode lets a kubelet read only its own Node, and create or
// update a Node (NodeRestriction checks that it is its own).
func authorizeNode(nodeName string, a authz.Attributes) (authz.Decision, string, error) {
	switch a.Subresource {
	case "":
		switch a.Verb {
		case "create", "update", "patch":
			return authz.DecisionAllow, "", nil
		case "get", "list", "watch":
			switch a.Name {
			case nodeName:
				return authz.DecisionAllow, "", nil
			case "":
				return authz.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read all nodes, only its own Node object", nodeName), nil
			default:
				return authz.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read '%s', only its own Node object", nodeName, a.Name), nil
			}
		}
	case "status":
		if a.Verb == "update" || a.Verb == "patch" {
			return authz.DecisionAllow, "", nil
		}
	}
	return authz.DecisionNoOpinion, "", nil
}

// authorizePod lets a kubelet list and watch only the pods bound to it,
// get one of them, update their status and delete them (NodeRestriction
// checks the binding of the pod written).
func (n *Authorizer) authorizePod(ctx context.Context, nodeName string, a authz.Attributes) (authz.Decision, string, error) {
	switch a.Subresource {
	case "":
		switch a.Verb {
		case "get":
			return n.relatedPod(ctx, nodeName, a)
		case "list", "watch":
			if slices.Contains(strings.Split(a.FieldSelector, ","), "spec.nodeName="+nodeName) {
				return authz.DecisionAllow, "", nil
			}
			if a.Name != "" {
				return n.relatedPod(ctx, nodeName, a)
			}
			return authz.DecisionNoOpinion, "can only list/watch pods with spec.nodeName field selector", nil
		case "create", "delete":
			return authz.DecisionAllow, "", nil
		}
	case "status":
		if a.Verb == "update" || a.Verb == "patch" {
			return authz.DecisionAllow, "", nil
		}
	case "eviction":
		if a.Verb == "create" {
			return authz.DecisionAllow, "", nil
		}
	}
	return authz.DecisionNoOpinion, "", nil
}

func (n *Authorizer) relatedPod(ctx context.Context, nodeName string, a authz.Attributes) (authz.Decision, string, error) {
	if a.Name == "" {
		return authz.DecisionNoOpinion, "No Object name found", nil
	}
	pods, err := n.Pods(ctx, nodeName)
	if err == nil {
		for _, p := range pods {
			if p.Namespace == a.Namespace && p.Name == a.Name {
				return authz.DecisionAllow, "", nil
			}
		}
	}
	return authz.DecisionNoOpinion, fmt.Sprintf("no relationship found between node '%s' and this object", nodeName), nil
}

// authorizeLease keeps a kubelet to its own Lease in kube-node-lease.
func authorizeLease(nodeName string, a authz.Attributes) (authz.Decision, string, error) {
	switch a.Verb {
	case "get", "create", "update", "patch", "delete":
	default:
		return authz.DecisionNoOpinion, "can only get, create, update, patch, or delete a node lease", nil
	}
	if a.Namespace != corev1.NamespaceNodeLease {
		return authz.DecisionNoOpinion, fmt.Sprintf("can only access leases in the %q system namespace", corev1.NamespaceNodeLease), nil
	}
	// On create the name is in the body: NodeRestriction checks it.
	if a.Verb != "create" && a.Name != nodeName {
		return authz.DecisionNoOpinion, "can only access node lease with the same name as the requesting node", nil
	}
	return authz.DecisionAllow, "", nil
}

// references lists the names of the objects of a resource (secrets,
// configmaps, persistentvolumeclaims, serviceaccounts) a pod uses: the
// graph's edges into the pod.
func references(p *corev1.Pod, resource string) []string {
	var out []string
	add := func(name string) {
		if name != "" {
			out = append(out, name)
		}
	}
	switch resource {
	case "serviceaccounts":
		add(p.Spec.ServiceAccountName)
		return out
	case "secrets":
		for _, s := range p.Spec.ImagePullSecrets {
			add(s.Name)
		}
	}
	for _, v := range p.Spec.Volumes {
		switch resource {
		case "secrets":
			if v.Secret != nil {
				add(v.Secret.SecretName)
			}
		case "configmaps":
			if v.ConfigMap != nil {
				add(v.ConfigMap.Name)
			}
		case "persistentvolumeclaims":
			if v.PersistentVolumeClaim != nil {
				add(v.PersistentVolumeClaim.ClaimName)
			}
		}
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if resource == "secrets" && src.Secret != nil {
					add(src.Secret.Name)
				}
				if resource == "configmaps" && src.ConfigMap != nil {
					add(src.ConfigMap.Name)
				}
			}
		}
	}
	for _, c := range slices.Concat(p.Spec.InitContainers, p.Spec.Containers) {
		for _, e := range c.EnvFrom {
			if resource == "secrets" && e.SecretRef != nil {
				add(e.SecretRef.Name)
			}
			if resource == "configmaps" && e.ConfigMapRef != nil {
				add(e.ConfigMapRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if resource == "secrets" && e.ValueFrom.SecretKeyRef != nil {
				add(e.ValueFrom.SecretKeyRef.Name)
			}
			if resource == "configmaps" && e.ValueFrom.ConfigMapKeyRef != nil {
				add(e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
	}
	return out
}
