package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The imperative commands whose bodies kubectl v1.32 sends as protobuf
// (`kubectl create service|secret|deployment|namespace`, and the
// evictions of `kubectl drain`): they need the API server's protobuf
// decoding as much as the server-side behaviour tested here.

// selfSignedPair writes a certificate and its key for `create secret tls`.
func selfSignedPair(t *testing.T) (certFile, keyFile string, certPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "web.example.com"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return writeFile(t, "tls.crt", string(certPEM)),
		writeFile(t, "tls.key", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))), certPEM
}

func TestKubectlImperativeProtobuf(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.eventually(func(out string) bool { return countLines(out) == 2 }, "get", "nodes", "--no-headers")

	t.Run("create namespace and deployment", func(t *testing.T) {
		assert.Equal(t, "namespace/shop created\n", k.ok("create", "namespace", "shop"))
		assert.Equal(t, "Active", k.jsonpath("ns/shop", "{.status.phase}"))
		assert.Equal(t, "deployment.apps/web created\n", k.ok("create", "deployment", "web", "-n", "shop", "--image=nginx:1.25", "--replicas=3", "--port=80"))
		k.rolledOut("deployment/web", "-n", "shop")
		assert.Equal(t, 3, countLines(k.ok("get", "pods", "-n", "shop", "-l", "app=web", "--field-selector=status.phase=Running", "-o", "name")))
		assert.Equal(t, "nginx:1.25 80", k.jsonpath("deployment/web", "{.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort}", "-n", "shop"))
		assert.Contains(t, k.fail("create", "namespace", "shop"), `Error from server (AlreadyExists): namespaces "shop" already exists`)
	})

	t.Run("create service clusterip nodeport loadbalancer externalname", func(t *testing.T) {
		assert.Equal(t, "service/web created\n", k.ok("create", "service", "clusterip", "web", "-n", "shop", "--tcp=8080:80"))
		assert.Regexp(t, `^ClusterIP 10\.\d+\.\d+\.\d+ 8080 80 web$`,
			k.jsonpath("svc/web", "{.spec.type} {.spec.clusterIP} {.spec.ports[0].port} {.spec.ports[0].targetPort} {.spec.selector.app}", "-n", "shop"))
		k.eventually(func(out string) bool { return len(strings.Fields(out)) == 3 },
			"get", "endpoints", "web", "-n", "shop", "-o", `jsonpath={range .subsets[*].addresses[*]}{.ip}{" "}{end}`)
		assert.Equal(t, "service/headless created\n", k.ok("create", "service", "clusterip", "headless", "-n", "shop", "--clusterip=None"))
		assert.Equal(t, "None", k.jsonpath("svc/headless", "{.spec.clusterIP}", "-n", "shop"))

		assert.Equal(t, "service/web-np created\n", k.ok("create", "service", "nodeport", "web-np", "-n", "shop", "--tcp=80:80"))
		assert.Regexp(t, `^NodePort 3\d{4}$`, k.jsonpath("svc/web-np", "{.spec.type} {.spec.ports[0].nodePort}", "-n", "shop"))
		assert.Equal(t, "service/fixed created\n", k.ok("create", "service", "nodeport", "fixed", "-n", "shop", "--tcp=80:80", "--node-port=30100"))
		assert.Equal(t, "30100", k.jsonpath("svc/fixed", "{.spec.ports[0].nodePort}", "-n", "shop"))
		assert.Contains(t, k.fail("create", "service", "nodeport", "clash", "-n", "shop", "--tcp=80:80", "--node-port=30100"),
			`error: failed to create NodePort service: Service "clash" is invalid: spec.ports[0].nodePort: Invalid value: 30100: provided port is already allocated`)

		assert.Equal(t, "service/lb created\n", k.ok("create", "service", "loadbalancer", "lb", "-n", "shop", "--tcp=443:8443"))
		assert.Regexp(t, `(?m)^lb\s+LoadBalancer\s+10\.\S+\s+<pending>\s+443:3\d{4}/TCP\s+`, k.ok("get", "svc", "lb", "-n", "shop"))

		assert.Equal(t, "service/db created\n", k.ok("create", "service", "externalname", "db", "-n", "shop", "--external-name=db.example.com"))
		assert.Equal(t, "ExternalName db.example.com ", k.jsonpath("svc/db", "{.spec.type} {.spec.externalName} {.spec.clusterIP}", "-n", "shop"))
		assert.Regexp(t, `(?m)^db\s+ExternalName\s+<none>\s+db\.example\.com\s+<none>\s+`, k.ok("get", "svc", "db", "-n", "shop"))
	})

	t.Run("create secret generic tls docker-registry", func(t *testing.T) {
		assert.Equal(t, "secret/creds created\n", k.ok("create", "secret", "generic", "creds", "-n", "shop", "--from-literal=user=admin", "--from-literal=pass=s3cret"))
		assert.Equal(t, "Opaque "+base64.StdEncoding.EncodeToString([]byte("admin")), k.jsonpath("secret/creds", "{.type} {.data.user}", "-n", "shop"))

		certFile, keyFile, certPEM := selfSignedPair(t)
		assert.Equal(t, "secret/web-tls created\n", k.ok("create", "secret", "tls", "web-tls", "-n", "shop", "--cert="+certFile, "--key="+keyFile))
		assert.Equal(t, "kubernetes.io/tls "+base64.StdEncoding.EncodeToString(certPEM), k.jsonpath("secret/web-tls", `{.type} {.data.tls\.crt}`, "-n", "shop"))

		assert.Equal(t, "secret/registry created\n", k.ok("create", "secret", "docker-registry", "registry", "-n", "shop",
			"--docker-server=registry.example.com", "--docker-username=bot", "--docker-password=pw"))
		raw, err := base64.StdEncoding.DecodeString(k.jsonpath("secret/registry", `{.data.\.dockerconfigjson}`, "-n", "shop"))
		require.NoError(t, err)
		var cfg struct {
			Auths map[string]struct{ Username, Password string } `json:"auths"`
		}
		require.NoError(t, json.Unmarshal(raw, &cfg), string(raw))
		assert.Equal(t, "bot", cfg.Auths["registry.example.com"].Username)
		assert.Equal(t, "kubernetes.io/dockerconfigjson", k.jsonpath("secret/registry", "{.type}", "-n", "shop"))
		assert.Contains(t, k.ok("create", "configmap", "cfg", "-n", "shop", "--from-literal=a=b"), "configmap/cfg created")
	})

	t.Run("drain evicts through the eviction subresource", func(t *testing.T) {
		k.ok("run", "loner", "-n", "shop", "--image=nginx", "--overrides", `{"spec":{"nodeName":"node-1"}}`)
		k.ok("wait", "--for=condition=Ready", "pod/loner", "-n", "shop", "--timeout=60s")
		// An unmanaged pod stops the drain unless forced, in kubectl's words;
		// the node is cordoned all the same.
		errOut := k.fail("drain", "node-1", "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=60s")
		assert.Contains(t, errOut, "cannot delete Pods that declare no controller (use --force to override): shop/loner")
		assert.Equal(t, "true", k.jsonpath("node/node-1", "{.spec.unschedulable}"))

		out := k.ok("drain", "node-1", "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=60s")
		assert.Contains(t, out, "node/node-1 drained")
		assert.Contains(t, out, "evicting pod shop/loner")
		assert.Regexp(t, `pod/loner evicted`, out)
		k.fail("get", "pod", "loner", "-n", "shop")
		// The Deployment's pods come back, all on node-2.
		k.rolledOut("deployment/web", "-n", "shop")
		k.eventually(func(out string) bool { return strings.TrimSpace(out) == "node-2 node-2 node-2" },
			"get", "pods", "-n", "shop", "-l", "app=web", "--field-selector=status.phase=Running", "-o", `jsonpath={range .items[*]}{.spec.nodeName}{" "}{end}`)
		// A server dry run evicts nothing and cordons nothing.
		before := k.ok("get", "pods", "-n", "shop", "-o", "name")
		out = k.ok("drain", "node-2", "--ignore-daemonsets", "--delete-emptydir-data", "--dry-run=server", "--timeout=60s")
		assert.Contains(t, out, "node/node-2 cordoned (server dry run)")
		assert.Contains(t, out, "node/node-2 drained (server dry run)")
		assert.Equal(t, "", k.jsonpath("node/node-2", "{.spec.unschedulable}"))
		assert.Equal(t, before, k.ok("get", "pods", "-n", "shop", "-o", "name"))
		assert.Equal(t, "node/node-1 uncordoned\n", k.ok("uncordon", "node-1"))
	})
}
