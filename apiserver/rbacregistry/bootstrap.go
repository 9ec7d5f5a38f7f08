package rbacregistry

import (
	"context"
	"fmt"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// The labels and annotation of bootstrap roles, as kube-apiserver sets
// them, so that `kubectl get clusterroles -l kubernetes.io/bootstrapping`
// finds them.
var (
	bootstrapLabels      = map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"}
	bootstrapAnnotations = map[string]string{api.AutoUpdateAnnotation: "true"}
)

func rule(verbs []string, group string, resources ...string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, APIGroups: []string{group}, Resources: resources}
}

func urls(verbs []string, paths ...string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, NonResourceURLs: paths}
}

var (
	read    = []string{"get", "list", "watch"}
	write   = []string{"create", "delete", "deletecollection", "patch", "update"}
	getOnly = []string{"get"}
)

func aggregateLabels(to string) map[string]string {
	return map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults", "rbac.authorization.k8s.io/aggregate-to-" + to: "true"}
}

// viewRules are the view role's: read what an application is made of,
// secrets excepted.
func viewRules() []api.PolicyRule {
	return []api.PolicyRule{
		rule(read, "", "pods", "pods/log", "pods/status", "services", "services/status", "endpoints", "configmaps",
			"events", "namespaces", "namespaces/status", "persistentvolumeclaims", "serviceaccounts", "resourcequotas", "limitranges", "bindings"),
		rule(read, "apps", "deployments", "deployments/scale", "deployments/status", "replicasets", "replicasets/scale",
			"replicasets/status", "statefulsets", "statefulsets/scale", "statefulsets/status", "daemonsets", "daemonsets/status"),
		rule(read, "coordination.k8s.io", "leases"),
		rule(read, "policy", "poddisruptionbudgets", "poddisruptionbudgets/status"), // issue 12 part 6
		rule(read, "discovery.k8s.io", "endpointslices"),                            // issue 12 part 6
	}
}

// editRules add writing them, and reading secrets.
func editRules() []api.PolicyRule {
	return append(viewRules(),
		rule(write, "", "pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "services", "endpoints",
			"configmaps", "secrets", "persistentvolumeclaims", "serviceaccounts"),
		rule(read, "", "secrets", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"),
		rule([]string{"create"}, "", "pods/eviction"),
		rule(write, "apps", "deployments", "deployments/scale", "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale", "daemonsets"),
		rule(write, "coordination.k8s.io", "leases"),
		rule(write, "policy", "poddisruptionbudgets"), // issue 12 part 6
	)
}

// adminRules add the namespace's roles and bindings.
func adminRules() []api.PolicyRule {
	return append(editRules(),
		rule(append(append([]string{}, read...), write...), api.RBACGroupName, "roles", "rolebindings"),
		rule([]string{"create"}, "authorization.k8s.io", "localsubjectaccessreviews"),
	)
}

// BootstrapClusterRoles are the default cluster roles that matter to a
// user (bootstrappolicy.ClusterRoles, abridged). admin, edit and view
// carry their rules themselves: there is no aggregation controller yet,
// but they keep the aggregate-to labels so that they read as in
// Kubernetes.
func BootstrapClusterRoles() []*api.ClusterRole {
	cr := func(name string, labels map[string]string, rules ...api.PolicyRule) *api.ClusterRole {
		return &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: name, Labels: labels, Annotations: bootstrapAnnotations}, Rules: rules}
	}
	return []*api.ClusterRole{
		cr("cluster-admin", bootstrapLabels, fullAuthority...),
		cr("admin", bootstrapLabels, adminRules()...),
		cr("edit", aggregateLabels("admin"), editRules()...),
		cr("view", aggregateLabels("edit"), viewRules()...),
		cr("system:discovery", bootstrapLabels, urls(getOnly, "/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
			"/openapi", "/openapi/*", "/readyz", "/version", "/version/")),
		cr("system:basic-user", bootstrapLabels,
			rule([]string{"create"}, "authorization.k8s.io", "selfsubjectaccessreviews", "selfsubjectrulesreviews"),
			rule([]string{"create"}, "authentication.k8s.io", "selfsubjectreviews")),
		cr("system:public-info-viewer", bootstrapLabels, urls(getOnly, "/healthz", "/livez", "/readyz", "/version", "/version/")),
	}
}

// BootstrapClusterRoleBindings grant them as Kubernetes does: everything
// to system:masters, discovery and the review APIs to every authenticated
// user, health and version to everyone.
func BootstrapClusterRoleBindings() []*api.ClusterRoleBinding {
	group := func(name string) api.Subject {
		return api.Subject{Kind: api.GroupSubjectKind, APIGroup: api.RBACGroupName, Name: name}
	}
	crb := func(name string, subjects ...api.Subject) *api.ClusterRoleBinding {
		return &api.ClusterRoleBinding{ObjectMeta: api.ObjectMeta{Name: name, Labels: bootstrapLabels, Annotations: bootstrapAnnotations},
			Subjects: subjects, RoleRef: api.RoleRef{APIGroup: api.RBACGroupName, Kind: "ClusterRole", Name: name}}
	}
	return []*api.ClusterRoleBinding{
		crb("cluster-admin", group("system:masters")),
		crb("system:discovery", group("system:authenticated")),
		crb("system:basic-user", group("system:authenticated")),
		crb("system:public-info-viewer", group("system:authenticated"), group("system:unauthenticated")),
	}
}

// Bootstrap creates the bootstrap roles and bindings that do not exist
// yet; one a user changed is left as it is (kube-apiserver would
// reconcile it back unless its autoupdate annotation is "false").
func Bootstrap(ctx context.Context, lookup Lookup) error {
	roles, ok := lookup(api.RBACGroupName, "v1", ClusterRoles)
	bindings, ok2 := lookup(api.RBACGroupName, "v1", ClusterRoleBindings)
	if !ok || !ok2 {
		return fmt.Errorf("%s is not served", api.RBACGroupName)
	}
	for _, r := range BootstrapClusterRoles() {
		if _, err := roles.Create(ctx, "", r, registry.CreateOptions{}); err != nil && !api.IsAlreadyExists(err) {
			return fmt.Errorf("creating clusterrole %s: %w", r.Name, err)
		}
	}
	for _, b := range BootstrapClusterRoleBindings() {
		if _, err := bindings.Create(ctx, "", b, registry.CreateOptions{}); err != nil && !api.IsAlreadyExists(err) {
			return fmt.Errorf("creating clusterrolebinding %s: %w", b.Name, err)
		}
	}
	return nil
}
