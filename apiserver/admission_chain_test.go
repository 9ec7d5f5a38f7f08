package apiserver_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// extraPlugin stands for a plugin given in Config.Admission.
type extraPlugin struct{}

func (extraPlugin) PluginName() string { return "Extra" }
func (extraPlugin) Validate(context.Context, *admission.Attributes) error {
	return nil
}

// chainOf builds a server from cfg (its store, clock and resources
// filled in) and returns the admission chain its stores run, by plugin
// name.
func chainOf(t *testing.T, cfg apiserver.Config) []string {
	t.Helper()
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	cfg.Storage, cfg.Clock, cfg.Rand, cfg.Resources = st, clock.NewFake(apiservertest.Start), rand.NewChaCha8([32]byte{1}), kinds.Builtin()
	srv, err := apiserver.New(cfg)
	require.NoError(t, err)
	pods, ok := srv.Store("", "v1", "pods")
	require.True(t, ok)
	configMaps, ok := srv.Store("", "v1", "configmaps")
	require.True(t, ok)
	assert.Equal(t, pods.Admission().Names(), configMaps.Admission().Names(), "every store runs the one chain")
	return pods.Admission().Names()
}

// TestAdmissionChainOrder pins the order admission_chain.go documents:
// moving a plugin fails here until the documentation and this list say
// the same.
func TestAdmissionChainOrder(t *testing.T) {
	all := chainOf(t, apiserver.Config{AuthorizationMode: "Node,RBAC", ServiceAccountAdmission: true, Admission: []any{extraPlugin{}}})
	assert.Equal(t, []string{
		"NamespaceLifecycle",
		"LimitRanger",
		"ServiceAccount",
		"NodeRestriction",
		"Priority",
		"DefaultTolerationSeconds",
		"DefaultStorageClass",
		"StorageObjectInUseProtection",
		"RuntimeClass",
		"CertificateApproval",
		"CertificateSigning",
		"CertificateSubjectRestriction",
		"DefaultIngressClass",
		"Extra",
		"Escalation",
		"MutatingAdmissionWebhook",
		"ValidatingAdmissionPolicy",
		"ValidatingAdmissionWebhook",
		"ResourceQuota",
	}, all)

	// Without the ServiceAccount plugin, the Node and RBAC modes and
	// extra plugins, the others keep their order.
	bare := chainOf(t, apiserver.Config{})
	assert.Equal(t, []string{
		"NamespaceLifecycle",
		"LimitRanger",
		"Priority",
		"DefaultTolerationSeconds",
		"DefaultStorageClass",
		"StorageObjectInUseProtection",
		"RuntimeClass",
		"CertificateApproval",
		"CertificateSigning",
		"CertificateSubjectRestriction",
		"DefaultIngressClass",
		"MutatingAdmissionWebhook",
		"ValidatingAdmissionPolicy",
		"ValidatingAdmissionWebhook",
		"ResourceQuota",
	}, bare)
}

// A kubelet that oversteps, and a user who escalates, are refused by
// NodeRestriction and the escalation check before a policy that would
// refuse the same write is asked, as in kube-apiserver (which checks both
// before its validating plugins): the client reads why it overstepped.
func TestAdmissionChainRefusesNodesAndEscalationsBeforePolicies(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	srv, err := apiserver.New(apiserver.Config{
		Storage: st, Clock: clock.NewFake(apiservertest.Start), Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin(),
		Authenticator: authn.NewTokenAuthenticator(map[string]authn.UserInfo{
			"admin-token":   {Name: "admin", Groups: []string{"system:masters"}},
			"alice-token":   {Name: "alice"},
			"kubelet-token": {Name: "system:node:n1", Groups: []string{"system:nodes"}},
		}),
		AuthorizationMode: "Node,RBAC",
	})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(context.Background()))
	h := srv.Handler()
	admin := func(path, body string) {
		t.Helper()
		code, _, out := call(t, h, "admin-token", "POST", path, body)
		require.Equal(t, 201, code, out)
	}
	// alice may create roles, but holds nothing else.
	rbacURL := "/apis/rbac.authorization.k8s.io/v1/namespaces/default/"
	admin(rbacURL+"roles", `{"metadata":{"name":"role-writer"},"rules":[{"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles"],"verbs":["create"]}]}`)
	admin(rbacURL+"rolebindings", `{"metadata":{"name":"role-writer"},"subjects":[{"kind":"User","name":"alice"}],"roleRef":{"kind":"Role","name":"role-writer"}}`)
	// A policy that refuses every node and role create, from now on.
	admin("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
		`{"metadata":{"name":"no"},"spec":{"matchConstraints":{"resourceRules":[`+
			`{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["nodes"]},`+
			`{"apiGroups":["rbac.authorization.k8s.io"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["roles"]}]},`+
			`"validations":[{"expression":"false","message":"the policy says no"}]}}`)
	admin("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
		`{"metadata":{"name":"no"},"spec":{"policyName":"no","validationActions":["Deny"]}}`)

	// The policy applies: the kubelet's own node and a role within
	// alice's rights are refused by it.
	code, status, _ := call(t, h, "kubelet-token", "POST", "/api/v1/nodes", `{"metadata":{"name":"n1"}}`)
	assert.Equal(t, 422, code)
	assert.Contains(t, status.Message, "the policy says no")
	code, status, _ = call(t, h, "alice-token", "POST", rbacURL+"roles", `{"metadata":{"name":"same"},"rules":[{"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles"],"verbs":["create"]}]}`)
	assert.Equal(t, 422, code)
	assert.Contains(t, status.Message, "the policy says no")

	// Another node, and a role beyond her rights: refused for that.
	code, status, _ = call(t, h, "kubelet-token", "POST", "/api/v1/nodes", `{"metadata":{"name":"n2"}}`)
	assert.Equal(t, 403, code)
	assert.Equal(t, `nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`, status.Message)
	code, status, _ = call(t, h, "alice-token", "POST", rbacURL+"roles", `{"metadata":{"name":"more"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["delete"]}]}`)
	assert.Equal(t, 403, code)
	assert.Contains(t, status.Message, `user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held`)
}
