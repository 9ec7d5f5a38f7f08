package cluster

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// What kube-apiserver 1.32 serves with its default --runtime-config,
// compared with what kubesim's discovery says (/api, /apis): every group
// and version it enables (GA only — since 1.24 new beta APIs are off by
// default, and 1.32 has no older beta still on), every resource of
// `kubectl api-resources` on a 1.32 cluster with its kind, scope and short
// names, and autoscaling/v1's HPAs besides. Each entry's kind must be one
// that the group's k8s.io/api package registers (its AddToScheme), and
// every kind those packages register must be an entry, a subresource's or
// an option's kind, or a list: a resource missing from kubesim fails
// here, and so does a kind k8s.io/api gains.
//
// Not served by default, and so not expected: resource.k8s.io
// (v1beta1, beta and off in 1.32), storage.k8s.io/v1beta1
// VolumeAttributesClasses, networking.k8s.io/v1beta1 IPAddresses and
// ServiceCIDRs (beta, off), coordination.k8s.io/v1alpha2 LeaseCandidates,
// certificates.k8s.io/v1alpha1 ClusterTrustBundles,
// admissionregistration.k8s.io/v1alpha1 and v1beta1,
// internal.apiserver.k8s.io/v1alpha1 StorageVersions and
// storagemigration.k8s.io/v1alpha1 (alpha).

// expectedResource is one line of kubectl api-resources.
type expectedResource struct {
	group, version, resource, kind string
	namespaced                     bool
	shortNames                     []string
}

func res(gv, resource, kind string, namespaced bool, short ...string) expectedResource {
	g, v, ok := strings.Cut(gv, "/")
	if !ok {
		g, v = "", gv
	}
	return expectedResource{group: g, version: v, resource: resource, kind: kind, namespaced: namespaced, shortNames: short}
}

func kubeAPIServerResources() []expectedResource {
	return []expectedResource{
		res("v1", "bindings", "Binding", true),
		res("v1", "componentstatuses", "ComponentStatus", false, "cs"),
		res("v1", "configmaps", "ConfigMap", true, "cm"),
		res("v1", "endpoints", "Endpoints", true, "ep"),
		res("v1", "events", "Event", true, "ev"),
		res("v1", "limitranges", "LimitRange", true, "limits"),
		res("v1", "namespaces", "Namespace", false, "ns"),
		res("v1", "nodes", "Node", false, "no"),
		res("v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, "pvc"),
		res("v1", "persistentvolumes", "PersistentVolume", false, "pv"),
		res("v1", "pods", "Pod", true, "po"),
		res("v1", "podtemplates", "PodTemplate", true),
		res("v1", "replicationcontrollers", "ReplicationController", true, "rc"),
		res("v1", "resourcequotas", "ResourceQuota", true, "quota"),
		res("v1", "secrets", "Secret", true),
		res("v1", "serviceaccounts", "ServiceAccount", true, "sa"),
		res("v1", "services", "Service", true, "svc"),
		res("admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", false),
		res("admissionregistration.k8s.io/v1", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", false),
		res("admissionregistration.k8s.io/v1", "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", false),
		res("admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", false),
		res("apiextensions.k8s.io/v1", "customresourcedefinitions", "CustomResourceDefinition", false, "crd", "crds"),
		res("apiregistration.k8s.io/v1", "apiservices", "APIService", false),
		res("apps/v1", "controllerrevisions", "ControllerRevision", true),
		res("apps/v1", "daemonsets", "DaemonSet", true, "ds"),
		res("apps/v1", "deployments", "Deployment", true, "deploy"),
		res("apps/v1", "replicasets", "ReplicaSet", true, "rs"),
		res("apps/v1", "statefulsets", "StatefulSet", true, "sts"),
		res("authentication.k8s.io/v1", "selfsubjectreviews", "SelfSubjectReview", false),
		res("authentication.k8s.io/v1", "tokenreviews", "TokenReview", false),
		res("authorization.k8s.io/v1", "localsubjectaccessreviews", "LocalSubjectAccessReview", true),
		res("authorization.k8s.io/v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false),
		res("authorization.k8s.io/v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", false),
		res("authorization.k8s.io/v1", "subjectaccessreviews", "SubjectAccessReview", false),
		res("autoscaling/v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, "hpa"),
		res("autoscaling/v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, "hpa"),
		res("batch/v1", "cronjobs", "CronJob", true, "cj"),
		res("batch/v1", "jobs", "Job", true),
		res("certificates.k8s.io/v1", "certificatesigningrequests", "CertificateSigningRequest", false, "csr"),
		res("coordination.k8s.io/v1", "leases", "Lease", true),
		res("discovery.k8s.io/v1", "endpointslices", "EndpointSlice", true),
		res("events.k8s.io/v1", "events", "Event", true, "ev"),
		res("flowcontrol.apiserver.k8s.io/v1", "flowschemas", "FlowSchema", false),
		res("flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations", "PriorityLevelConfiguration", false),
		res("networking.k8s.io/v1", "ingressclasses", "IngressClass", false),
		res("networking.k8s.io/v1", "ingresses", "Ingress", true, "ing"),
		res("networking.k8s.io/v1", "networkpolicies", "NetworkPolicy", true, "netpol"),
		res("node.k8s.io/v1", "runtimeclasses", "RuntimeClass", false),
		res("policy/v1", "poddisruptionbudgets", "PodDisruptionBudget", true, "pdb"),
		res("rbac.authorization.k8s.io/v1", "clusterrolebindings", "ClusterRoleBinding", false),
		res("rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", false),
		res("rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding", true),
		res("rbac.authorization.k8s.io/v1", "roles", "Role", true),
		res("scheduling.k8s.io/v1", "priorityclasses", "PriorityClass", false, "pc"),
		res("storage.k8s.io/v1", "csidrivers", "CSIDriver", false),
		res("storage.k8s.io/v1", "csinodes", "CSINode", false),
		res("storage.k8s.io/v1", "csistoragecapacities", "CSIStorageCapacity", true),
		res("storage.k8s.io/v1", "storageclasses", "StorageClass", false, "sc"),
		res("storage.k8s.io/v1", "volumeattachments", "VolumeAttachment", false),
	}
}

// notServed are kube-apiserver's default resources kubesim leaves out, and
// why. A resource served here must leave this list (the test says so).
var notServed = map[string]string{
	"v1/bindings": "a pod is bound through its pods/binding subresource, which the scheduler uses; " +
		"the older top-level bindings resource is not served",
	"v1/componentstatuses": "deprecated since 1.19; kubesim has no separate etcd, scheduler or controller-manager " +
		"health endpoints for it to report",
	"storage.k8s.io/v1/csistoragecapacities": "no CSI driver reports capacity; the scheduler's volume binding reads " +
		"the PersistentVolumes themselves",
}

// notResources are the kinds k8s.io/api registers that are no top-level
// resource: subresources' and options' kinds, and the meta kinds every
// group version registers.
var notResources = []string{
	// meta/v1, registered in every group version
	"APIGroup", "APIGroupList", "APIResourceList", "APIVersions", "CreateOptions", "DeleteOptions", "GetOptions",
	"ListOptions", "PatchOptions", "Status", "UpdateOptions", "WatchEvent",
	// core/v1 options and subresources
	"EphemeralContainers", "Eviction@policy", "NodeProxyOptions", "PodAttachOptions", "PodExecOptions",
	"PodLogOptions", "PodPortForwardOptions", "PodProxyOptions", "PodStatusResult", "RangeAllocation",
	"SerializedReference", "ServiceProxyOptions", "List",
	// the Scale of /scale, the TokenRequest of serviceaccounts/token; a
	// conversion webhook's request and answer
	"Scale", "TokenRequest", "ConversionReview",
}

// gaAfter132 are kinds the k8s.io/api of go.mod registers at a GA version
// that kube-apiserver 1.32 did not serve yet (it had them at alpha or
// beta, off by default): 1.32's discovery has none of them.
var gaAfter132 = []string{
	"admissionregistration.k8s.io/v1 MutatingAdmissionPolicy", "admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding",
	"certificates.k8s.io/v1 ClusterTrustBundle", "certificates.k8s.io/v1 PodCertificateRequest",
	"networking.k8s.io/v1 IPAddress", "networking.k8s.io/v1 ServiceCIDR",
	"storage.k8s.io/v1 VolumeAttributesClass",
}

// schemeKinds returns the kinds each group version's k8s.io/api package
// registers.
func schemeKinds(t *testing.T) map[schema.GroupVersion][]string {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, admissionregistrationv1.AddToScheme, apiextensionsv1.AddToScheme, apiregistrationv1.AddToScheme,
		appsv1.AddToScheme, authenticationv1.AddToScheme, authorizationv1.AddToScheme, autoscalingv1.AddToScheme,
		autoscalingv2.AddToScheme, batchv1.AddToScheme, certificatesv1.AddToScheme, coordinationv1.AddToScheme,
		discoveryv1.AddToScheme, eventsv1.AddToScheme, flowcontrolv1.AddToScheme, networkingv1.AddToScheme,
		nodev1.AddToScheme, policyv1.AddToScheme, rbacv1.AddToScheme, schedulingv1.AddToScheme, storagev1.AddToScheme,
	} {
		require.NoError(t, add(scheme))
	}
	out := map[schema.GroupVersion][]string{}
	for gvk := range scheme.AllKnownTypes() {
		out[gvk.GroupVersion()] = append(out[gvk.GroupVersion()], gvk.Kind)
	}
	return out
}

func isNotResource(gv schema.GroupVersion, kind string) bool {
	if strings.HasSuffix(kind, "List") && kind != "List" {
		return true
	}
	return slices.Contains(notResources, kind) || slices.Contains(notResources, kind+"@"+gv.Group) ||
		slices.Contains(gaAfter132, gv.String()+" "+kind)
}

// served reads kubesim's discovery: every resource of every group
// version, by "group/version/resource" ("v1/pods" for the core group).
func served(t *testing.T, c *Cluster) map[string]metav1.APIResource {
	t.Helper()
	cl := c.Client("discovery-test")
	get := func(path string, into any) {
		b, err := cl.RawGet(bg, path)
		require.NoError(t, err, path)
		require.NoError(t, json.Unmarshal(b, into), "%s: %s", path, b)
	}
	out := map[string]metav1.APIResource{}
	add := func(prefix, path string) {
		var l metav1.APIResourceList
		get(path, &l)
		for _, r := range l.APIResources {
			if !strings.Contains(r.Name, "/") {
				out[prefix+r.Name] = r
			}
		}
	}
	var core metav1.APIVersions
	get("/api", &core)
	for _, v := range core.Versions {
		add(v+"/", "/api/"+v)
	}
	var groups metav1.APIGroupList
	get("/apis", &groups)
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			add(v.GroupVersion+"/", "/apis/"+v.GroupVersion)
		}
	}
	return out
}

func TestDiscoveryServesKubeAPIServerResources(t *testing.T) {
	want := kubeAPIServerResources()
	kinds := schemeKinds(t)

	// The table agrees with k8s.io/api, both ways.
	listed := map[schema.GroupVersion]map[string]bool{}
	for _, r := range want {
		gv := schema.GroupVersion{Group: r.group, Version: r.version}
		assert.Contains(t, kinds[gv], r.kind, "%s registers no kind %s", gv, r.kind)
		if listed[gv] == nil {
			listed[gv] = map[string]bool{}
		}
		listed[gv][r.kind] = true
	}
	for gv, ks := range kinds {
		for _, k := range ks {
			if !listed[gv][k] && !isNotResource(gv, k) {
				t.Errorf("k8s.io/api registers %s %s, which is in no list of this test: add its resource or say why it is none", gv, k)
			}
		}
	}

	c, err := newTestCluster(t, Config{APIServerOnly: true, UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	got := served(t, c)
	for _, r := range want {
		key := r.group + "/" + r.version + "/" + r.resource
		if r.group == "" {
			key = r.version + "/" + r.resource
		}
		s, ok := got[key]
		_, excused := notServed[key]
		switch {
		case ok && excused:
			t.Errorf("%s is served now: take it out of this test's exceptions", key)
		case !ok && !excused:
			t.Errorf("kube-apiserver 1.32 serves %s (%s) by default; kubesim does not, and no exception says why", key, r.kind)
		case ok:
			assert.Equal(t, r.kind, s.Kind, key)
			assert.Equal(t, r.namespaced, s.Namespaced, key)
			assert.ElementsMatch(t, r.shortNames, s.ShortNames, key)
		}
	}
}
