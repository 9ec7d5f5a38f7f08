package rbacregistry

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// The labels and annotation of bootstrap roles, as kube-apiserver sets
// them, so that `kubectl get clusterroles -l kubernetes.io/bootstrapping`
// finds them.
var (
	bootstrapLabels      = map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"}
	bootstrapAnnotations = map[string]string{api.AutoUpdateAnnotation: "true"}
)

func rule(verbs []string, group string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: []string{group}, Resources: resources}
}

func urls(verbs []string, paths ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, NonResourceURLs: paths}
}

var (
	read    = []string{"get", "list", "watch"}
	write   = []string{"create", "delete", "deletecollection", "patch", "update"}
	getOnly = []string{"get"}
)

func aggregateLabels(to string) map[string]string {
	return map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults", "rbac.authorization.k8s.io/aggregate-to-" + to: "true"}
}

// The verb sets of bootstrappolicy.
var (
	readWrite  = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	readUpdate = []string{"get", "list", "watch", "update", "patch"}
)

// eventsRule lets a component record Events (both API groups).
func eventsRule() rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: []string{"create", "update", "patch"}, APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}}
}

// named is rule restricted to resourceNames.
func named(r rbacv1.PolicyRule, names ...string) rbacv1.PolicyRule {
	r.ResourceNames = names
	return r
}

// aggregateToViewRules are system:aggregate-to-view's: read what an
// application is made of, secrets excepted. The view role gathers them.
func aggregateToViewRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule(read, "", "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps"),
		rule(read, "", "limitranges", "resourcequotas", "bindings", "events",
			"pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"),
		// Reading namespaces at the namespace scope reads *this* namespace.
		rule(read, "", "namespaces"),
		rule(read, "discovery.k8s.io", "endpointslices"),
		rule(read, "apps", "controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
			"daemonsets", "daemonsets/status", "deployments", "deployments/status", "deployments/scale",
			"replicasets", "replicasets/status", "replicasets/scale"),
		rule(read, "autoscaling", "horizontalpodautoscalers", "horizontalpodautoscalers/status"),
		rule(read, "batch", "jobs", "cronjobs", "cronjobs/status", "jobs/status"),
		rule(read, "policy", "poddisruptionbudgets", "poddisruptionbudgets/status"),
		rule(read, "networking.k8s.io", "networkpolicies", "ingresses", "ingresses/status"),
	}
}

// aggregateToEditRules are system:aggregate-to-edit's: write them, read
// secrets and impersonate service accounts.
func aggregateToEditRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule(read, "", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"),
		rule([]string{"impersonate"}, "", "serviceaccounts"),
		rule(write, "", "pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
		rule(write, "", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/proxy", "endpoints", "persistentvolumeclaims", "configmaps", "secrets"),
		rule([]string{"create"}, "", "pods/eviction", "serviceaccounts/token"),
		rule(write, "discovery.k8s.io", "endpointslices"),
		rule(write, "apps", "statefulsets", "statefulsets/scale", "daemonsets", "deployments", "deployments/scale",
			"deployments/rollback", "replicasets", "replicasets/scale"),
		rule(write, "autoscaling", "horizontalpodautoscalers"),
		rule(write, "batch", "jobs", "cronjobs"),
		rule(write, "policy", "poddisruptionbudgets"),
		rule(write, "networking.k8s.io", "networkpolicies", "ingresses"),
		rule(readWrite, "coordination.k8s.io", "leases"),
	}
}

// aggregateToAdminRules are system:aggregate-to-admin's: a namespace's
// roles and bindings.
func aggregateToAdminRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule([]string{"create"}, "authorization.k8s.io", "localsubjectaccessreviews"),
		rule(readWrite, api.RBACGroupName, "roles", "rolebindings"),
	}
}

// aggregated is a ClusterRole made of the ClusterRoles labelled
// aggregate-to-<to>; the clusterrole-aggregation controller fills its
// rules.
func aggregated(name string, labels map[string]string, to string) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: bootstrapAnnotations},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-" + to: "true"}}}}}
}

// WebPageRole is kubesim's own bootstrap role for its web page (package
// ui), bound to every authenticated user: the page's routes are
// non-resource paths of the API server, authorized like /version. It
// grants the page's reads (GET /ui/api/...: what they show is filtered,
// or fetched, as the user) and its apply box (POST /ui/api/apply, whose
// writes the API authorizes one by one); not the routes that act on the
// cluster itself — a controller's switch, a node's kubelet — which only
// cluster-admin holds. Remove the binding to keep users off the page.
const WebPageRole = "kubesim:web-page"

// MonitoringRole is the bootstrap role that may read /metrics and the
// health checks, and MonitoringGroup the group it is bound to: a
// scraper's credentials are put in that group (a token file's groups, a
// certificate's O) to read the metrics, as in kube-apiserver.
const (
	MonitoringRole  = "system:monitoring"
	MonitoringGroup = "system:monitoring"
)

// WebPageRules are WebPageRole's rules.
func WebPageRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{urls(getOnly, "/ui/api/*"), urls([]string{"post"}, "/ui/api/apply")}
}

// BootstrapClusterRoles are the default cluster roles (bootstrappolicy's
// ClusterRoles and ControllerRoles, for what kubesim serves and runs).
// admin, edit and view are aggregated, as in Kubernetes: edit carries
// aggregate-to-admin and view aggregate-to-edit, so that admin ⊇ edit ⊇
// view; Bootstrap fills their rules once, the controller keeps them.
func BootstrapClusterRoles() []*rbacv1.ClusterRole {
	cr := func(name string, labels map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: bootstrapAnnotations}, Rules: rules}
	}
	roles := []*rbacv1.ClusterRole{
		cr("cluster-admin", bootstrapLabels, fullAuthority...),
		aggregated("admin", bootstrapLabels, "admin"),
		aggregated("edit", aggregateLabels("admin"), "edit"),
		aggregated("view", aggregateLabels("edit"), "view"),
		cr("system:aggregate-to-admin", aggregateLabels("admin"), aggregateToAdminRules()...),
		cr("system:aggregate-to-edit", aggregateLabels("edit"), aggregateToEditRules()...),
		cr("system:aggregate-to-view", aggregateLabels("view"), aggregateToViewRules()...),
		cr("system:discovery", bootstrapLabels, urls(getOnly, "/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
			"/openapi", "/openapi/*", "/readyz", "/version", "/version/")),
		cr("system:basic-user", bootstrapLabels,
			rule([]string{"create"}, "authorization.k8s.io", "selfsubjectaccessreviews", "selfsubjectrulesreviews"),
			rule([]string{"create"}, "authentication.k8s.io", "selfsubjectreviews")),
		cr("system:public-info-viewer", bootstrapLabels, urls(getOnly, "/healthz", "/livez", "/readyz", "/version", "/version/")),
		// The service account issuer discovery endpoints, with the
		// slash-ended paths older generated clients ask for.
		cr("system:service-account-issuer-discovery", bootstrapLabels, urls(getOnly, "/.well-known/openid-configuration",
			"/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/")),
		// Read access to the monitoring endpoints, for a scraper such as
		// Prometheus: bound to the group system:monitoring.
		cr(MonitoringRole, bootstrapLabels, urls(getOnly, "/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz",
			"/livez/*", "/readyz/*", "/healthz/*")),
		cr(WebPageRole, bootstrapLabels, WebPageRules()...),
		cr("system:auth-delegator", bootstrapLabels,
			rule([]string{"create"}, "authentication.k8s.io", "tokenreviews"),
			rule([]string{"create"}, "authorization.k8s.io", "subjectaccessreviews")),
		cr("system:node", bootstrapLabels, NodeRules()...),
		cr("system:kube-scheduler", bootstrapLabels, kubeSchedulerRules()...),
		cr("system:volume-scheduler", bootstrapLabels,
			rule(readUpdate, "", "persistentvolumes"),
			rule(read, "storage.k8s.io", "storageclasses"),
			rule(readUpdate, "", "persistentvolumeclaims")),
		cr("system:kube-controller-manager", bootstrapLabels, kubeControllerManagerRules()...),
		// Certificates: who may ask for one, and one role per built-in
		// signer for those who approve its requests (bound to nobody).
		cr("system:node-bootstrapper", bootstrapLabels,
			rule([]string{"create", "get", "list", "watch"}, "certificates.k8s.io", "certificatesigningrequests")),
	}
	for _, signer := range []string{"kube-apiserver-client", "kube-apiserver-client-kubelet", "kubelet-serving", "legacy-unknown"} {
		roles = append(roles, cr("system:certificates.k8s.io:"+signer+"-approver", bootstrapLabels,
			named(rule([]string{"approve"}, "certificates.k8s.io", "signers"), "kubernetes.io/"+signer)))
	}
	for _, c := range ControllerRoles() {
		roles = append(roles, cr(ControllerRolePrefix+c.Name, bootstrapLabels, c.Rules...))
	}
	return roles
}

// BootstrapClusterRoleBindings grant them as Kubernetes does: everything
// to system:masters, discovery and the review APIs to every authenticated
// user, health and version to everyone, each component its role. The
// system:node role is bound to nobody: the Node authorizer serves
// kubelets (bootstrappolicy keeps the binding, without subjects).
func BootstrapClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	group := func(name string) rbacv1.Subject {
		return rbacv1.Subject{Kind: api.GroupSubjectKind, APIGroup: api.RBACGroupName, Name: name}
	}
	user := func(name string) rbacv1.Subject {
		return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: api.RBACGroupName, Name: name}
	}
	crbTo := func(name, role string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: bootstrapLabels, Annotations: bootstrapAnnotations},
			Subjects: subjects, RoleRef: rbacv1.RoleRef{APIGroup: api.RBACGroupName, Kind: "ClusterRole", Name: role}}
	}
	crb := func(name string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
		return crbTo(name, name, subjects...)
	}
	bindings := []*rbacv1.ClusterRoleBinding{
		crb("cluster-admin", group("system:masters")),
		crb("system:discovery", group("system:authenticated")),
		crb("system:basic-user", group("system:authenticated")),
		crb("system:public-info-viewer", group("system:authenticated"), group("system:unauthenticated")),
		crb("system:service-account-issuer-discovery", group("system:serviceaccounts")),
		crb(MonitoringRole, group(MonitoringGroup)),
		crb(WebPageRole, group("system:authenticated")),
		crb("system:node"),
		crb("system:kube-scheduler", user(KubeScheduler)),
		crb("system:volume-scheduler", user(KubeScheduler)),
		crb("system:kube-controller-manager", user(KubeControllerManager)),
	}
	for _, c := range ControllerRoles() {
		sa := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: c.Name, Namespace: "kube-system"}
		bindings = append(bindings, crb(ControllerRolePrefix+c.Name, sa))
	}
	return bindings
}

// Bootstrap reconciles the bootstrap roles and bindings at start, as
// kube-apiserver's PostStartHook does: what is missing is created; one
// that exists and keeps the annotation
// rbac.authorization.kubernetes.io/autoupdate: "true" gets back what it
// lacks (rules, subjects, labels, annotations, an aggregation rule) —
// added, never removed, as reconciliation does; one whose annotation a
// user set to "false" is left as it is. The aggregated roles (admin, edit,
// view) are written with the rules the clusterrole-aggregation controller
// would give them, so that a server without the controller manager has
// them too.
func Bootstrap(ctx context.Context, lookup Lookup) error {
	roles, ok := lookup(api.RBACGroupName, "v1", ClusterRoles)
	bindings, ok2 := lookup(api.RBACGroupName, "v1", ClusterRoleBindings)
	if !ok || !ok2 {
		return fmt.Errorf("%s is not served", api.RBACGroupName)
	}
	expected := BootstrapClusterRoles()
	fillAggregated(expected)
	for _, r := range expected {
		if err := reconcile(ctx, roles, r, func(cur api.Object) (api.Object, bool) {
			return reconcileRole(cur.(*rbacv1.ClusterRole), r)
		}); err != nil {
			return fmt.Errorf("reconciling clusterrole %s: %w", r.Name, err)
		}
	}
	for _, b := range BootstrapClusterRoleBindings() {
		if err := reconcile(ctx, bindings, b, func(cur api.Object) (api.Object, bool) {
			return reconcileBinding(cur.(*rbacv1.ClusterRoleBinding), b)
		}); err != nil {
			return fmt.Errorf("reconciling clusterrolebinding %s: %w", b.Name, err)
		}
	}
	return nil
}

// fillAggregated gives each aggregated role the union of the roles its
// selectors match, until nothing changes (admin gathers edit, which
// gathers view).
func fillAggregated(roles []*rbacv1.ClusterRole) {
	for changed := true; changed; {
		changed = false
		for _, r := range roles {
			if r.AggregationRule == nil {
				continue
			}
			rules := api.AggregateClusterRoleRules(r, roles)
			if !reflect.DeepEqual(rules, r.Rules) {
				r.Rules, changed = rules, true
			}
		}
	}
}

// reconcile creates want, or updates the stored object with what fix
// returns when it says something changed.
func reconcile(ctx context.Context, st *registry.Store, want api.Object, fix func(cur api.Object) (api.Object, bool)) error {
	name := api.Meta(want).Name
	cur, err := st.Get(ctx, "", name)
	if api.IsNotFound(err) {
		_, err = st.Create(ctx, "", want, registry.CreateOptions{})
		if api.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	if api.Meta(cur).Annotations[api.AutoUpdateAnnotation] != "true" {
		return nil
	}
	if _, changed := fix(cur); !changed {
		return nil
	}
	_, _, err = st.Update(ctx, "", name, func(cur api.Object) (api.Object, error) {
		updated, _ := fix(cur)
		return updated, nil
	}, registry.UpdateOptions{})
	return err
}

// mergeMeta adds the labels and annotations of want that cur lacks.
func mergeMeta(cur *metav1.ObjectMeta, want metav1.ObjectMeta) bool {
	changed := false
	for k, v := range want.Labels {
		if _, ok := cur.Labels[k]; !ok {
			if cur.Labels == nil {
				cur.Labels = map[string]string{}
			}
			cur.Labels[k], changed = v, true
		}
	}
	for k, v := range want.Annotations {
		if _, ok := cur.Annotations[k]; !ok {
			if cur.Annotations == nil {
				cur.Annotations = map[string]string{}
			}
			cur.Annotations[k], changed = v, true
		}
	}
	return changed
}

func reconcileRole(cur, want *rbacv1.ClusterRole) (api.Object, bool) {
	out := cur.DeepCopy()
	changed := mergeMeta(&out.ObjectMeta, want.ObjectMeta)
	if want.AggregationRule != nil {
		// The controller owns an aggregated role's rules.
		if out.AggregationRule == nil {
			out.AggregationRule, changed = want.AggregationRule.DeepCopy(), true
		}
		return out, changed
	}
	// Each expected rule not covered is added whole (Kubernetes adds its
	// broken-down parts, one verb and resource each: the same rights,
	// harder to read).
	for _, r := range want.Rules {
		if covers, _ := authz.Covers(out.Rules, []rbacv1.PolicyRule{r}); !covers {
			out.Rules, changed = append(out.Rules, r), true
		}
	}
	return out, changed
}

func reconcileBinding(cur, want *rbacv1.ClusterRoleBinding) (api.Object, bool) {
	out := cur.DeepCopy()
	changed := mergeMeta(&out.ObjectMeta, want.ObjectMeta)
	for _, s := range want.Subjects {
		if !slices.Contains(out.Subjects, s) {
			out.Subjects, changed = append(out.Subjects, s), true
		}
	}
	return out, changed
}
