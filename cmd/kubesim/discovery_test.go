package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const aggregatedContentType = "Content-Type: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// writeManifest writes a manifest into a temporary file for kubectl -f.
func writeManifest(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

const unknownUser = `apiVersion: auth.magedu.com/v1beta1
kind: User
metadata:
  name: tony
spec:
  userID: 1
`

const usersCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: users.auth.magedu.com
spec:
  group: auth.magedu.com
  scope: Cluster
  names: {plural: users, singular: user, kind: User}
  versions:
  - name: v1beta1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the user wants.
            properties:
              userID: {type: integer, maximum: 65535, description: The numeric id of the user.}
`

const deploymentWithUnknownField = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  bogus: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: c
        image: nginx
`

// kubectl reads discovery in its aggregated form (two requests, no
// per-group ones), revalidates it by ETag, sees a new CRD at once, and
// uses /openapi/v2 (protobuf) where /openapi/v3 has no answer: apply of a
// kind nobody serves then gives kubectl's real error, and explain's v2
// output works for built-in kinds and CRDs alike.
func TestKubectlAggregatedDiscoveryAndOpenAPIV2(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)

	t.Run("api-resources uses aggregated discovery", func(t *testing.T) {
		out, log := k.run(false, "api-resources", "-v=8")
		assert.Regexp(t, `(?m)^deployments\s+deploy\s+apps/v1\s+true\s+Deployment$`, out)
		assert.Regexp(t, `(?m)^pods\s+po\s+v1\s+true\s+Pod$`, out)
		assert.Contains(t, log, "GET "+s.url+"/api?timeout=")
		assert.Contains(t, log, "GET "+s.url+"/apis?timeout=")
		assert.Equal(t, 2, strings.Count(log, aggregatedContentType), "both /api and /apis answered the aggregated form")
		assert.NotContains(t, log, "/apis/apps/v1?timeout=", "no per-group-version request")

		// Again with the same cache: kubectl's HTTP cache sends the ETag
		// back and the server answers 304, so both come from the cache.
		_, log = k.run(false, "api-resources", "-v=8")
		assert.Equal(t, 2, strings.Count(log, "X-From-Cache: 1"), "revalidated, not downloaded")
	})

	t.Run("apply of an unknown kind", func(t *testing.T) {
		user := writeManifest(t, "user.yaml", unknownUser)
		errOut := k.fail("apply", "-f", user)
		assert.Equal(t, `error: resource mapping not found for name: "tony" namespace: "" from "`+user+`": `+
			`no matches for kind "User" in version "auth.magedu.com/v1beta1"`+"\n"+
			"ensure CRDs are installed first\n", errOut)

		// On its way kubectl fetched /openapi/v2 as protobuf.
		_, log := k.run(true, "apply", "-f", user, "-v=8")
		assert.Contains(t, log, "GET "+s.url+"/openapi/v2?timeout=")
		assert.Contains(t, log, "Content-Type: application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
	})

	t.Run("apply --validate=true reports an unknown field", func(t *testing.T) {
		errOut := k.fail("apply", "--validate=true", "-f", writeManifest(t, "web.yaml", deploymentWithUnknownField))
		assert.Contains(t, errOut, `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.bogus"`)
	})

	t.Run("explain from openapi v2", func(t *testing.T) {
		out := k.ok("explain", "deployments.spec.replicas", "--output=plaintext-openapiv2")
		assert.Contains(t, out, "KIND:     Deployment\nVERSION:  apps/v1")
		assert.Contains(t, out, "FIELD:    replicas <integer>")
	})

	t.Run("a new CRD changes discovery and openapi v2", func(t *testing.T) {
		k.ok("apply", "-f", writeManifest(t, "crd.yaml", usersCRD))
		k.ok("wait", "--for=condition=Established", "crd/users.auth.magedu.com", "--timeout=60s")

		out, log := k.run(false, "api-resources", "-v=8")
		assert.Regexp(t, `(?m)^users\s+auth\.magedu\.com/v1beta1\s+false\s+User$`, out)
		assert.Equal(t, 1, strings.Count(log, "X-From-Cache: 1"), "/api is unchanged, /apis has a new ETag")

		out = k.ok("explain", "users.spec", "--output=plaintext-openapiv2")
		assert.Contains(t, out, "KIND:     User\nVERSION:  auth.magedu.com/v1beta1")
		assert.Contains(t, out, "What the user wants.")
		assert.Contains(t, out, "userID\t<integer>")

		out = k.ok("apply", "-f", writeManifest(t, "user.yaml", unknownUser))
		assert.Equal(t, "user.auth.magedu.com/tony created\n", out)
	})
}
