package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/kubelet"
)

// kubernetes.io's "Configure Multiple Schedulers" with its own manifest:
// my-scheduler as a Deployment of the tutorial's image, which runs
// kubesim's scheduler in the kubelet's process. As the page gives it, its
// configuration names kubescheduler.config.k8s.io/v1beta2: the container
// exits with kube-scheduler's message, the pod crash-loops and the
// tutorial's pod stays Pending, bound by nobody. With v1 and the pods
// restarted, the second scheduler (acting as its service account, bound
// to system:kube-scheduler) binds the pod, and the events name it.
func TestTutorialSchedulerAsAPod(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	schedPods := []string{"get", "pods", "-n", "kube-system", "-l", "component=scheduler", "--no-headers"}

	k.ok("apply", "-f", "testdata/my-scheduler.yaml")
	k.ok("apply", "-f", "testdata/multischeduler-pod.yaml")
	k.eventually(func(out string) bool { return strings.Contains(out, "CrashLoopBackOff") }, schedPods...)
	logs := k.ok("logs", "-n", "kube-system", "deployment/my-scheduler")
	assert.Contains(t, logs, `"command failed" err="/etc/kubernetes/my-scheduler/my-scheduler-config.yaml: no kind \"KubeSchedulerConfiguration\" is registered for version \"kubescheduler.config.k8s.io/v1beta2\"`)
	assert.Empty(t, k.ok("get", "pod", "annotation-second-scheduler", "-o", "jsonpath={.spec.nodeName}"), "nothing bound it")
	assert.Equal(t, "Pending", k.ok("get", "pod", "annotation-second-scheduler", "-o", "jsonpath={.status.phase}"))

	manifest, err := os.ReadFile("testdata/my-scheduler.yaml")
	require.NoError(t, err)
	fixed := filepath.Join(t.TempDir(), "my-scheduler.yaml")
	require.NoError(t, os.WriteFile(fixed, []byte(strings.Replace(string(manifest),
		"apiVersion: kubescheduler.config.k8s.io/v1beta2", "apiVersion: kubescheduler.config.k8s.io/v1", 1)), 0o600))
	k.ok("apply", "-f", fixed)
	k.ok("rollout", "restart", "-n", "kube-system", "deployment/my-scheduler")
	k.ok("wait", "--for=condition=PodScheduled", "pod/annotation-second-scheduler", "--timeout=90s")
	k.ok("wait", "--for=jsonpath={.status.phase}=Running", "pod/annotation-second-scheduler", "--timeout=90s")
	events := k.eventually(func(out string) bool { return strings.Contains(out, "Scheduled") }, "get", "events",
		"--field-selector", "involvedObject.name=annotation-second-scheduler",
		"-o", "custom-columns=REASON:.reason,SOURCE:.source.component", "--no-headers")
	assert.Regexp(t, `(?m)^Scheduled\s+my-scheduler$`, events)
	assert.NotContains(t, events, "FailedScheduling")
}

// mapFiles are a container's files by path (programs.Files).
type mapFiles map[string]string

func (m mapFiles) ReadFile(name string) ([]byte, bool) { d, ok := m[name]; return []byte(d), ok }
func (m mapFiles) IsDir(string) bool                   { return false }
func (m mapFiles) OnMount(string) bool                 { return true }

// kube-scheduler's image refuses what it cannot run with before it
// reaches the API server: exit code 1 and the "command failed" line.
func TestKubeSchedulerImageRefuses(t *testing.T) {
	files := mapFiles{"/etc/s/bad.yaml": "apiVersion: kubescheduler.config.k8s.io/v1\nkind: [\n",
		"/etc/s/own.yaml": "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection: {kubeconfig: /etc/kubernetes/scheduler.conf}\n"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--scheduler-name=x"}, `err="unknown flag: --scheduler-name"`},
		{"no such file", []string{"--config=/etc/s/none.yaml"}, `err="open /etc/s/none.yaml: no such file or directory"`},
		{"does not parse", []string{"--config=/etc/s/bad.yaml"}, `err="/etc/s/bad.yaml: yaml: line 2`},
		{"its own kubeconfig", []string{"--kubeconfig=/etc/kubernetes/scheduler.conf"}, "in-cluster configuration only"},
		{"kubeconfig in the file", []string{"--config=/etc/s/own.yaml"}, "clientConnection.kubeconfig: kubesim runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			code := kubeSchedulerMain(t.Context(), kubelet.InProcessRun{Args: tc.args, Stdout: &out, Files: files})
			assert.Equal(t, 1, code)
			assert.Regexp(t, `^E\d{4} \d\d:\d\d:\d\d\.\d{6}       1 run.go:72\] "command failed" err=`, out.String())
			assert.Contains(t, out.String(), tc.want)
		})
	}
}
