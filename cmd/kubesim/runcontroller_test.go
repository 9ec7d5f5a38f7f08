package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runAsKubesimEnv makes the test binary behave as the kubesim command, so
// that a test can run a kubesim command as a real child process.
const runAsKubesimEnv = "KUBESIM_TEST_RUN_AS_KUBESIM"

func TestMain(m *testing.M) {
	if os.Getenv(runAsKubesimEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestRunControllerArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no name", []string{"run-controller"}, "a controller NAME is required"},
		{"flag first", []string{"run-controller", "--kubeconfig", "x"}, "a controller NAME is required"},
		{"unknown", []string{"run-controller", "nope", "--kubeconfig", "x"}, `unknown controller "nope"`},
		{"extra args", []string{"run-controller", "nope", "--kubeconfig", "x", "more"}, `unexpected arguments ["more"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			assert.Equal(t, 1, code)
			assert.Contains(t, errb.String(), tc.want)
		})
	}
}

// syncBuffer is a log a test reads while a controller writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Lab 8's least privilege: the Foo controller runs as its service
// account with the example's role; without the create verb on
// deployments it is refused, and the 403 is in its log and in the audit
// log; with the verb back it recovers.
func TestRunControllerAsServiceAccount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	auditLog := filepath.Join(dir, "audit.log")
	s := startServer(t, dir, "--nodes", "1", "--stage-delay", "20ms", "--audit-log-path", auditLog)
	k := newKubectl(t, s)
	root := filepath.Join("..", "..")
	k.ok("apply", "-f", filepath.Join(root, "operators", "foo", "crd.yaml"))
	k.ok("wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io", "--timeout=30s")
	k.ok("apply", "-f", filepath.Join(root, "examples", "operators", "foo-controller-rbac.yaml"))
	k.ok("patch", "clusterrole", "foo-controller", "--type=json", "-p", `[{"op":"replace","path":"/rules/1/verbs","value":["get","list","watch","update"]}]`)

	ctx, cancel := context.WithCancel(context.Background())
	var logs syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"run-controller", "foo", "--kubeconfig", s.kubeconfig, "--serviceaccount", "default/foo-controller", "-v"}, io.Discard, &logs)
	}()
	defer func() {
		cancel()
		require.Equal(t, 0, <-done, "the controller stops cleanly:\n%s", logs.String())
	}()
	k.ok("apply", "-f", filepath.Join(root, "operators", "foo", "example-foo.yaml"))
	refusal := `deployments.apps is forbidden: User \"system:serviceaccount:default:foo-controller\" cannot create resource \"deployments\" in API group \"apps\" in the namespace \"default\"`
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), refusal) }, 30*time.Second, 50*time.Millisecond,
		"the refusal in the controller's log:\n%s", logs.String())
	audit, err := os.ReadFile(auditLog)
	require.NoError(t, err)
	var found bool
	for _, line := range strings.Split(string(audit), "\n") {
		if strings.Contains(line, `"code":403`) && strings.Contains(line, `"username":"system:serviceaccount:default:foo-controller"`) &&
			strings.Contains(line, `"resource":"deployments"`) && strings.Contains(line, `"verb":"create"`) {
			found = true
		}
	}
	assert.True(t, found, "the refusal in the audit log")
	assert.Empty(t, k.ok("get", "deploy", "-o", "name"), "no Deployment")

	k.ok("patch", "clusterrole", "foo-controller", "--type=json", "-p", `[{"op":"add","path":"/rules/1/verbs/-","value":"create"}]`)
	k.ok("annotate", "foo", "example-foo", "lab=least-privilege")
	k.ok("wait", "--for=jsonpath={.status.availableReplicas}=1", "foo/example-foo", "--timeout=60s")
}
