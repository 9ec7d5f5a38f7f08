package rbacregistry

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesim/kubesim/api"
)

// The identities of the control plane's components, as
// k8s.io/apiserver/pkg/authentication/user names them.
const (
	// KubeScheduler is kube-scheduler's user.
	KubeScheduler = "system:kube-scheduler"
	// KubeControllerManager is kube-controller-manager's own user: its
	// shared informers list and watch as it.
	KubeControllerManager = "system:kube-controller-manager"
	// ControllerRolePrefix starts each controller's ClusterRole and
	// ClusterRoleBinding; the rest is its service account's name in
	// kube-system.
	ControllerRolePrefix = "system:controller:"
)

// NodeRules are the system:node role's rules: what the Node authorizer
// allows a kubelet beyond the objects it checks one by one
// (bootstrappolicy.NodeRules, for the resources kubesim serves).
func NodeRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule([]string{"create"}, "authentication.k8s.io", "tokenreviews"),
		rule([]string{"create"}, "authorization.k8s.io", "subjectaccessreviews", "localsubjectaccessreviews"),
		// Services, to give pods their environment variables.
		rule(read, "", "services"),
		// Nodes register and report themselves (NodeRestriction: only
		// their own).
		rule([]string{"create", "get", "list", "watch"}, "", "nodes"),
		rule([]string{"update", "patch"}, "", "nodes/status"),
		rule([]string{"update", "patch"}, "", "nodes"),
		rule([]string{"create", "update", "patch"}, "", "events"),
		rule(read, "", "pods"),
		rule([]string{"create", "delete"}, "", "pods"),
		rule([]string{"update", "patch"}, "", "pods/status"),
		rule([]string{"create"}, "", "pods/eviction"),
		rule(read, "", "secrets", "configmaps"),
		rule(getOnly, "", "persistentvolumeclaims", "persistentvolumes"),
		rule(getOnly, "", "endpoints"),
		rule([]string{"get", "create", "update", "patch", "delete"}, "coordination.k8s.io", "leases"),
		rule([]string{"get", "update", "patch"}, "", "persistentvolumeclaims/status"),
		rule([]string{"create"}, "", "serviceaccounts/token"),
		// RuntimeClasses, for the sandbox's handler; CSRs, for the
		// kubelet's own certificates.
		rule(read, "node.k8s.io", "runtimeclasses"),
		rule([]string{"create", "get", "list", "watch"}, "certificates.k8s.io", "certificatesigningrequests"),
		// CSI: the drivers' CSIDrivers, the node's own CSINode
		// (NodeRestriction: only its own), the attachments it waits for.
		rule(read, "storage.k8s.io", "csidrivers"),
		rule([]string{"get", "create", "update", "patch", "delete"}, "storage.k8s.io", "csinodes"),
		rule(getOnly, "storage.k8s.io", "volumeattachments"),
	}
}

// kubeSchedulerRules are system:kube-scheduler's.
func kubeSchedulerRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		eventsRule(),
		// Leader election.
		rule([]string{"create"}, "coordination.k8s.io", "leases"),
		named(rule([]string{"get", "update"}, "coordination.k8s.io", "leases"), "kube-scheduler"),
		rule(read, "", "nodes"),
		rule([]string{"get", "list", "watch", "delete"}, "", "pods"),
		rule([]string{"create"}, "", "pods/binding", "bindings"),
		rule([]string{"patch", "update"}, "", "pods/status"),
		// What selects pods, and what pods use.
		rule(read, "", "services", "replicationcontrollers"),
		rule(read, "apps", "replicasets", "statefulsets"),
		rule(read, "policy", "poddisruptionbudgets"),
		rule(read, "", "persistentvolumeclaims", "persistentvolumes"),
		rule([]string{"create"}, "authentication.k8s.io", "tokenreviews"),
		rule([]string{"create"}, "authorization.k8s.io", "subjectaccessreviews"),
		rule(read, "storage.k8s.io", "csinodes", "csidrivers", "csistoragecapacities"),
		// Namespaces, for the namespaceSelector of pod affinity terms.
		rule([]string{"list", "watch"}, "", "namespaces"),
	}
}

// kubeControllerManagerRules are system:kube-controller-manager's: its
// shared informers list and watch everything; each controller writes as
// its own service account.
func kubeControllerManagerRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		eventsRule(),
		rule([]string{"create"}, "coordination.k8s.io", "leases"),
		named(rule([]string{"get", "update"}, "coordination.k8s.io", "leases"), "kube-controller-manager"),
		rule([]string{"create"}, "", "secrets", "serviceaccounts"),
		rule([]string{"delete"}, "", "secrets"),
		rule(getOnly, "", "namespaces", "secrets", "serviceaccounts", "configmaps"),
		rule([]string{"update"}, "", "secrets", "serviceaccounts"),
		rule([]string{"create"}, "authentication.k8s.io", "tokenreviews"),
		rule([]string{"create"}, "authorization.k8s.io", "subjectaccessreviews"),
		// The shared informers.
		{Verbs: []string{"list", "watch"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
		rule([]string{"create"}, "", "serviceaccounts/token"),
	}
}

// ControllerRole is the role of one controller of the controller
// manager: Name is its service account in kube-system (and its role's
// name after ControllerRolePrefix).
type ControllerRole struct {
	Name  string
	Rules []rbacv1.PolicyRule
}

// ControllerRoles are bootstrappolicy's controller roles for the
// controllers kubesim runs or is getting, by their real names.
func ControllerRoles() []ControllerRole {
	all := []string{"*"}
	return []ControllerRole{
		{"certificate-controller", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "delete"}, "certificates.k8s.io", "certificatesigningrequests"),
			rule([]string{"update"}, "certificates.k8s.io", "certificatesigningrequests/status", "certificatesigningrequests/approval"),
			named(rule([]string{"approve"}, "certificates.k8s.io", "signers"), "kubernetes.io/kube-apiserver-client-kubelet"),
			named(rule([]string{"sign"}, "certificates.k8s.io", "signers"), "kubernetes.io/legacy-unknown",
				"kubernetes.io/kube-apiserver-client", "kubernetes.io/kube-apiserver-client-kubelet", "kubernetes.io/kubelet-serving"),
			rule([]string{"create"}, "authorization.k8s.io", "subjectaccessreviews"),
			eventsRule(),
		}},
		{"clusterrole-aggregation-controller", []rbacv1.PolicyRule{
			rule([]string{"escalate", "get", "list", "watch", "update", "patch"}, api.RBACGroupName, "clusterroles"),
		}},
		{"cronjob-controller", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "update"}, "batch", "cronjobs"),
			rule([]string{"get", "list", "watch", "create", "update", "delete", "patch"}, "batch", "jobs"),
			rule([]string{"update"}, "batch", "cronjobs/status", "cronjobs/finalizers"),
			rule([]string{"list", "watch", "delete"}, "", "pods"),
			eventsRule(),
		}},
		{"daemon-set-controller", []rbacv1.PolicyRule{
			rule(read, "apps", "daemonsets"),
			rule([]string{"update"}, "apps", "daemonsets/status", "daemonsets/finalizers"),
			rule([]string{"list", "watch"}, "", "nodes"),
			rule([]string{"list", "watch", "create", "delete", "patch"}, "", "pods"),
			rule([]string{"create"}, "", "pods/binding"),
			rule([]string{"get", "list", "watch", "create", "delete", "update", "patch"}, "apps", "controllerrevisions"),
			eventsRule(),
		}},
		{"deployment-controller", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "update"}, "apps", "deployments"),
			// kubesim's controller writes the revision annotation with a
			// metadata merge patch where the real one updates.
			rule([]string{"patch"}, "apps", "deployments"),
			rule([]string{"update"}, "apps", "deployments/status", "deployments/finalizers"),
			rule([]string{"get", "list", "watch", "create", "update", "patch", "delete"}, "apps", "replicasets"),
			rule([]string{"get", "list", "watch", "update"}, "", "pods"),
			eventsRule(),
		}},
		{"disruption-controller", []rbacv1.PolicyRule{
			rule(read, "apps", "deployments", "replicasets", "statefulsets"),
			rule(read, "", "replicationcontrollers"),
			rule(read, "policy", "poddisruptionbudgets"),
			rule([]string{"update"}, "policy", "poddisruptionbudgets/status"),
			rule([]string{"patch", "update"}, "", "pods/status"),
			{Verbs: getOnly, APIGroups: all, Resources: []string{"*/scale"}},
			eventsRule(),
		}},
		{"endpoint-controller", []rbacv1.PolicyRule{
			rule(read, "", "services", "pods"),
			rule([]string{"get", "list", "watch", "create", "update", "delete"}, "", "endpoints"),
			rule([]string{"create"}, "", "endpoints/restricted"),
			eventsRule(),
		}},
		{"endpointslice-controller", []rbacv1.PolicyRule{
			rule(read, "", "services", "pods", "nodes"),
			rule([]string{"update"}, "", "services/finalizers"),
			rule([]string{"get", "list", "watch", "create", "update", "delete"}, "discovery.k8s.io", "endpointslices"),
			eventsRule(),
		}},
		{"endpointslicemirroring-controller", []rbacv1.PolicyRule{
			rule(read, "", "services", "endpoints"),
			rule([]string{"update"}, "", "services/finalizers", "endpoints/finalizers"),
			rule([]string{"get", "list", "watch", "create", "update", "delete"}, "discovery.k8s.io", "endpointslices"),
			eventsRule(),
		}},
		{"generic-garbage-collector", []rbacv1.PolicyRule{
			{Verbs: []string{"get", "list", "watch", "patch", "update", "delete"}, APIGroups: all, Resources: all},
			eventsRule(),
		}},
		{"horizontal-pod-autoscaler", []rbacv1.PolicyRule{
			rule(read, "autoscaling", "horizontalpodautoscalers"),
			rule([]string{"update"}, "autoscaling", "horizontalpodautoscalers/status"),
			// patch is beyond the real role (get, update): kubesim's HPA
			// writes the new replica count as a merge patch of the scale.
			{Verbs: []string{"get", "update", "patch"}, APIGroups: all, Resources: []string{"*/scale"}},
			rule([]string{"list", "watch"}, "", "pods"),
			rule([]string{"list", "watch"}, "metrics.k8s.io", "pods"),
			rule(read, "custom.metrics.k8s.io", "*"),
			rule(read, "external.metrics.k8s.io", "*"),
			eventsRule(),
		}},
		{"job-controller", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "update", "patch"}, "batch", "jobs"),
			rule([]string{"update"}, "batch", "jobs/status", "jobs/finalizers"),
			rule([]string{"list", "watch", "create", "delete", "patch"}, "", "pods"),
			eventsRule(),
		}},
		{"namespace-controller", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "delete"}, "", "namespaces"),
			rule([]string{"update"}, "", "namespaces/finalize", "namespaces/status"),
			// kubesim has no finalize subresource: the controller gives up
			// its finalizer with a plain update.
			rule([]string{"update"}, "", "namespaces"),
			{Verbs: []string{"get", "list", "watch", "delete", "deletecollection"}, APIGroups: all, Resources: all},
		}},
		{"node-controller", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "update", "delete", "patch"}, "", "nodes"),
			rule([]string{"patch", "update"}, "", "nodes/status"),
			rule([]string{"patch", "update"}, "", "pods/status"),
			rule([]string{"list", "watch", "get", "delete"}, "", "pods"),
			eventsRule(),
		}},
		{"persistent-volume-binder", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "update", "create", "delete"}, "", "persistentvolumes"),
			rule([]string{"update"}, "", "persistentvolumes/status"),
			rule([]string{"get", "list", "watch", "update"}, "", "persistentvolumeclaims"),
			rule([]string{"update"}, "", "persistentvolumeclaims/status"),
			rule([]string{"list", "watch", "get", "create", "delete"}, "", "pods"),
			rule(read, "storage.k8s.io", "storageclasses"),
			rule([]string{"list", "watch"}, "", "nodes"),
			eventsRule(),
			rule([]string{"watch"}, "", "events"),
		}},
		{"pod-garbage-collector", []rbacv1.PolicyRule{
			rule([]string{"list", "watch", "delete"}, "", "pods"),
			rule(read, "", "nodes"),
			rule([]string{"patch"}, "", "pods/status"),
		}},
		{"pv-protection-controller", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "update"}, "", "persistentvolumes"),
			eventsRule(),
		}},
		{"pvc-protection-controller", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "update"}, "", "persistentvolumeclaims"),
			rule(read, "", "pods"),
			eventsRule(),
		}},
		{"replicaset-controller", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "update"}, "apps", "replicasets"),
			rule([]string{"update"}, "apps", "replicasets/status", "replicasets/finalizers"),
			rule([]string{"list", "watch", "patch", "create", "delete"}, "", "pods"),
			eventsRule(),
		}},
		{"replication-controller", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "update"}, "", "replicationcontrollers"),
			rule([]string{"update"}, "", "replicationcontrollers/status", "replicationcontrollers/finalizers"),
			rule([]string{"list", "watch", "patch", "create", "delete"}, "", "pods"),
			eventsRule(),
		}},
		{"resourcequota-controller", []rbacv1.PolicyRule{
			{Verbs: []string{"list", "watch"}, APIGroups: all, Resources: all},
			rule([]string{"update"}, "", "resourcequotas/status"),
			eventsRule(),
		}},
		{"root-ca-cert-publisher", []rbacv1.PolicyRule{
			rule([]string{"create", "update"}, "", "configmaps"),
			eventsRule(),
		}},
		{"service-account-controller", []rbacv1.PolicyRule{
			rule([]string{"create"}, "", "serviceaccounts"),
			eventsRule(),
		}},
		{"statefulset-controller", []rbacv1.PolicyRule{
			rule([]string{"list", "watch"}, "", "pods"),
			rule(read, "apps", "statefulsets"),
			rule([]string{"update"}, "apps", "statefulsets/status", "statefulsets/finalizers"),
			rule([]string{"get", "create", "delete", "update", "patch"}, "", "pods"),
			rule([]string{"get", "create", "delete", "update", "patch", "list", "watch"}, "apps", "controllerrevisions"),
			rule([]string{"get", "create", "list", "watch"}, "", "persistentvolumeclaims"),
			rule([]string{"update", "delete"}, "", "persistentvolumeclaims"),
			rule([]string{"update"}, "", "pods/finalizers"),
			eventsRule(),
		}},
		{"ttl-after-finished-controller", []rbacv1.PolicyRule{
			rule([]string{"get", "list", "watch", "delete"}, "batch", "jobs"),
			eventsRule(),
		}},
		{"validatingadmissionpolicy-status-controller", []rbacv1.PolicyRule{
			rule(read, "admissionregistration.k8s.io", "validatingadmissionpolicies"),
			rule([]string{"get", "patch", "update"}, "admissionregistration.k8s.io", "validatingadmissionpolicies/status"),
			eventsRule(),
		}},
	}
}
