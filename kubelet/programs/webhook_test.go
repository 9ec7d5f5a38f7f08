package programs

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"io/fs"
	"math/big"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// webhookServiceName is the name the AdmissionWebhook specs' certificate
// is for (e2e-test-webhook.<namespace>.svc).
const webhookServiceName = "e2e-test-webhook.webhook-1.svc"

// selfSigned is a serving certificate for webhookServiceName, as PEM.
func selfSigned(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: webhookServiceName},
		DNSNames: []string{webhookServiceName}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true,
		BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// webhookCall posts body to path of a webhook server over TLS, as the API
// server's webhook client does, and returns the status and the body.
func webhookCall(t *testing.T, srv Server, certPEM []byte, method, path, body string) (int, string) {
	t.Helper()
	client, server := podnet.Pipe("10.96.0.1:50000", "10.244.0.5:8444")
	go srv.Serve(&Conn{Conn: server, Now: time.Now})
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(certPEM))
	tc := tls.Client(client, &tls.Config{RootCAs: pool, ServerName: webhookServiceName})
	defer tc.Close()
	req, err := http.NewRequest(method, "https://"+webhookServiceName+":8443"+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	require.NoError(t, req.Write(tc))
	resp, err := http.ReadResponse(bufio.NewReader(tc), req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(data)
}

// TestAgnhostWebhook asks agnhost webhook's paths what the
// AdmissionWebhook conformance specs (kubernetes/test/e2e/apimachinery/
// webhook.go) register them for, and checks the answers those specs
// expect of the API server.
func TestAgnhostWebhook(t *testing.T) {
	certPEM, keyPEM := selfSigned(t)
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	srv := webhookServer{cert: cert, sidecarImage: "registry.k8s.io/e2e-test-images/agnhost:2.53"}
	review := func(resource, operation, object string) string {
		group, version, res := "", "v1", resource
		if strings.Contains(resource, "/") {
			parts := strings.Split(resource, "/")
			group, version, res = parts[0], parts[1], parts[2]
		}
		return `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","kind":{"group":"","version":"v1","kind":"X"},` +
			`"resource":{"group":"` + group + `","version":"` + version + `","resource":"` + res + `"},"operation":"` + operation + `","object":` + object + `}}`
	}
	cases := []struct {
		name, path, body string
		allowed          bool
		// message, reason and patch are the response's.
		message, reason, patch string
	}{
		// "should be able to deny pod and configmap creation":
		// "the pod contains unwanted label", "the configmap contains
		// unwanted key and value".
		{name: "a pod with the unwanted label", path: "/pods",
			body:    review("pods", "CREATE", `{"metadata":{"name":"disallowed-pod","labels":{"webhook-e2e-test":"webhook-disallow"}},"spec":{"containers":[{"name":"c"}]}}`),
			message: "the pod contains unwanted label;"},
		{name: "a pod it allows", path: "/pods", allowed: true,
			body: review("pods", "CREATE", `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}}`)},
		{name: "a configmap with the unwanted data", path: "/configmaps",
			body:   review("configmaps", "CREATE", `{"metadata":{"name":"cm"},"data":{"webhook-e2e-test":"webhook-disallow"}}`),
			reason: "the configmap contains unwanted key and value"},
		// "should unconditionally reject operations on fail closed
		// webhook" and the always-deny hooks: "this webhook denies all
		// requests".
		{name: "always deny", path: "/always-deny", body: review("configmaps", "CREATE", `{}`), message: "this webhook denies all requests"},
		// "should mutate configmap": mutation-stage-1 added.
		{name: "mutating configmaps", path: "/mutating-configmaps", allowed: true,
			body:  review("configmaps", "CREATE", `{"metadata":{"name":"cm"},"data":{"mutation-start":"yes"}}`),
			patch: mutationStage1Patch},
		// "should mutate pod and apply defaults after mutation": the
		// init container webhook-added-init-container.
		{name: "mutating pods", path: "/mutating-pods", allowed: true,
			body:  review("pods", "CREATE", `{"metadata":{"name":"webhook-to-be-mutated"},"spec":{"containers":[{"name":"c"}]}}`),
			patch: podsInitContainerPatch},
		// The add-label hook of "patching/updating a mutating webhook
		// should work".
		{name: "add a label", path: "/add-label", allowed: true, body: review("configmaps", "CREATE", `{"metadata":{"name":"cm"}}`),
			patch: addFirstLabelPatch},
		// "should deny crd creation": "the crd contains unwanted label".
		{name: "a crd with the unwanted label", path: "/crd",
			body:    review("apiextensions.k8s.io/v1/customresourcedefinitions", "CREATE", `{"metadata":{"name":"x","labels":{"webhook-e2e-test":"webhook-disallow"}}}`),
			message: "the crd contains unwanted label"},
		// "should be able to deny custom resource creation, update and
		// deletion".
		{name: "a custom resource with the unwanted data", path: "/custom-resource",
			body:   review("stable.example.com/v1/e2e-test-webhook-crds", "CREATE", `{"metadata":{"name":"cr"},"data":{"webhook-e2e-test":"webhook-disallow"}}`),
			reason: "the custom resource contains unwanted data"},
		// "should be able to deny attaching pod".
		{name: "attaching to the pod", path: "/pods/attach",
			body: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","name":"to-be-attached-pod","subResource":"attach",` +
				`"resource":{"group":"","version":"v1","resource":"pods"},"operation":"CONNECT","object":{"kind":"PodAttachOptions","stdin":true,"container":"container1"}}}`,
			message: "attaching to pod 'to-be-attached-pod' is not allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := webhookCall(t, srv, certPEM, http.MethodPost, c.path, c.body)
			require.Equal(t, http.StatusOK, code, body)
			var out admissionv1.AdmissionReview
			require.NoError(t, json.Unmarshal([]byte(body), &out))
			assert.Equal(t, "admission.k8s.io/v1", out.APIVersion)
			require.NotNil(t, out.Response)
			assert.Equal(t, "u-1", string(out.Response.UID))
			assert.Equal(t, c.allowed, out.Response.Allowed)
			if c.message != "" || c.reason != "" {
				require.NotNil(t, out.Response.Result)
				assert.Equal(t, c.message, out.Response.Result.Message)
				assert.Equal(t, c.reason, string(out.Response.Result.Reason))
			}
			assert.Equal(t, c.patch, string(out.Response.Patch))
		})
	}
	t.Run("readyz", func(t *testing.T) {
		code, body := webhookCall(t, srv, certPEM, http.MethodGet, "/readyz", "")
		assert.Equal(t, http.StatusOK, code)
		assert.Equal(t, "ok", body)
	})
}

// memFS is a container's filesystem holding a few files.
type memFS map[string][]byte

func (m memFS) ReadFile(name string) ([]byte, error) {
	if d, ok := m[name]; ok {
		return d, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
}
func (m memFS) WriteFile(string, []byte, fs.FileMode) error { return syscall.EROFS }
func (m memFS) Stat(string) (shell.FileStat, error)         { return shell.FileStat{}, syscall.ENOENT }
func (m memFS) Statfs(string) (int64, error)                { return 0, syscall.ENOENT }

// recordHost records the ports a program listens on.
type recordHost map[int]Server

func (h recordHost) Listen(port int, s Server) { h[port] = s }

// agnhost webhook reads its certificate from the mounted Secret when it
// starts, and listens on --port; without it, it fails as klog.Fatal does.
func TestAgnhostWebhookStarts(t *testing.T) {
	certPEM, keyPEM := selfSigned(t)
	args := []string{"/agnhost", "webhook", "--tls-cert-file=/webhook.local.config/certificates/tls.crt",
		"--tls-private-key-file=/webhook.local.config/certificates/tls.key", "-v=4", "--port=8444"}
	run := func(files memFS) (int, recordHost, string) {
		// Killed at once: what it did before it serves is done.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		host := recordHost{}
		var stderr strings.Builder
		code := agnhost(ctx, Run{Process: shell.Process{Args: args, Stdout: io.Discard, Stderr: &stderr, FS: files, Clock: clock.Real{}}, Host: host})
		return code, host, stderr.String()
	}
	code, host, _ := run(memFS{"/webhook.local.config/certificates/tls.crt": certPEM, "/webhook.local.config/certificates/tls.key": keyPEM})
	assert.Equal(t, 137, code, "killed")
	assert.Contains(t, host, 8444)
	code, host, stderr := run(memFS{})
	assert.Equal(t, 255, code)
	assert.Empty(t, host)
	assert.Contains(t, stderr, "open /webhook.local.config/certificates/tls.crt: no such file or directory")
}

// TestAgnhostCRDConversionWebhook converts the CustomResourceConversionWebhook
// specs' objects (kubernetes/test/e2e/apimachinery/crd_conversion_webhook.go):
// a v1 object's hostPort "localhost:8080" is v2's host and port, and back
// ("gomega.Expect(hostPort).To(gomega.BeEquivalentTo(\"localhost:8080\"))").
func TestAgnhostCRDConversionWebhook(t *testing.T) {
	certPEM, keyPEM := selfSigned(t)
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	srv := conversionServer{cert: cert}
	review := func(desired, object string) string {
		return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u-2","desiredAPIVersion":"` + desired +
			`","objects":[` + object + `]}}`
	}
	cases := []struct {
		name, body string
		status     string
		objects    []string
		message    string
	}{
		{name: "v1 to v2", status: "Success",
			body:    review("stable.example.com/v2", `{"apiVersion":"stable.example.com/v1","kind":"E2e-test-crd-webhook-0000-crd","metadata":{"name":"cr-instance-1"},"hostPort":"localhost:8080"}`),
			objects: []string{`{"apiVersion":"stable.example.com/v2","host":"localhost","kind":"E2e-test-crd-webhook-0000-crd","metadata":{"name":"cr-instance-1"},"port":"8080"}`}},
		{name: "v2 to v1", status: "Success",
			body:    review("stable.example.com/v1", `{"apiVersion":"stable.example.com/v2","kind":"K","metadata":{"name":"a"},"host":"localhost","port":"8080"}`),
			objects: []string{`{"apiVersion":"stable.example.com/v1","hostPort":"localhost:8080","kind":"K","metadata":{"name":"a"}}`}},
		{name: "a hostPort without its port", status: "Failure", message: "invalid hostPort value `localhost`",
			body: review("stable.example.com/v2", `{"apiVersion":"stable.example.com/v1","kind":"K","metadata":{"name":"a"},"hostPort":"localhost"}`)},
		{name: "to its own version", status: "Failure", message: "conversion from a version to itself should not call the webhook: stable.example.com/v1",
			body: review("stable.example.com/v1", `{"apiVersion":"stable.example.com/v1","kind":"K","metadata":{"name":"a"}}`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := webhookCall(t, srv, certPEM, http.MethodPost, "/crdconvert", c.body)
			require.Equal(t, http.StatusOK, code, body)
			var out apiextensionsv1.ConversionReview
			require.NoError(t, json.Unmarshal([]byte(body), &out))
			require.NotNil(t, out.Response)
			assert.Equal(t, "u-2", string(out.Response.UID))
			assert.Equal(t, c.status, out.Response.Result.Status)
			assert.Equal(t, c.message, out.Response.Result.Message)
			var objects []string
			for _, o := range out.Response.ConvertedObjects {
				objects = append(objects, string(o.Raw))
			}
			assert.Equal(t, c.objects, objects)
		})
	}
	code, body := webhookCall(t, srv, certPEM, http.MethodGet, "/readyz", "")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ok", body)
}

// agnhost test-webserver, the EmptyDir wrapper spec's container
// (kubernetes/test/e2e/storage/empty_dir_wrapper.go), serves the
// container's files by path.
func TestAgnhostTestWebserver(t *testing.T) {
	c, _ := serveFiles(t, testWebserver{}, fakeFiles{files: map[string]string{"/etc/secret-volume/data-1": "value-1"}})
	br := bufio.NewReader(c)
	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{"/etc/secret-volume/data-1", http.StatusOK, "value-1"},
		{"/etc/secret-volume/nope", http.StatusNotFound, "404 page not found\n"},
	} {
		_, err := io.WriteString(c, "GET "+tc.path+" HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		resp, err := http.ReadResponse(br, nil)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		assert.Equal(t, tc.code, resp.StatusCode, tc.path)
		assert.Equal(t, tc.body, string(body), tc.path)
	}
}
