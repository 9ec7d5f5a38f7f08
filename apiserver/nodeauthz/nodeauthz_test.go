package nodeauthz

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
)

var bg = context.Background()

// pods: web on node-1 uses the secret db-password (env), the ConfigMap
// settings (volume), the PVC data and the account robot; other on node-2
// uses the secret other-secret.
func testPods() []*corev1.Pod {
	return []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: corev1.PodSpec{NodeName: "node-1", ServiceAccountName: "robot",
			Volumes: []corev1.Volume{
				{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}}},
				{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
				{Name: "proj", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}}}}}}},
			},
			Containers: []corev1.Container{{Name: "c", Env: []corev1.EnvVar{{Name: "PW", ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db-password"}, Key: "pw"}}}}}}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "other"}, Spec: corev1.PodSpec{NodeName: "node-2",
			Containers: []corev1.Container{{Name: "c", EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "other-secret"}}}}}}}},
	}
}

func testAuthorizer() *Authorizer {
	return &Authorizer{Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"services"}},
		{Verbs: []string{"create", "update", "patch"}, APIGroups: []string{""}, Resources: []string{"events"}},
	}, Pods: func(_ context.Context, node string) ([]*corev1.Pod, error) {
		var out []*corev1.Pod
		for _, p := range testPods() {
			if p.Spec.NodeName == node {
				out = append(out, p)
			}
		}
		return out, nil
	}}
}

func attrs(u *authn.UserInfo, verb, group, resource, sub, ns, name string) authz.Attributes {
	return authz.Attributes{User: u, Verb: verb, ResourceRequest: true, APIGroup: group, APIVersion: "v1",
		Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

func TestNodeAuthorizer(t *testing.T) {
	n1 := NodeUser("node-1")
	a := testAuthorizer()
	withSelector := func(at authz.Attributes, sel string) authz.Attributes { at.FieldSelector = sel; return at }
	cases := []struct {
		name   string
		attrs  authz.Attributes
		allow  bool
		reason string
	}{
		{"its own node", attrs(n1, "get", "", "nodes", "", "", "node-1"), true, ""},
		{"another node", attrs(n1, "get", "", "nodes", "", "", "node-2"), false, "node 'node-1' cannot read 'node-2', only its own Node object"},
		{"all nodes", attrs(n1, "list", "", "nodes", "", "", ""), false, "node 'node-1' cannot read all nodes, only its own Node object"},
		{"register (NodeRestriction checks the name)", attrs(n1, "create", "", "nodes", "", "", ""), true, ""},
		{"node status", attrs(n1, "update", "", "nodes", "status", "", "node-1"), true, ""},
		{"delete a node", attrs(n1, "delete", "", "nodes", "", "", "node-1"), false, ""},
		{"its pods by field selector", withSelector(attrs(n1, "watch", "", "pods", "", "", ""), "spec.nodeName=node-1"), true, ""},
		{"another node's pods", withSelector(attrs(n1, "list", "", "pods", "", "", ""), "spec.nodeName=node-2"), false, "can only list/watch pods with spec.nodeName field selector"},
		{"every pod", attrs(n1, "list", "", "pods", "", "", ""), false, "can only list/watch pods with spec.nodeName field selector"},
		{"get its pod", attrs(n1, "get", "", "pods", "", "default", "web"), true, ""},
		{"get another node's pod", attrs(n1, "get", "", "pods", "", "default", "other"), false, "no relationship found between node 'node-1' and this object"},
		{"pod status (NodeRestriction checks the binding)", attrs(n1, "update", "", "pods", "status", "default", "web"), true, ""},
		{"update a pod's spec", attrs(n1, "update", "", "pods", "", "default", "web"), false, ""},
		{"a secret its pod uses", attrs(n1, "get", "", "secrets", "", "default", "db-password"), true, ""},
		{"a secret of another node's pod", attrs(n1, "get", "", "secrets", "", "default", "other-secret"), false, "no relationship found between node 'node-1' and this object"},
		{"a secret by the other node", attrs(NodeUser("node-2"), "get", "", "secrets", "", "default", "other-secret"), true, ""},
		{"every secret", attrs(n1, "list", "", "secrets", "", "default", ""), false, "No Object name found"},
		{"write a secret", attrs(n1, "update", "", "secrets", "", "default", "db-password"), false, "can only read resources of this type"},
		{"a configmap volume", attrs(n1, "get", "", "configmaps", "", "default", "settings"), true, ""},
		{"a projected configmap", attrs(n1, "watch", "", "configmaps", "", "default", "kube-root-ca.crt"), true, ""},
		{"the same name elsewhere", attrs(n1, "get", "", "configmaps", "", "kube-system", "settings"), false, "no relationship found between node 'node-1' and this object"},
		{"its pod's claim", attrs(n1, "get", "", "persistentvolumeclaims", "", "default", "data"), true, ""},
		{"a claim listed", attrs(n1, "list", "", "persistentvolumeclaims", "", "default", ""), false, "can only get individual resources of this type"},
		{"a token for its pod's account", attrs(n1, "create", "", "serviceaccounts", "token", "default", "robot"), true, ""},
		{"a token for another account", attrs(n1, "create", "", "serviceaccounts", "token", "default", "default"), false, "no relationship found between node 'node-1' and this object"},
		{"its lease", attrs(n1, "update", "coordination.k8s.io", "leases", "", "kube-node-lease", "node-1"), true, ""},
		{"another lease", attrs(n1, "update", "coordination.k8s.io", "leases", "", "kube-node-lease", "node-2"), false, "can only access node lease with the same name as the requesting node"},
		{"a lease elsewhere", attrs(n1, "get", "coordination.k8s.io", "leases", "", "default", "node-1"), false, `can only access leases in the "kube-node-lease" system namespace`},
		{"list leases", attrs(n1, "list", "coordination.k8s.io", "leases", "", "kube-node-lease", ""), false, "can only get, create, update, patch, or delete a node lease"},
		{"events (static rules)", attrs(n1, "create", "", "events", "", "default", ""), true, ""},
		{"services (static rules)", attrs(n1, "list", "", "services", "", "", ""), true, ""},
		{"deployments: no opinion", attrs(n1, "list", "apps", "deployments", "", "", ""), false, ""},
		{"not a node: no opinion", attrs(&authn.UserInfo{Name: "system:node:node-1"}, "get", "", "nodes", "", "", "node-1"), false, ""},
		{"a node without a name", attrs(&authn.UserInfo{Name: "system:node:", Groups: []string{NodesGroup}}, "get", "", "nodes", "", "", "x"), false, `unknown node for user "system:node:"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, reason, err := a.Authorize(bg, c.attrs)
			require.NoError(t, err)
			assert.NotEqual(t, authz.DecisionDeny, d, "the Node authorizer never denies")
			assert.Equal(t, c.allow, d == authz.DecisionAllow)
			assert.Equal(t, c.reason, reason)
		})
	}
}

// With RBAC behind it, a refusal reads as kube-apiserver's: the RBAC
// message, then the Node authorizer's reason.
func TestNodeRefusalWording(t *testing.T) {
	u := NodeUser("node-1")
	a := authz.Union(testAuthorizer(), &authz.RBAC{Source: authz.EmptyRuleSource{}})
	at := attrs(u, "get", "", "nodes", "", "", "node-2")
	d, reason, err := a.Authorize(bg, at)
	require.NoError(t, err)
	require.Equal(t, authz.DecisionNoOpinion, d)
	assert.Equal(t, `nodes "node-2" is forbidden: User "system:node:node-1" cannot get resource "nodes" in API group "" at the cluster scope: node 'node-1' cannot read 'node-2', only its own Node object`,
		authz.Forbidden(at, reason).Error())
}

func TestNodeRestriction(t *testing.T) {
	n1 := NodeUser("node-1")
	pod := func(node string) *corev1.Pod { return &corev1.Pod{Spec: corev1.PodSpec{NodeName: node}} }
	gvr := func(group, res string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: group, Version: "v1", Resource: res}
	}
	cases := []struct {
		name string
		a    admission.Attributes
		err  string
	}{
		{"its own node", admission.Attributes{Operation: admission.Update, Resource: gvr("", "nodes"), Name: "node-1", User: n1}, ""},
		{"another node", admission.Attributes{Operation: admission.Update, Resource: gvr("", "nodes"), Subresource: "status", Name: "node-2", User: n1},
			`nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"`},
		{"register another node", admission.Attributes{Operation: admission.Create, Resource: gvr("", "nodes"), Name: "node-2", User: n1},
			`nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"`},
		{"its pod's status", admission.Attributes{Operation: admission.Update, Resource: gvr("", "pods"), Subresource: "status", Namespace: "default", Name: "web", OldObject: pod("node-1"), User: n1}, ""},
		{"another node's pod status", admission.Attributes{Operation: admission.Update, Resource: gvr("", "pods"), Subresource: "status", Namespace: "default", Name: "web", OldObject: pod("node-2"), User: n1},
			`pods "web" is forbidden: node "node-1" can only update pod status for pods with spec.nodeName set to itself`},
		{"delete its pod", admission.Attributes{Operation: admission.Delete, Resource: gvr("", "pods"), Namespace: "default", Name: "web", OldObject: pod("node-1"), User: n1}, ""},
		{"delete another node's pod", admission.Attributes{Operation: admission.Delete, Resource: gvr("", "pods"), Namespace: "default", Name: "web", OldObject: pod(""), User: n1},
			`pods "web" is forbidden: node "node-1" can only delete pods with spec.nodeName set to itself`},
		{"create a pod", admission.Attributes{Operation: admission.Create, Resource: gvr("", "pods"), Namespace: "default", Name: "web", Object: pod("node-1"), User: n1},
			`pods "web" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-1" can only create mirror pods`},
		{"its lease", admission.Attributes{Operation: admission.Create, Resource: gvr("coordination.k8s.io", "leases"), Namespace: "kube-node-lease", Name: "node-1", User: n1}, ""},
		{"another lease", admission.Attributes{Operation: admission.Create, Resource: gvr("coordination.k8s.io", "leases"), Namespace: "kube-node-lease", Name: "node-2", User: n1},
			`leases.coordination.k8s.io "node-2" is forbidden: can only access node lease with the same name as the requesting node`},
		{"evict its pod", admission.Attributes{Operation: admission.Create, Resource: gvr("", "pods"), Subresource: "eviction", Namespace: "default", Name: "mine", User: n1}, ""},
		{"evict another node's pod", admission.Attributes{Operation: admission.Create, Resource: gvr("", "pods"), Subresource: "eviction", Namespace: "default", Name: "theirs", User: n1},
			`pods "theirs" is forbidden: node "node-1" can only evict pods with spec.nodeName set to itself`},
		{"not a node", admission.Attributes{Operation: admission.Update, Resource: gvr("", "nodes"), Name: "node-2", User: &authn.UserInfo{Name: "admin"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pods := func(_ context.Context, _, name string) (*corev1.Pod, error) {
				if name == "mine" {
					return pod("node-1"), nil
				}
				return pod("node-2"), nil
			}
			err := NodeRestriction{Pods: pods}.Validate(bg, &c.a)
			if c.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, api.IsForbidden(err))
			assert.Equal(t, c.err, err.Error())
		})
	}
}
