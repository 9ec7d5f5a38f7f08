package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDeployAsPod runs the operator the second way lab 10 shows: as a
// pod. It builds bin/manager (`make build`) and kubesim, starts `kubesim
// serve --local-image localhost/steward-operator:dev=<manager>`, applies
// config/default (`make deploy`: CRD, ServiceAccount, ClusterRole and
// binding, Deployment), and checks that the pod runs the binary and
// `kubectl logs` shows the manager starting, that the operator acts as
// its ServiceAccount (a Steward gets its Deployment and ConfigMap), and
// that deleting the pod stops the process (the ReplicaSet's next pod runs
// a new one; scaled to zero, none runs).
func TestDeployAsPod(t *testing.T) {
	dir := t.TempDir()
	manager := filepath.Join(dir, "manager")
	goBuild(t, ".", manager, ".")
	kubesim := filepath.Join(dir, "kubesim")
	goBuild(t, filepath.Join("..", ".."), kubesim, "./cmd/kubesim")

	data := filepath.Join(dir, "data")
	serve := exec.Command(kubesim, "serve", "--data-dir", data, "--addr", "127.0.0.1:0", "--nodes", "1",
		"--stage-delay", "10ms", "--unsafe-no-fsync", "--ui=false",
		"--local-image", "localhost/steward-operator:dev="+manager)
	var serveLog bytes.Buffer
	serve.Stdout, serve.Stderr = &serveLog, &serveLog
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	t.Cleanup(func() {
		// kubesim stops its local processes as it shuts down.
		_ = serve.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = serve.Process.Kill()
			<-exited
		}
		if n := processesOf(manager); n != 0 {
			t.Errorf("%d manager processes still run after kubesim stopped", n)
		}
		if t.Failed() {
			t.Logf("kubesim serve log:\n%s", lastLines(serveLog.String(), 40))
		}
	})
	k := kubectl{t: t, env: append(os.Environ(), "KUBECONFIG="+filepath.Join(data, "kubeconfig"),
		"KUBECACHEDIR="+t.TempDir(), "HOME="+t.TempDir())}
	k.eventually("kubesim serve ready", func(out string) bool { return out == "ok" }, "get", "--raw", "/readyz")

	k.ok("apply", "-k", filepath.Join("config", "default"))
	pods := []string{"get", "pods", "-n", "steward-system", "-l", "control-plane=controller-manager", "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.status.phase}{"\n"}{end}`}
	running := func(out string) bool { f := strings.Fields(out); return len(f) == 2 && f[1] == "Running" }
	first := strings.Fields(k.eventually("the operator's pod runs", running, pods...))[0]
	// As lab 10 reads it: kubectl finds the Deployment's pod.
	logs := k.eventually("the manager's workers start", func(out string) bool { return strings.Contains(out, "Starting workers") },
		"logs", "-n", "steward-system", "deploy/controller-manager")
	for _, want := range []string{`"controller": "steward"`, "Starting Controller"} {
		if !strings.Contains(logs, want) {
			t.Errorf("kubectl logs lacks %q:\n%s", want, logs)
		}
	}
	if n := processesOf(manager); n != 1 {
		t.Errorf("%d manager processes run, want 1", n)
	}

	// The operator works as its ServiceAccount, through the RBAC of
	// config/rbac: the sample's Deployment and ConfigMap appear.
	k.ok("apply", "-f", filepath.Join("config", "samples", "oam_v1_steward.yaml"))
	k.eventually("the operator makes the sample's objects", func(out string) bool {
		return strings.Contains(out, "deployment.apps/steward-sample") && strings.Contains(out, "configmap/steward-sample-config")
	}, "get", "deploy,cm", "-o", "name")
	k.eventually("the sample's status is written", func(out string) bool { return out == "steward-sample" },
		"get", "steward", "steward-sample", "-o", "jsonpath={.status.deployment}")

	// Deleting the pod stops its process; the ReplicaSet's new pod runs
	// the binary again.
	k.ok("delete", "pod", "-n", "steward-system", "-l", "control-plane=controller-manager", "--wait=true")
	second := strings.Fields(k.eventually("a new pod runs", func(out string) bool {
		return running(out) && !strings.HasPrefix(out, first+" ")
	}, pods...))[0]
	k.eventually("the new pod's manager starts", func(out string) bool { return strings.Contains(out, "Starting workers") },
		"logs", "-n", "steward-system", second)
	if n := processesOf(manager); n != 1 {
		t.Errorf("%d manager processes run after the pod was replaced, want 1", n)
	}
	k.ok("scale", "-n", "steward-system", "deployment/controller-manager", "--replicas=0")
	k.eventually("the pod is gone", func(out string) bool { return out == "" }, pods...)
	if n := processesOf(manager); n != 0 {
		t.Errorf("%d manager processes run with no pod, want 0", n)
	}
}

func goBuild(t *testing.T, dir, out, pkg string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// processesOf counts the running processes of a binary, from /proc.
func processesOf(bin string) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil {
			continue
		}
		if exe == bin {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && isZombie(string(st)) {
				continue
			}
			n++
		}
	}
	return n
}

// isZombie reads the state field of /proc/PID/stat (after the command
// in parentheses).
func isZombie(stat string) bool {
	i := strings.LastIndex(stat, ")")
	return i >= 0 && strings.HasPrefix(strings.TrimSpace(stat[i+1:]), "Z")
}

type kubectl struct {
	t   *testing.T
	env []string
}

func (k kubectl) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Env = k.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String() + errb.String(), err
	}
	return strings.TrimSpace(out.String()), nil
}

func (k kubectl) ok(args ...string) string {
	k.t.Helper()
	out, err := k.run(args...)
	if err != nil {
		k.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// eventually runs kubectl until check accepts its output (2 minutes at
// most: the first manager start compiles nothing, but a loaded machine
// is slow).
func (k kubectl) eventually(what string, check func(string) bool, args ...string) string {
	k.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	var out string
	for time.Now().Before(deadline) {
		var err error
		if out, err = k.run(args...); err == nil && check(out) {
			return out
		}
		time.Sleep(100 * time.Millisecond)
	}
	k.t.Fatalf("%s: kubectl %s never said so; last:\n%s", what, strings.Join(args, " "), out)
	return ""
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
