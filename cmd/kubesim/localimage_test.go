package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildLocalImage builds testdata/localimage, the binary the local-image
// tests run as a pod.
func buildLocalImage(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "localimage")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/localimage").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

const localImagePod = `apiVersion: v1
kind: Pod
metadata:
  name: %[1]s
spec:
  terminationGracePeriodSeconds: 5
  restartPolicy: %[3]s
  containers:
  - name: main
    image: localhost/test:dev
    args: [%[2]s]
    env:
    - name: GREETING
      value: hello
    - name: MARK_DIR
      value: %[4]s
    - name: POD_NAME
      valueFrom:
        fieldRef:
          fieldPath: metadata.name
`

// A pod whose image is a --local-image name runs the binary as a process:
// its argv and the pod's environment (valueFrom too) reach it, its
// in-cluster kubeconfig authenticates it as the pod's service account,
// kubectl logs (and -f) shows what it printed, deleting the pod stops it
// with SIGTERM, and a binary that crashes is restarted into
// CrashLoopBackOff.
func TestLocalImageRunsAsAPod(t *testing.T) {
	t.Parallel()
	bin := buildLocalImage(t)
	marks := t.TempDir()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms", "--local-image", "localhost/test:dev="+bin)
	k := newKubectl(t, s)
	pod := func(name, args, policy string) string {
		f := filepath.Join(t.TempDir(), name+".yaml")
		require.NoError(t, os.WriteFile(f, []byte(fmt.Sprintf(localImagePod, name, args, policy, marks)), 0o600))
		return f
	}

	l, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port) // free: the process listens there
	l.Close()
	k.ok("apply", "-f", pod("runner", `"serve", "--flag=1", "--listen=127.0.0.1:`+port+`"`, "Always"))
	k.eventually(func(out string) bool { return strings.Contains(out, "tick 3") }, "logs", "runner")
	logs := k.ok("logs", "runner")
	assert.Contains(t, logs, "args: serve --flag=1 --listen=127.0.0.1:"+port+"\n")
	assert.Contains(t, logs, "POD_NAME: runner GREETING: hello\n")
	assert.Contains(t, logs, "KUBERNETES_SERVICE_HOST set: true\n")
	assert.Contains(t, logs, "whoami: system:serviceaccount:default:default\n", "the kubeconfig's token is the pod's service account's")
	assert.Equal(t, "Running", k.jsonpath("pod/runner", "{.status.phase}"))
	// -f follows the process until it ends: it ends when the pod is deleted.
	follow := k.cmd("logs", "-f", "runner")
	var followed, followErr lockedBuffer
	follow.Stdout, follow.Stderr = &followed, &followErr
	require.NoError(t, follow.Start())
	// It has the pod's stream once the lines printed so far arrive.
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(followed.String(), "tick 3") {
		require.True(t, time.Now().Before(deadline), "kubectl logs -f printed nothing: %s", followErr.String())
		time.Sleep(20 * time.Millisecond)
	}

	// port-forward reaches the process's port: it shares the host's
	// network, so the pod's localhost is the host's.
	fwd, _, _ := k.portForward("pod/runner", port)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get("http://127.0.0.1:" + fwd + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "hello from the process\n", string(body))

	pidText, err := os.ReadFile(filepath.Join(marks, "runner.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(pidText))
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, 0), "the process runs")

	k.ok("delete", "pod", "runner", "--wait=true")
	_, err = os.Stat(filepath.Join(marks, "runner.stopped"))
	assert.NoError(t, err, "the process was told to stop with SIGTERM")
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the process has ended")
	require.NoError(t, follow.Wait(), "kubectl logs -f ends with the container: %s", followErr.String())
	assert.Contains(t, followed.String(), "got SIGTERM, exiting\n")

	// A crashing binary: Error, restarted after the back-off, then
	// CrashLoopBackOff; --previous shows the run before.
	k.ok("apply", "-f", pod("crasher", `"crash"`, "Always"))
	k.eventually(func(out string) bool { return out == "CrashLoopBackOff" }, "get", "pod", "crasher",
		"-o", "jsonpath={.status.containerStatuses[0].state.waiting.reason}")
	assert.Equal(t, "3", k.jsonpath("pod/crasher", "{.status.containerStatuses[0].lastState.terminated.exitCode}"))
	assert.Contains(t, k.ok("logs", "crasher", "--previous"), "crashing with exit code 3\n")
	k.eventually(func(out string) bool { return out != "" && out != "0" && out != "1" }, "get", "pod", "crasher",
		"-o", "jsonpath={.status.containerStatuses[0].restartCount}")

	// restartPolicy Never: the exit code is the pod's end.
	k.ok("apply", "-f", pod("once", `"crash"`, "Never"))
	k.eventually(func(out string) bool { return out == "Failed" }, "get", "pod", "once", "-o", "jsonpath={.status.phase}")
	assert.Equal(t, "3", k.jsonpath("pod/once", "{.status.containerStatuses[0].state.terminated.exitCode}"))
}

// lockedBuffer is a buffer a running command writes and the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// An image that is not a --local-image name stays simulated, whatever it
// is called: a pod cannot run a host path by naming it (a path is no
// image reference at all: InvalidImageName, as on any cluster).
func TestLocalImageOnlyNamedImagesRun(t *testing.T) {
	t.Parallel()
	bin := buildLocalImage(t)
	marks := t.TempDir()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms", "--local-image", "localhost/test:dev="+bin)
	k := newKubectl(t, s)
	f := filepath.Join(t.TempDir(), "p.yaml")
	manifest := strings.Replace(fmt.Sprintf(localImagePod, "hostpath", `"serve"`, "Always", marks), "localhost/test:dev", bin, 1)
	require.NoError(t, os.WriteFile(f, []byte(manifest), 0o600))
	k.ok("apply", "-f", f)
	k.eventually(func(out string) bool { return out == "InvalidImageName" },
		"get", "pod", "hostpath", "-o", "jsonpath={.status.containerStatuses[0].state.waiting.reason}")
	assert.Contains(t, k.fail("logs", "hostpath"), `container "main" in pod "hostpath" is waiting to start: InvalidImageName`)
	_, err := os.Stat(filepath.Join(marks, "hostpath.pid"))
	assert.True(t, errors.Is(err, os.ErrNotExist), "the binary did not run")
}

// --local-image refuses what it cannot run, at start.
func TestLocalImageFlagRefusesBadValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(plain, []byte("x"), 0o644))
	f := localImageFlag{}
	assert.ErrorContains(t, f.Set("no-equals"), "want NAME=PATH")
	assert.ErrorContains(t, f.Set("a="+filepath.Join(dir, "missing")), "no such file or directory")
	assert.ErrorContains(t, f.Set("a="+plain), "is not an executable file")
	assert.ErrorContains(t, f.Set("a="+dir), "is not an executable file")
	require.NoError(t, os.Chmod(plain, 0o755))
	require.NoError(t, f.Set("a="+plain))
	assert.ErrorContains(t, f.Set("a="+plain), "given twice")
}
