package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// asUser is a kubectl for another user of the same server: the admin's
// kubeconfig with the user's token.
func asUser(t *testing.T, s *server, token string) *kubectl {
	k := newKubectl(t, s)
	data, err := os.ReadFile(s.kubeconfig)
	require.NoError(t, err)
	k.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(k.kubeconfig, regexp.MustCompile(`token: \S+`).ReplaceAll(data, []byte("token: "+token)), 0o600))
	return k
}

// TestKubectlRBAC: RBAC through the real kubectl —
// refusal with kube-apiserver's words, a Role and RoleBinding that let
// alice in, kubectl auth can-i (and --list), kubectl auth whoami, and a
// binding that would escalate refused.
func TestKubectlRBAC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	require.NoError(t, os.WriteFile(tokens, []byte("alice-token,alice,alice-uid,dev\nbob-token,bob,bob-uid\n"), 0o600))
	s := startServer(t, dir, "--api-server-only", "--token-file", tokens)
	admin := newKubectl(t, s)
	alice := asUser(t, s, "alice-token")

	errOut := alice.fail("get", "pods", "-n", "default")
	assert.Equal(t, `Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`+"\n", errOut)
	out, _ := alice.run(true, "auth", "can-i", "list", "pods")
	assert.Equal(t, "no\n", out)
	// Authorization runs before the aggregator routes: a path no
	// APIService serves is refused the same way, not proxied or 404.
	errOut = alice.fail("get", "--raw", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders")
	assert.Equal(t, `Error from server (Forbidden): flunders.wardle.example.com is forbidden: User "alice" cannot list resource "flunders" in API group "wardle.example.com" in the namespace "default"`+"\n", errOut)
	// Discovery and the version stay open to every user.
	alice.ok("version")
	alice.ok("api-resources")
	// The reviews are create-only in (aggregated) discovery.
	assert.NotContains(t, admin.ok("api-resources", "--verbs=list", "-o", "name"), "selfsubjectaccessreviews")
	assert.Contains(t, admin.ok("api-resources", "--verbs=create", "-o", "name"), "selfsubjectaccessreviews.authorization.k8s.io\n")
	assert.Contains(t, admin.ok("api-resources", "--verbs=list", "-o", "name"), "clusterrolebindings.rbac.authorization.k8s.io\n")

	admin.ok("create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods", "-n", "default")
	admin.ok("create", "rolebinding", "alice-reads", "--role=pod-reader", "--user=alice", "-n", "default")
	assert.Regexp(t, `(?m)^alice-reads\s+Role/pod-reader\s+\d+s$`, admin.ok("get", "rolebindings", "-n", "default"))

	_, errOut = alice.run(false, "get", "pods", "-n", "default")
	assert.Equal(t, "No resources found in default namespace.\n", errOut)
	assert.Equal(t, "yes\n", alice.ok("auth", "can-i", "list", "pods"))
	out, _ = alice.run(true, "auth", "can-i", "delete", "pods")
	assert.Equal(t, "no\n", out)
	out, _ = alice.run(true, "auth", "can-i", "list", "pods", "-n", "kube-system")
	assert.Equal(t, "no\n", out)

	list := alice.ok("auth", "can-i", "--list", "-n", "default")
	assert.Regexp(t, `(?m)^pods\s+\[\]\s+\[\]\s+\[get list watch\]$`, list)
	assert.Regexp(t, `(?m)^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$`, list)
	assert.Regexp(t, `(?m)^\s+\[/version\]\s+\[\]\s+\[get\]$`, list)

	who := alice.ok("auth", "whoami")
	assert.Regexp(t, `(?m)^Username\s+alice$`, who)
	assert.Regexp(t, `(?m)^UID\s+alice-uid$`, who)
	assert.Regexp(t, `(?m)^Groups\s+\[dev system:authenticated\]$`, who)

	// alice may create bindings in default, but only to what she holds.
	admin.ok("create", "role", "binder", "--verb=create", "--resource=rolebindings.rbac.authorization.k8s.io", "-n", "default")
	admin.ok("create", "rolebinding", "alice-binds", "--role=binder", "--user=alice", "-n", "default")
	assert.Equal(t, "rolebinding.rbac.authorization.k8s.io/bob-reads created\n",
		alice.ok("create", "rolebinding", "bob-reads", "--role=pod-reader", "--user=bob", "-n", "default"))
	errOut = alice.fail("create", "rolebinding", "bob-admin", "--clusterrole=cluster-admin", "--user=bob", "-n", "default")
	assert.Equal(t, `error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io "bob-admin" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:`+"\n"+
		`{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`+"\n"+`{NonResourceURLs:["*"], Verbs:["*"]}`+"\n", errOut)

	// Impersonation: the admin asks as alice, and the request is
	// authorized, reviewed and refused as hers.
	assert.Equal(t, "yes\n", admin.ok("auth", "can-i", "list", "pods", "-n", "default", "--as=alice"))
	out, _ = admin.run(true, "auth", "can-i", "list", "pods", "-n", "kube-system", "--as=alice")
	assert.Equal(t, "no\n", out)
	errOut = admin.fail("get", "pods", "-n", "kube-system", "--as=alice")
	assert.Equal(t, `Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "kube-system"`+"\n", errOut)
	who = admin.ok("auth", "whoami", "--as=bob", "--as-group=dev")
	assert.Regexp(t, `(?m)^Username\s+bob$`, who)
	assert.Regexp(t, `(?m)^Groups\s+\[dev system:authenticated\]$`, who)
	assert.NotRegexp(t, `(?m)^UID`, who, "none of the admin's identity is kept")

	// alice may not impersonate until a role gives her the verb, and then
	// only the users it names.
	errOut = alice.fail("get", "pods", "-n", "default", "--as=bob")
	assert.Equal(t, `Error from server (Forbidden): users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`+"\n", errOut)
	admin.ok("create", "clusterrole", "impersonate-bob", "--verb=impersonate", "--resource=users", "--resource-name=bob")
	admin.ok("create", "clusterrolebinding", "alice-impersonates-bob", "--clusterrole=impersonate-bob", "--user=alice")
	assert.Regexp(t, `(?m)^Username\s+bob$`, alice.ok("auth", "whoami", "--as=bob"))
	// bob holds pod-reader in default too (bob-reads, above).
	_, errOut = alice.run(false, "get", "pods", "-n", "default", "--as=bob")
	assert.Equal(t, "No resources found in default namespace.\n", errOut)
	errOut = alice.fail("get", "pods", "-n", "default", "--as=bob", "--as-group=system:masters")
	assert.Equal(t, `Error from server (Forbidden): groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope`+"\n", errOut)
	errOut = alice.fail("get", "pods", "--as=carol")
	assert.Equal(t, `Error from server (Forbidden): users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`+"\n", errOut)
}
