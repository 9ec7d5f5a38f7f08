package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// server is a `kubesim serve` started in this process on a free port.
type server struct {
	dataDir    string
	kubeconfig string
	url        string
	stop       func()
	done       chan int
	// exitCode is what run returned, once stopped.
	exitCode int
}

// startServer runs `kubesim serve` (the real command, in process) on a
// free port with dataDir, and waits until it prints its address.
func startServer(t *testing.T, dataDir string, extra ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &server{dataDir: dataDir, kubeconfig: filepath.Join(dataDir, "kubeconfig"), done: make(chan int, 1)}
	args := append([]string{"serve", "--data-dir", dataDir, "--addr", "127.0.0.1:0", "--kubeconfig", s.kubeconfig}, extra...)
	go func() {
		code := run(ctx, args, pw, io.Discard)
		pw.Close()
		s.done <- code
	}()
	urlRe := regexp.MustCompile(`listening on (https://\S+)`)
	sc := bufio.NewScanner(pr)
	found := make(chan string, 1)
	go func() {
		for sc.Scan() {
			if m := urlRe.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case s.url = <-found:
	case code := <-s.done:
		t.Fatalf("kubesim serve exited with %d before listening", code)
	case <-time.After(30 * time.Second):
		t.Fatal("kubesim serve did not start")
	}
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case s.exitCode = <-s.done:
			case <-time.After(30 * time.Second):
				t.Error("kubesim serve did not stop")
			}
		})
	}
	t.Cleanup(s.stop)
	return s
}

// kubectl runs the real kubectl against a server with a fresh discovery
// cache (a restarted server must never look stale).
type kubectl struct {
	t          *testing.T
	kubeconfig string
	cache      string
	home       string
}

func newKubectl(t *testing.T, s *server) *kubectl {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is required for the compatibility tests: %v", err)
	}
	return &kubectl{t: t, kubeconfig: s.kubeconfig, cache: t.TempDir(), home: t.TempDir()}
}

// kubectlTimeout bounds one kubectl run, so that a command that waits
// forever fails its test instead of hanging the whole package.
const kubectlTimeout = 2 * time.Minute

func (k *kubectl) cmd(args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	k.t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+k.kubeconfig, "KUBECACHEDIR="+k.cache, "HOME="+k.home)
	return cmd
}

// run runs kubectl and returns stdout and stderr; it fails the test on a
// non-zero exit unless wantErr.
func (k *kubectl) run(wantErr bool, args ...string) (string, string) {
	k.t.Helper()
	cmd := k.cmd(args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if wantErr {
		require.Error(k.t, err, "kubectl %s: expected failure; stdout: %s", strings.Join(args, " "), out.String())
	} else {
		require.NoError(k.t, err, "kubectl %s\nstdout: %s\nstderr: %s", strings.Join(args, " "), out.String(), errb.String())
	}
	return out.String(), errb.String()
}

func (k *kubectl) ok(args ...string) string {
	k.t.Helper()
	out, _ := k.run(false, args...)
	return out
}

func (k *kubectl) fail(args ...string) string {
	k.t.Helper()
	_, errOut := k.run(true, args...)
	return errOut
}

func TestKubectlCompatibility(t *testing.T) {
	t.Parallel()
	// The API alone: no control loop changes what the test creates.
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)

	t.Run("version", func(t *testing.T) {
		out := k.ok("version", "-o", "json")
		var v struct {
			ServerVersion struct{ Major, Minor string } `json:"serverVersion"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &v), out)
		assert.Equal(t, "32", v.ServerVersion.Minor)
	})
	t.Run("discovery", func(t *testing.T) {
		out := k.ok("api-resources")
		assert.Regexp(t, `(?m)^pods\s+po\s+v1\s+true\s+Pod$`, out)
		assert.Regexp(t, `(?m)^replicasets\s+rs\s+apps/v1\s+true\s+ReplicaSet$`, out)
		assert.Regexp(t, `(?m)^namespaces\s+ns\s+v1\s+false\s+Namespace$`, out)
		versions := k.ok("api-versions")
		assert.Contains(t, versions, "apps/v1\n")
		assert.Contains(t, versions, "v1\n")
		ns := k.ok("get", "ns")
		for _, n := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
			assert.Regexp(t, `(?m)^`+n+`\s+Active\s+\d+s$`, ns)
		}
	})
	t.Run("apply created unchanged configured", func(t *testing.T) {
		assert.Equal(t, "pod/web created\n", k.ok("apply", "-f", "testdata/pod.yaml"))
		assert.Equal(t, "pod/web unchanged\n", k.ok("apply", "-f", "testdata/pod.yaml"))
		assert.Equal(t, "pod/web configured\n", k.ok("apply", "-f", "testdata/pod-v2.yaml"))
		out := k.ok("get", "pod", "web", "-o", "jsonpath={.spec.containers[0].image} {.spec.containers[0].ports[0].containerPort} {.metadata.labels.tier}")
		assert.Equal(t, "nginx:1.26 80 frontend", out, "the container port survives the strategic merge")
	})
	t.Run("create existing", func(t *testing.T) {
		errOut := k.fail("create", "-f", "testdata/pod.yaml")
		assert.Contains(t, errOut, `Error from server (AlreadyExists): error when creating "testdata/pod.yaml": pods "web" already exists`)
	})
	t.Run("server-side apply twice", func(t *testing.T) {
		assert.Equal(t, "configmap/settings serverside-applied\n", k.ok("apply", "--server-side", "-f", "testdata/cm.yaml"))
		assert.Equal(t, "configmap/settings serverside-applied\n", k.ok("apply", "--server-side", "-f", "testdata/cm.yaml"))
		assert.Equal(t, "blue", k.ok("get", "cm", "settings", "-o", "jsonpath={.data.color}"))
	})
	t.Run("server-side apply of an undeclared field", func(t *testing.T) {
		// kube-apiserver's field manager refuses it, whatever
		// --validate says: a 500 with its words, and nothing stored.
		manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: undeclared\ndata:\n  a: b\nfoo: bar\n"
		for _, validate := range []string{"--validate=strict", "--validate=false"} {
			_, errOut, code := k.runIn(manifest, "apply", "--server-side", validate, "-f", "-")
			assert.NotEqual(t, 0, code)
			assert.Contains(t, errOut, `failed to create typed patch object (default/undeclared; /v1, Kind=ConfigMap): .foo: field not declared in schema`)
		}
		_, errOut, _ := k.runIn("", "get", "cm", "undeclared")
		assert.Contains(t, errOut, `configmaps "undeclared" not found`)
	})
	t.Run("get formats", func(t *testing.T) {
		out := k.ok("get", "pods")
		assert.Regexp(t, `^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n`, out)
		assert.Regexp(t, `(?m)^web\s+0/1\s+Pending\s+0\s+\d+s$`, out)
		assert.Regexp(t, `(?m)^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$`, k.ok("get", "pods", "-o", "wide"))
		assert.Equal(t, "pod/web\n", k.ok("get", "po", "-o", "name"))
		assert.Contains(t, k.ok("get", "pod", "web", "-o", "yaml"), "containerPort: 80")
		var pod map[string]any
		require.NoError(t, json.Unmarshal([]byte(k.ok("get", "pod", "web", "-o", "json")), &pod))
		assert.Equal(t, "Pod", pod["kind"])
		assert.Equal(t, "pod/web\n", k.ok("get", "pods", "-l", "app=web", "-o", "name"))
		assert.Equal(t, "", k.ok("get", "pods", "-l", "app=nothing", "-o", "name"))
		assert.Regexp(t, `(?m)^default\s+web\s+`, k.ok("get", "pods", "-A"))
		assert.Regexp(t, `app=web,tier=frontend`, k.ok("get", "pods", "--show-labels"))
		k.ok("create", "configmap", "aaa", "--from-literal=a=b", "--dry-run=client", "-o", "yaml")
		sorted := k.ok("get", "cm", "--sort-by=.metadata.name", "-o", "name")
		assert.Equal(t, "configmap/settings\n", sorted)
	})
	t.Run("label annotate patch", func(t *testing.T) {
		assert.Equal(t, "pod/web labeled\n", k.ok("label", "pod", "web", "env=prod"))
		assert.Equal(t, "pod/web annotated\n", k.ok("annotate", "pod", "web", "note=hello"))
		assert.Equal(t, "prod hello", k.ok("get", "pod", "web", "-o", "jsonpath={.metadata.labels.env} {.metadata.annotations.note}"))
		assert.Equal(t, "configmap/settings patched\n", k.ok("patch", "cm", "settings", "--type=merge", "-p", `{"data":{"color":"red"}}`))
		assert.Equal(t, "configmap/settings patched\n", k.ok("patch", "cm", "settings", "--type=json", "-p", `[{"op":"replace","path":"/data/size","value":"small"}]`))
		assert.Equal(t, "pod/web patched\n", k.ok("patch", "pod", "web", "-p", `{"metadata":{"labels":{"patched":"yes"}}}`))
		assert.Equal(t, "red small yes", strings.TrimSpace(k.ok("get", "cm", "settings", "-o", "jsonpath={.data.color} {.data.size}")+" "+k.ok("get", "pod", "web", "-o", "jsonpath={.metadata.labels.patched}")))
	})
	t.Run("replicaset scale and get all", func(t *testing.T) {
		assert.Equal(t, "replicaset.apps/frontend created\n", k.ok("apply", "-f", "testdata/rs.yaml"))
		assert.Equal(t, "replicaset.apps/frontend scaled\n", k.ok("scale", "rs", "frontend", "--replicas=5"))
		assert.Equal(t, "5", k.ok("get", "rs", "frontend", "-o", "jsonpath={.spec.replicas}"))
		out := k.ok("get", "all")
		assert.Contains(t, out, "pod/web")
		assert.Contains(t, out, "replicaset.apps/frontend")
	})
	t.Run("get -w shows a change as a new row", func(t *testing.T) {
		cmd := k.cmd("get", "pods", "-w")
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		lines := make(chan string, 100)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		readLine := func() string {
			select {
			case l := <-lines:
				return l
			case <-time.After(20 * time.Second):
				t.Fatal("kubectl get -w printed nothing")
			}
			return ""
		}
		assert.Regexp(t, `^NAME\s+READY\s+STATUS`, readLine())
		assert.Regexp(t, `^web\s+0/1\s+Pending`, readLine())
		k.ok("label", "pod", "web", "watched=yes")
		assert.Regexp(t, `^web\s+0/1\s+Pending`, readLine(), "the change is a new row, not a new header")
	})
	t.Run("describe pod shows its events", func(t *testing.T) {
		uid := k.ok("get", "pod", "web", "-o", "jsonpath={.metadata.uid}")
		ev := filepath.Join(t.TempDir(), "event.yaml")
		require.NoError(t, os.WriteFile(ev, []byte(`apiVersion: v1
kind: Event
metadata:
  name: web.1
involvedObject:
  kind: Pod
  namespace: default
  name: web
  uid: `+uid+`
reason: Testing
message: hello from the test
type: Normal
source:
  component: kubectl-test
`), 0o600))
		k.ok("apply", "-f", ev)
		out := k.ok("describe", "pod", "web")
		assert.Contains(t, out, "Name:")
		assert.Regexp(t, `(?m)^Events:`, out)
		assert.Regexp(t, `Normal\s+Testing\s+.*kubectl-test\s+hello from the test`, out)
		assert.Contains(t, k.ok("get", "events"), "hello from the test")
	})
	t.Run("explain", func(t *testing.T) {
		out := k.ok("explain", "pods.spec")
		assert.Contains(t, out, "containers")
	})
	t.Run("not found", func(t *testing.T) {
		errOut := k.fail("get", "pod", "nope")
		assert.Equal(t, "Error from server (NotFound): pods \"nope\" not found\n", errOut)
	})
	t.Run("delete by name, file and label", func(t *testing.T) {
		k.ok("create", "-f", "testdata/cm.yaml", "--namespace", "kube-public")
		assert.Contains(t, k.ok("delete", "-f", "testdata/cm.yaml", "--namespace", "kube-public"), `configmap "settings" deleted`)
		k.ok("apply", "-f", "testdata/cm.yaml")
		assert.Contains(t, k.ok("delete", "cm", "-l", "app=web"), `configmap "settings" deleted`)
		assert.Contains(t, k.ok("get", "pod", "web", "-o", "name"), "pod/web", "delete -l deletes only what matches")
		assert.Contains(t, k.ok("delete", "rs", "frontend"), `replicaset.apps "frontend" deleted`)
		k.fail("get", "rs", "frontend")
	})
}

func TestKubectlWrongToken(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)
	data, err := os.ReadFile(s.kubeconfig)
	require.NoError(t, err)
	bad := regexp.MustCompile(`token: \S+`).ReplaceAll(data, []byte("token: wrong"))
	k.kubeconfig = filepath.Join(t.TempDir(), "bad-kubeconfig")
	require.NoError(t, os.WriteFile(k.kubeconfig, bad, 0o600))
	errOut := k.fail("get", "--raw", "/api")
	assert.Contains(t, errOut, "You must be logged in to the server (Unauthorized)")
	errOut = k.fail("get", "pods")
	assert.Contains(t, errOut, "You must be logged in to the server")
}

func TestServeRestartKeepsEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, dir)
	k := newKubectl(t, s)
	k.ok("apply", "-f", "testdata/cm.yaml")
	uid := k.ok("get", "cm", "settings", "-o", "jsonpath={.metadata.uid}")
	s.stop()
	assert.Equal(t, 0, s.exitCode, "SIGTERM-style shutdown exits cleanly")

	s2 := startServer(t, dir)
	k2 := newKubectl(t, s2)
	assert.Equal(t, uid, k2.ok("get", "cm", "settings", "-o", "jsonpath={.metadata.uid}"))
	assert.Contains(t, k2.ok("get", "ns"), "kube-node-lease")
}
