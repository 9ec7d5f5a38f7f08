package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const twoProfiles = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: my-scheduler
  plugins:
    score:
      disabled:
      - name: '*'
`

// serveWithSchedulerConfig writes doc to a file and starts serve with it
// as --scheduler-config and nodes nodes; it returns the file and the
// server.
func serveWithSchedulerConfig(t *testing.T, doc string, nodes int) (string, *server) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "scheduler.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(doc), 0o600))
	return cfg, startServer(t, filepath.Join(dir, "data"), "--nodes", strconv.Itoa(nodes), "--scheduler-config", cfg, "--stage-delay", "10ms")
}

// serve --scheduler-config runs both profiles in its one scheduler: a pod
// naming the second is bound by it and kubectl shows that scheduler's name
// as its events' source; a pod naming a scheduler no profile has stays
// Pending, without events.
func TestServeSchedulerConfigProfiles(t *testing.T) {
	t.Parallel()
	_, s := serveWithSchedulerConfig(t, twoProfiles, 2)
	k := newKubectl(t, s)

	apply := func(manifest string) {
		cmd := k.cmd("apply", "-f", "-")
		cmd.Stdin = strings.NewReader(manifest)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	// The orphan first: the scheduler sees it before it binds mine.
	apply("apiVersion: v1\nkind: Pod\nmetadata: {name: orphan}\nspec: {schedulerName: nobody, containers: [{name: c, image: nginx}]}\n")
	apply("apiVersion: v1\nkind: Pod\nmetadata: {name: mine}\nspec: {schedulerName: my-scheduler, containers: [{name: c, image: nginx}]}\n")
	k.ok("wait", "--for=condition=PodScheduled", "pod/mine", "--timeout=90s")
	assert.NotEmpty(t, k.ok("get", "pod", "mine", "-o", "jsonpath={.spec.nodeName}"))

	events := k.ok("get", "events", "--field-selector", "involvedObject.name=mine",
		"-o", "custom-columns=REASON:.reason,SOURCE:.source.component,CONTROLLER:.reportingComponent", "--no-headers")
	assert.Regexp(t, `(?m)^Scheduled\s+my-scheduler\s+my-scheduler$`, events)

	assert.Empty(t, k.ok("get", "pod", "orphan", "-o", "jsonpath={.spec.nodeName}"))
	assert.Equal(t, "Pending", k.ok("get", "pod", "orphan", "-o", "jsonpath={.status.phase}"))
	assert.Empty(t, k.ok("get", "pod", "orphan", "-o", "jsonpath={.status.conditions}"))
	assert.Empty(t, strings.TrimSpace(k.ok("get", "events", "--field-selector", "involvedObject.name=orphan", "-o", "name")))
}

// A bad configuration file: kube-scheduler's message, a non-zero exit,
// and nothing started (not even the data directory).
func TestServeSchedulerConfigInvalid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown plugin", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    filter:\n      enabled: [{name: Foo}]\n",
			`initializing profiles: creating profile for scheduler name default-scheduler: FilterPlugin "Foo" does not exist`},
		{"duplicate profile", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{schedulerName: a}, {schedulerName: a}]\n",
			`profiles[1].schedulerName: Duplicate value: "a"`},
		{"does not parse", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: [\n", "yaml: line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "scheduler.yaml")
			require.NoError(t, os.WriteFile(cfg, []byte(tc.doc), 0o600))
			data := filepath.Join(dir, "data")
			var out, errOut strings.Builder
			code := run(context.Background(), []string{"serve", "--data-dir", data, "--addr", "127.0.0.1:0", "--scheduler-config", cfg}, &out, &errOut)
			assert.NotZero(t, code)
			assert.Contains(t, errOut.String(), cfg+": ")
			assert.Contains(t, errOut.String(), tc.want)
			assert.NotContains(t, out.String(), "listening")
			assert.NoDirExists(t, data, "nothing started")
		})
	}
}

const myScheduler = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: my-scheduler
`

// kubernetes.io's "Configure Multiple Schedulers": a second scheduler,
// `kubesim scheduler` as its own process with the profile my-scheduler,
// binds the tutorial's pod; serve's default scheduler leaves it alone
// (its Scheduled event is signed my-scheduler, and no FailedScheduling
// comes from default-scheduler).
func TestSecondSchedulerProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "my-scheduler.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(myScheduler), 0o600))
	s := startServer(t, filepath.Join(dir, "data"), "--nodes", "2", "--stage-delay", "10ms")
	k := newKubectl(t, s)
	k.ok("apply", "-f", "testdata/multischeduler-pod.yaml")
	// Alone, serve's scheduler does not touch it.
	assert.Empty(t, k.ok("get", "pod", "annotation-second-scheduler", "-o", "jsonpath={.spec.nodeName}"))

	line, _ := startProc(t, "scheduler", "--kubeconfig", s.kubeconfig, "--config", cfg)
	assert.Contains(t, line, "with profiles my-scheduler")
	k.ok("wait", "--for=condition=PodScheduled", "pod/annotation-second-scheduler", "--timeout=90s")
	events := k.eventually(func(out string) bool { return strings.Contains(out, "Scheduled") }, "get", "events",
		"--field-selector", "involvedObject.name=annotation-second-scheduler",
		"-o", "custom-columns=REASON:.reason,SOURCE:.source.component", "--no-headers")
	assert.Regexp(t, `(?m)^Scheduled\s+my-scheduler$`, events)
	assert.NotContains(t, events, "FailedScheduling")
}

// Two schedulers serving the same name race for the same pods: serve's
// (its --scheduler-config has my-scheduler too) and a `kubesim scheduler`
// process. The API server lets one binding of a pod in and answers the
// other 409 Conflict; the loser takes it as bound by someone else, as
// kube-scheduler does: every pod is bound once, with one Scheduled event
// and no FailedScheduling.
func TestRacingSchedulersBindEachPodOnce(t *testing.T) {
	t.Parallel()
	cfg, s := serveWithSchedulerConfig(t, twoProfiles, 3)
	k := newKubectl(t, s)
	startProc(t, "scheduler", "--kubeconfig", s.kubeconfig, "--config", cfg)

	const n = 20
	var manifests strings.Builder
	for i := range n {
		fmt.Fprintf(&manifests, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: race-%d, labels: {app: race}}\nspec: {schedulerName: my-scheduler, containers: [{name: c, image: nginx}]}\n", i)
	}
	cmd := k.cmd("apply", "-f", "-")
	cmd.Stdin = strings.NewReader(manifests.String())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	k.ok("wait", "--for=condition=PodScheduled", "pod", "-l", "app=race", "--timeout=90s")

	count := func(out string) map[string]int {
		c := map[string]int{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			// The scheduler's events; the kubelets' follow.
			if f := strings.Fields(l); len(f) == 2 && strings.HasPrefix(f[0], "race-") && (f[1] == "Scheduled" || f[1] == "FailedScheduling") {
				c[f[0]+" "+f[1]]++
			}
		}
		return c
	}
	args := []string{"get", "events", "-o", "custom-columns=POD:.involvedObject.name,REASON:.reason", "--no-headers"}
	out2 := k.eventually(func(out string) bool {
		scheduled := 0
		for key := range count(out) {
			if strings.HasSuffix(key, " Scheduled") {
				scheduled++
			}
		}
		return scheduled == n
	}, args...)
	for key, c := range count(out2) {
		assert.Equal(t, 1, c, "%s: one event", key)
		assert.True(t, strings.HasSuffix(key, " Scheduled"), "%s: no FailedScheduling", key)
	}
	nodes := k.ok("get", "pods", "-l", "app=race", "-o", `jsonpath={range .items[*]}{.spec.nodeName}{"\n"}{end}`)
	assert.Len(t, strings.Fields(nodes), n, "every pod bound")
}
