package openapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/discovery"
	"github.com/kubesim/kubesim/apiserver/openapi"
	"github.com/kubesim/kubesim/apiserver/registry"
)

const kubectlPath = "/usr/bin/kubectl"

const testToken = "kubesim-test-token"

// fakeResources are pods (core v1) and widgets (a custom group), built by
// hand as the type registry would.
func fakeResources() []*registry.Resource {
	str := func(desc string) api.JSONSchemaProps { return api.JSONSchemaProps{Type: "string", Description: desc} }
	pods := &registry.Resource{
		Version: "v1", Name: "pods", SingularName: "pod", Kind: "Pod", ListKind: "PodList",
		ShortNames: []string{"po"}, Categories: []string{"all"}, Namespaced: true,
		StatusSubresource: true, StrategicMergePatch: true,
		Schema: &api.JSONSchemaProps{
			Type:        "object",
			Description: "Pod is a collection of containers that can run on a host.",
			Properties: map[string]api.JSONSchemaProps{
				"spec": {
					Type:        "object",
					Description: "Specification of the desired behavior of the pod.",
					Required:    []string{"containers"},
					Properties: map[string]api.JSONSchemaProps{
						"containers": {
							Type:        "array",
							Description: "List of containers belonging to the pod.",
							Items: &api.JSONSchemaPropsOrArray{Schema: &api.JSONSchemaProps{
								Type:     "object",
								Required: []string{"name"},
								Properties: map[string]api.JSONSchemaProps{
									"name":  str("Name of the container specified as a DNS_LABEL."),
									"image": str("Container image name."),
								},
							}},
						},
						"nodeName": str("NodeName indicates in which node this pod is scheduled."),
					},
				},
			},
		},
		CreateSubresources: map[string]registry.CreateSubresource{
			"binding": {Resource: &registry.Resource{Version: "v1", Name: "bindings", Kind: "Binding"}},
		},
	}
	widgets := &registry.Resource{
		Group: "lab.example.com", Version: "v1", Name: "widgets", SingularName: "widget",
		Kind: "Widget", ListKind: "WidgetList", Namespaced: true, ShortNames: []string{"wd"},
		Schema: &api.JSONSchemaProps{
			Type: "object",
			Properties: map[string]api.JSONSchemaProps{
				"spec": {
					Type:        "object",
					Description: "WidgetSpec is what the user wants of a widget.",
					Properties: map[string]api.JSONSchemaProps{
						"size":  {Type: "integer", Description: "How many sprockets the widget has."},
						"color": str("Paint colour of the widget."),
					},
				},
			},
		},
	}
	return []*registry.Resource{pods, widgets}
}

// startServer serves /version, discovery and OpenAPI over TLS behind a
// bearer token, and records the paths kubectl asked for.
func startServer(t *testing.T, resources []*registry.Resource) (*httptest.Server, func() []string) {
	t.Helper()
	source := func() []*registry.Resource { return resources }
	disc := discovery.NewHandler(source)
	oapi := openapi.NewHandler(source)
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+testToken {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`)
			return
		}
		switch p := r.URL.Path; {
		case p == "/version":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"major":"1","minor":"32","gitVersion":"v1.32.0"}`)
		case strings.HasPrefix(p, "/openapi/"):
			oapi.ServeHTTP(w, r)
		case r.Method == http.MethodPost && (strings.HasSuffix(p, "/pods") || strings.HasSuffix(p, "/widgets")):
			// A create: echo the object, so that kubectl prints "created".
			mu.Lock()
			paths = append(paths, "QUERY "+r.URL.RawQuery)
			mu.Unlock()
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(body)
		case r.Method == http.MethodGet && strings.Contains(p, "/namespaces/default/"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"not found","reason":"NotFound","code":404}`)
		default:
			disc.ServeHTTP(w, r)
		}
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), paths...)
	}
}

func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kubesim
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: %s
contexts:
- name: kubesim
  context:
    cluster: kubesim
    user: admin
    namespace: default
current-context: kubesim
`, server, testToken)
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path
}

func runKubectl(t *testing.T, kubeconfig string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	// A fresh discovery cache per run, and no user ~/.kube.
	cmd.Env = append(os.Environ(), "KUBECACHEDIR="+t.TempDir(), "HOME="+t.TempDir(), "KUBECONFIG=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// TestRealKubectl drives the real kubectl against the discovery and
// OpenAPI handlers: the RESTMapper (api-resources, api-versions) and the
// schemas (explain) must be what kubectl understands.
func TestRealKubectl(t *testing.T) {
	_, err := os.Stat(kubectlPath)
	require.NoError(t, err, "this test needs the real kubectl at %s", kubectlPath)
	srv, paths := startServer(t, fakeResources())
	kubeconfig := writeKubeconfig(t, srv.URL)

	t.Run("api-resources", func(t *testing.T) {
		out, errOut, err := runKubectl(t, kubeconfig, "api-resources")
		require.NoError(t, err, "stdout: %s\nstderr: %s", out, errOut)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.Len(t, lines, 3, out)
		assert.Equal(t, []string{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"}, strings.Fields(lines[0]))
		assert.Contains(t, lines, findLine(lines, "pods"))
		assert.Equal(t, []string{"pods", "po", "v1", "true", "Pod"}, strings.Fields(findLine(lines, "pods")))
		assert.Equal(t, []string{"widgets", "wd", "lab.example.com/v1", "true", "Widget"}, strings.Fields(findLine(lines, "widgets")))
		assert.NotContains(t, out, "pods/status", "subresources are not listed as resources")
	})

	t.Run("api-resources by category", func(t *testing.T) {
		out, errOut, err := runKubectl(t, kubeconfig, "api-resources", "--categories=all", "-o", "name")
		require.NoError(t, err, "stdout: %s\nstderr: %s", out, errOut)
		assert.Equal(t, "pods\n", out)
	})

	t.Run("api-versions", func(t *testing.T) {
		out, errOut, err := runKubectl(t, kubeconfig, "api-versions")
		require.NoError(t, err, "stdout: %s\nstderr: %s", out, errOut)
		assert.Equal(t, "lab.example.com/v1\nv1\n", out)
	})

	t.Run("explain pods.spec", func(t *testing.T) {
		out, errOut, err := runKubectl(t, kubeconfig, "explain", "pods.spec")
		require.NoError(t, err, "stdout: %s\nstderr: %s", out, errOut)
		assert.Contains(t, out, "KIND:       Pod")
		assert.Contains(t, out, "VERSION:    v1")
		assert.Contains(t, out, "FIELD: spec <Object>")
		assert.Contains(t, out, "Specification of the desired behavior of the pod.")
		assert.Regexp(t, `containers\s+<\[\]Object> -required-`, out)
		assert.Contains(t, out, "List of containers belonging to the pod.")
	})

	t.Run("explain pods.spec.containers", func(t *testing.T) {
		out, errOut, err := runKubectl(t, kubeconfig, "explain", "po.spec.containers")
		require.NoError(t, err, "stdout: %s\nstderr: %s", out, errOut)
		assert.Regexp(t, `image\s+<string>`, out)
		assert.Contains(t, out, "Container image name.")
	})

	t.Run("explain widgets.spec", func(t *testing.T) {
		out, errOut, err := runKubectl(t, kubeconfig, "explain", "widgets.spec")
		require.NoError(t, err, "stdout: %s\nstderr: %s", out, errOut)
		assert.Contains(t, out, "GROUP:      lab.example.com")
		assert.Contains(t, out, "KIND:       Widget")
		assert.Contains(t, out, "WidgetSpec is what the user wants of a widget.")
		assert.Regexp(t, `size\s+<integer>`, out)
		assert.Contains(t, out, "How many sprockets the widget has.")
	})

	t.Run("explain widgets lists the type fields the CRD builder adds", func(t *testing.T) {
		out, errOut, err := runKubectl(t, kubeconfig, "explain", "widgets")
		require.NoError(t, err, "stdout: %s\nstderr: %s", out, errOut)
		assert.Regexp(t, `apiVersion\s+<string>`, out)
		assert.Regexp(t, `metadata\s+<Object>`, out)
		assert.Regexp(t, `spec\s+<Object>`, out)
	})

	t.Run("explain an unknown field", func(t *testing.T) {
		out, errOut, err := runKubectl(t, kubeconfig, "explain", "widgets.spec.nope")
		require.Error(t, err, "stdout: %s", out)
		assert.Contains(t, errOut, `field "nope" does not exist`)
	})

	// The PATCH operations' markers make kubectl leave field validation to
	// the server: it sends fieldValidation=Strict, and a manifest with an
	// unknown field is not refused on the client.
	for _, tc := range []struct{ name, verb, manifest, want string }{
		{"create widget", "create", "apiVersion: lab.example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3, bogus: true}\n", "widget.lab.example.com/w1 created"},
		{"apply widget", "apply", "apiVersion: lab.example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {size: 3}\n", "widget.lab.example.com/w2 created"},
		{"create pod", "create", "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec: {containers: [{name: c, image: nginx, bogus: 1}]}\n", "pod/p1 created"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "obj.yaml")
			require.NoError(t, os.WriteFile(file, []byte(tc.manifest), 0o600))
			before := len(paths())
			out, errOut, err := runKubectl(t, kubeconfig, tc.verb, "-f", file)
			require.NoError(t, err, "stdout: %s\nstderr: %s", out, errOut)
			assert.Equal(t, tc.want+"\n", out)
			var queries []string
			for _, p := range paths()[before:] {
				if q, ok := strings.CutPrefix(p, "QUERY "); ok {
					queries = append(queries, q)
				}
			}
			require.Len(t, queries, 1)
			assert.Contains(t, queries[0], "fieldValidation=Strict")
		})
	}

	assert.Contains(t, paths(), "GET /openapi/v3", "explain read the v3 index")
	assert.Contains(t, paths(), "GET /openapi/v3/apis/lab.example.com/v1")
}

func findLine(lines []string, name string) string {
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && f[0] == name {
			return l
		}
	}
	return ""
}
