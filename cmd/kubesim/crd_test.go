package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// examplesDir holds the seed's CRD manifests.
var examplesDir = filepath.Join("..", "..", "examples", "crd")

// The seed's CustomResourceDefinition chapter through the real kubectl:
// the v1beta1 manifest as written, the valid admin, the invalid tony, and
// the deletion of the CRD taking its users with it.
func TestKubectlCustomResourceDefinition(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)

	out, errOut := k.run(false, "apply", "-f", filepath.Join(examplesDir, "users-crd-with-validation.yaml"))
	assert.Contains(t, out, "customresourcedefinition.apiextensions.k8s.io/users.auth.ilinux.io created")
	assert.Contains(t, errOut, `Warning: apiextensions.k8s.io/v1beta1 CustomResourceDefinition is deprecated in v1.16+, unavailable in v1.22+; use apiextensions.k8s.io/v1 CustomResourceDefinition`)

	out = k.ok("get", "crd")
	assert.Regexp(t, `(?m)^NAME\s+CREATED AT\nusers\.auth\.ilinux\.io\s+\d{4}-\d\d-\d\dT`, out)

	out = k.ok("api-resources", "--api-group=auth.ilinux.io")
	assert.Regexp(t, `(?m)^users\s+u\s+auth\.ilinux\.io/v1beta1\s+true\s+User$`, out)

	out = k.ok("get", "crd", "users.auth.ilinux.io", "-o", "jsonpath={.status.conditions[?(@.type==\"Established\")].status} {.status.storedVersions}")
	assert.Equal(t, `True ["v1beta1"]`, out)

	out = k.ok("apply", "-f", filepath.Join(examplesDir, "admin.yaml"))
	assert.Equal(t, "user.auth.ilinux.io/admin created\n", out)

	out = k.ok("get", "u")
	assert.Regexp(t, `(?m)^NAME\s+AGE\nadmin\s+\d+s$`, out)

	out = k.ok("get", "users", "-o", "yaml")
	for _, want := range []string{"apiVersion: auth.ilinux.io/v1beta1", "kind: User", "name: admin",
		"userID: 1", "email: k8s@magedu.com", "- superusers", "- administrators", "password: ikubernetes", "kind: List"} {
		assert.Contains(t, out, want)
	}

	errOut = k.fail("apply", "-f", filepath.Join(examplesDir, "tony.yaml"))
	assert.Equal(t, `The User "tony" is invalid: `+"\n"+
		`* spec.userID: Invalid value: 999999: spec.userID in body should be less than or equal to 65535`+"\n"+
		`* spec.groups: Required value`+"\n", errOut)
	k.fail("get", "user", "tony")

	out = k.ok("explain", "users.spec.userID")
	assert.Contains(t, out, "KIND:       User")
	assert.Contains(t, out, "FIELD: userID <integer>")
	// A custom resource's metadata is the whole ObjectMeta, described
	// (the CustomResourcePublishOpenAPI conformance spec).
	assert.Regexp(t, `(?s)DESCRIPTION:.*Standard object's metadata.*FIELDS:.*creationTimestamp.*<string>.*CreationTimestamp is a timestamp`,
		k.ok("explain", "users.metadata"))

	// Deleting the CRD deletes the users first (customresourcecleanup),
	// then the resource leaves discovery.
	out = k.ok("delete", "crd", "users.auth.ilinux.io", "--timeout=30s")
	assert.Contains(t, out, `customresourcedefinition.apiextensions.k8s.io "users.auth.ilinux.io" deleted`)
	require.Eventually(t, func() bool {
		return !strings.Contains(k.ok("get", "crd"), "users.auth.ilinux.io")
	}, 20*time.Second, 100*time.Millisecond)
	// A kubectl with a fresh discovery cache no longer knows the type.
	fresh := newKubectl(t, s)
	errOut = fresh.fail("get", "u")
	assert.Contains(t, errOut, `the server doesn't have a resource type "u"`)

	// The v1 spelling of the same CRD: printer columns, pruning.
	k.ok("apply", "-f", filepath.Join(examplesDir, "users-crd-v1.yaml"))
	// created, not unchanged: the old admin went with the old CRD.
	assert.Equal(t, "user.auth.ilinux.io/admin created\n", k.ok("apply", "-f", filepath.Join(examplesDir, "admin.yaml")))
	out = k.ok("get", "u")
	assert.Regexp(t, `(?m)^NAME\s+USERID\s+EMAIL\s+AGE\nadmin\s+1\s+k8s@magedu\.com\s+\d+s$`, out)
	errOut = k.fail("apply", "-f", filepath.Join(examplesDir, "tony.yaml"))
	assert.True(t, strings.HasPrefix(errOut, `The User "tony" is invalid: `), errOut)
}
