package main

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKubectlCreateProtobuf: kubectl's imperative create commands send
// their bodies as protobuf (application/vnd.kubernetes.protobuf) with no
// JSON fallback, so each works only if the server decodes protobuf; each
// is checked for its effect.
func TestKubectlCreateProtobuf(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)

	_, trace := k.run(false, "create", "namespace", "demo", "-v=7")
	assert.Contains(t, trace, "application/vnd.kubernetes.protobuf", "kubectl sent protobuf")
	assert.Equal(t, "demo", k.ok("get", "namespace", "demo", "-o", "jsonpath={.metadata.name}"))

	k.ok("create", "deployment", "nginx", "--image=nginx")
	assert.Equal(t, "nginx", k.ok("get", "deployment", "nginx", "-o", "jsonpath={.spec.template.spec.containers[0].image}"))

	k.ok("create", "configmap", "x", "--from-literal=a=b")
	assert.Equal(t, "b", k.ok("get", "configmap", "x", "-o", "jsonpath={.data.a}"))

	k.ok("create", "secret", "generic", "s", "--from-literal=k=v")
	assert.Equal(t, base64.StdEncoding.EncodeToString([]byte("v")), k.ok("get", "secret", "s", "-o", "jsonpath={.data.k}"))
}
