package helm

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubesim/kubesim/e2e/framework"
)

// helmBin is the helm command built once for the package's tests.
var helmBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kubesim-helm-")
	if err != nil {
		panic(err)
	}
	helmBin = filepath.Join(dir, "helm")
	// The version is the one e2e/go.mod's tool directive names.
	build := exec.Command("go", "build", "-o", helmBin, "helm.sh/helm/v4/cmd/helm")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		panic("building helm: " + err.Error())
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// cluster is a kubesim serve with two nodes and a helm pointed at it.
type cluster struct {
	k   *framework.Kubesim
	env []string
}

func start(t *testing.T) *cluster {
	k := framework.Start(t, framework.Options{Nodes: 2})
	home := t.TempDir()
	env := append(os.Environ(),
		"KUBECONFIG="+k.Server.Kubeconfig,
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
	)
	return &cluster{k: k, env: env}
}

// helm runs the helm command and fails the test, with its output, if it
// fails.
func (c *cluster) helm(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(helmBin, args...)
	cmd.Env, cmd.Dir = c.env, dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "helm %s:\n%s", strings.Join(args, " "), out)
	return string(out)
}

// requireAvailable checks that every Deployment in the namespace has the
// Available condition and all its replicas ready.
func (c *cluster) requireAvailable(t *testing.T, namespace string, want int) {
	t.Helper()
	list, err := c.k.Clientset(t).AppsV1().Deployments(namespace).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, want, "Deployments in %s", namespace)
	for _, d := range list.Items {
		available := false
		for _, cond := range d.Status.Conditions {
			if cond.Type == appsv1.DeploymentAvailable && cond.Status == "True" {
				available = true
			}
		}
		require.True(t, available, "Deployment %s/%s is not Available: %+v", namespace, d.Name, d.Status)
		require.Equal(t, *d.Spec.Replicas, d.Status.ReadyReplicas, "Deployment %s/%s", namespace, d.Name)
	}
}

// TestHelmCreateChart: the chart `helm create` writes, installed, tested
// with `helm test` (its test pod wgets the Service), upgraded, rolled back
// and uninstalled.
func TestHelmCreateChart(t *testing.T) {
	c := start(t)
	dir := t.TempDir()
	c.helm(t, dir, "create", "hello")
	c.helm(t, dir, "install", "hello", "./hello", "--namespace", "web", "--create-namespace", "--wait", "--timeout", "5m")
	c.requireAvailable(t, "web", 1)

	out := c.helm(t, dir, "test", "hello", "--namespace", "web", "--timeout", "5m")
	require.Contains(t, out, "Phase:          Succeeded", "the chart's test pod reaches the Service")

	c.helm(t, dir, "upgrade", "hello", "./hello", "--namespace", "web", "--set", "replicaCount=3", "--wait", "--timeout", "5m")
	c.requireAvailable(t, "web", 1)
	d, err := c.k.Clientset(t).AppsV1().Deployments("web").Get(context.Background(), "hello", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, int32(3), d.Status.ReadyReplicas)

	c.helm(t, dir, "rollback", "hello", "1", "--namespace", "web", "--wait", "--timeout", "5m")
	history := c.helm(t, dir, "history", "hello", "--namespace", "web", "-o", "json")
	var revisions []struct {
		Revision int    `json:"revision"`
		Status   string `json:"status"`
	}
	require.NoError(t, json.Unmarshal([]byte(history), &revisions), history)
	require.Len(t, revisions, 3)
	require.Equal(t, "deployed", revisions[2].Status)

	c.helm(t, dir, "uninstall", "hello", "--namespace", "web", "--wait", "--timeout", "5m")
	list, err := c.k.Clientset(t).AppsV1().Deployments("web").List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	require.Empty(t, list.Items)
}

// moduleDir downloads a Go module from the proxy and returns where it is.
func moduleDir(t *testing.T, module string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	require.NoError(t, err, "go mod download %s", module)
	var m struct{ Dir, Error string }
	require.NoError(t, json.Unmarshal(out, &m))
	require.Empty(t, m.Error)
	return m.Dir
}

// realCharts are charts that projects ship in their Go modules, at the
// versions the Go module proxy serves. prepare, when set, makes the
// directory a chart (cert-manager's repository keeps a template of
// Chart.yaml that its release makes the real one from).
var realCharts = []struct {
	name, module, path string
	namespace          string
	deployments        int
	args               []string
	prepare            func(t *testing.T, dir string)
}{
	{name: "metrics-server", module: "sigs.k8s.io/metrics-server@v0.8.0", path: "charts/metrics-server", namespace: "kube-system", deployments: 1},
	{name: "external-dns", module: "sigs.k8s.io/external-dns@v0.19.0", path: "charts/external-dns", namespace: "external-dns", deployments: 1},
	{name: "external-secrets", module: "github.com/external-secrets/external-secrets@v0.16.2", path: "deploy/charts/external-secrets", namespace: "external-secrets", deployments: 3,
		prepare: dropRemoteDependencies},
	{name: "kyverno", module: "github.com/kyverno/kyverno@v1.15.2", path: "charts/kyverno", namespace: "kyverno", deployments: 4,
		prepare: dropRemoteDependencies},
	// The chart's post-install hook Job runs startupapicheck's `check
	// api`, a program of its image kubesim knows (docs/containers.md): it
	// says the API is ready and ends with 0 after two seconds, as it does
	// once the webhook answers. The release tool writes the chart's
	// version and appVersion, which its images' tags are: v1.19.1, as
	// published (v0.0.0 is not pulled).
	{name: "cert-manager", module: "github.com/cert-manager/cert-manager@v1.19.1", path: "deploy/charts/cert-manager", namespace: "cert-manager", deployments: 3,
		args: []string{"--set", "crds.enabled=true"},
		prepare: func(t *testing.T, dir string) {
			tmpl, err := os.ReadFile(filepath.Join(dir, "Chart.template.yaml"))
			require.NoError(t, err)
			chart := strings.NewReplacer("{{IMAGE_TAG}}", "v1.19.1", "{{VERSION}}", "v1.19.1", "{{APP_VERSION}}", "v1.19.1",
				"version: v0.0.0", "version: v1.19.1", "appVersion: v0.0.0", "appVersion: v1.19.1").Replace(string(tmpl))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte(chart), 0o644))
		}},
}

// dropRemoteDependencies removes from Chart.yaml the dependencies that
// are not in the chart's charts/ directory: subcharts fetched from a chart
// repository by `helm dependency build`, which needs the internet. Each
// such dependency of the charts above is off by default (its condition's
// value is false), so the objects rendered are the same.
func dropRemoteDependencies(t *testing.T, dir string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	require.NoError(t, err)
	var chart map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &chart))
	deps, _ := chart["dependencies"].([]any)
	var kept []any
	for _, d := range deps {
		name, _ := d.(map[string]any)["name"].(string)
		if _, err := os.Stat(filepath.Join(dir, "charts", name)); err == nil {
			kept = append(kept, d)
		}
	}
	chart["dependencies"] = kept
	out, err := yaml.Marshal(chart)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Chart.yaml"), out, 0o644))
}

// TestRealCharts installs each chart unchanged and waits, as helm does,
// for its Deployments to be Available and its hooks to complete.
func TestRealCharts(t *testing.T) {
	for _, ch := range realCharts {
		t.Run(ch.name, func(t *testing.T) {
			c := start(t)
			src := filepath.Join(moduleDir(t, ch.module), ch.path)
			dir := filepath.Join(t.TempDir(), ch.name)
			require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
			// The module cache is read-only; the copy is the test's own.
			require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				return os.Chmod(p, 0o755)
			}))
			if ch.prepare != nil {
				ch.prepare(t, dir)
			}
			args := append([]string{"install", ch.name, dir, "--namespace", ch.namespace, "--create-namespace", "--wait", "--timeout", "5m"}, ch.args...)
			start := time.Now()
			c.helm(t, "", args...)
			t.Logf("%s installed and ready in %s", ch.name, time.Since(start).Round(time.Millisecond))
			c.requireAvailable(t, ch.namespace, ch.deployments)
		})
	}
}
