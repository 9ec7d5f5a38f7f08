package cluster

import (
	"slices"
	"strings"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/nodeauthz"
	"github.com/kubesim/kubesim/apiserver/rbacregistry"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/apiserver/serviceaccount"
	"github.com/kubesim/kubesim/controllers/apfconfig"
	availability "github.com/kubesim/kubesim/controllers/apiserviceavailability"
	"github.com/kubesim/kubesim/controllers/kubernetesservice"
)

// Who each component is. Every built-in component talks to the
// API server as its own user and is audited and authorized as that user,
// as in a real cluster:
//
//   - the scheduler as system:kube-scheduler (its client certificate);
//   - each kubelet as system:node:<nodeName> in system:nodes, which the
//     Node authorizer keeps to its node;
//   - each controller of the controller manager as its own service
//     account in kube-system (system:serviceaccount:kube-system:
//     replicaset-controller, ...), bound to system:controller:<name>.
//     That is kube-controller-manager with --use-service-account-credentials,
//     which kubeadm and most installers set (the flag's own default, false,
//     runs every loop as system:kube-controller-manager, which would then
//     need every controller's rights at once). Its shared informers still
//     list and watch as system:kube-controller-manager, and so do the
//     controllers' list and watch requests here: that is why the real
//     controller roles hold so few read verbs;
//   - the ingress-nginx add-on's controller as its service account,
//     system:serviceaccount:ingress-nginx:ingress-nginx, bound to the
//     ClusterRole its install makes (ingressnginx.go), for its lists and
//     watches too: it is not kube-controller-manager's; the kubelets'
//     network reads as that account for the controller's nginx, and as
//     kube-system:kindnet for the CNI plugin's policy agent;
//   - the API server's own loops (the CRD finalizer, API Priority and
//     Fairness's config controller, the APIService availability check) as
//     its privileged loopback, as kube-apiserver
//     runs them in process with its loopback token.
//
// Config.Extra controllers are the embedder's own code and keep the
// privileged loopback too; run an operator as a pod (ControllerImages) or
// a process (`kubesim run-controller`) to give it an identity and a role.

// controllerServiceAccounts names the service account of each
// controller switch whose account is not its client's user agent:
// kube-controller-manager's names (cmd/kube-controller-manager/names),
// including the controllers other branches add.
var controllerServiceAccounts = map[string]string{
	"replicaset":                       "replicaset-controller",
	"replicationcontroller":            "replication-controller",
	"deployment":                       "deployment-controller",
	"statefulset":                      "statefulset-controller",
	"daemonset":                        "daemon-set-controller",
	"job":                              "job-controller",
	"cronjob":                          "cronjob-controller",
	"ttl-after-finished":               "ttl-after-finished-controller",
	"garbagecollector":                 "generic-garbage-collector",
	"namespace":                        "namespace-controller",
	"nodelifecycle":                    "node-controller",
	"serviceaccount":                   "service-account-controller",
	"root-ca-cert-publisher":           "root-ca-cert-publisher",
	"endpoints":                        "endpoint-controller",
	"endpointslice":                    "endpointslice-controller",
	"endpointslicemirroring":           "endpointslicemirroring-controller",
	"clusterrole-aggregation":          "clusterrole-aggregation-controller",
	"persistentvolume-binder":          "persistent-volume-binder",
	"persistentvolume-protection":      "pv-protection-controller",
	"persistentvolumeclaim-protection": "pvc-protection-controller",
	"pvc-protection":                   "pvc-protection-controller",
	"horizontalpodautoscaling":         "horizontal-pod-autoscaler",
	"disruption":                       "disruption-controller",
	"resourcequota":                    "resourcequota-controller",
	"podgc":                            "pod-garbage-collector",
	"validatingadmissionpolicy-status": "validatingadmissionpolicy-status-controller",
	"csrsigning":                       "certificate-controller",
}

// apiServerOwnLoops run inside kube-apiserver (or the aggregator) and use
// its privileged loopback.
var apiServerOwnLoops = []string{kubernetesservice.ControllerName, "customresourcecleanup", apfconfig.ControllerName, availability.ControllerName}

// ServiceAccountUser is the user of a service account, with its groups.
func ServiceAccountUser(namespace, name string) *authn.UserInfo {
	return &authn.UserInfo{Name: serviceaccount.UserName(namespace, name),
		Groups: []string{serviceaccount.AllServiceAccountsGroup, serviceaccount.NamespaceGroup(namespace), authn.AllAuthenticated}}
}

// controllerManagerUser is kube-controller-manager's own identity.
var controllerManagerUser = authn.UserInfo{Name: rbacregistry.KubeControllerManager, Groups: []string{authn.AllAuthenticated}}

// identity returns who the component of a wiring row is; nil is the
// privileged loopback.
func (c *Cluster) identity(switchName, userAgent string) apiserver.LoopbackIdentity {
	switch {
	case switchName == "scheduler":
		return apiserver.FixedIdentity(&authn.UserInfo{Name: rbacregistry.KubeScheduler, Groups: []string{authn.AllAuthenticated}})
	case strings.HasPrefix(switchName, "kubelet/"):
		return apiserver.FixedIdentity(nodeauthz.NodeUser(strings.TrimPrefix(switchName, "kubelet/")))
	case switchName == ingressNginxSwitch:
		return apiserver.FixedIdentity(ingressNginxUser())
	case slices.Contains(apiServerOwnLoops, switchName) || !slices.Contains(ControllerNames, switchName):
		return apiserver.FixedIdentity(nil) // the API server's loops; Config.Extra
	}
	sa := controllerServiceAccounts[switchName]
	if sa == "" {
		sa = userAgent
	}
	return controllerIdentity(ServiceAccountUser("kube-system", sa))
}

// controllerIdentity is a controller's: its list and watch requests are
// the controller manager's shared informers', the rest its own.
func controllerIdentity(own *authn.UserInfo) apiserver.LoopbackIdentity {
	return func(info *request.Info) *authn.UserInfo {
		if info.IsResourceRequest && (info.Verb == "list" || info.Verb == "watch") {
			return &controllerManagerUser
		}
		return own
	}
}
