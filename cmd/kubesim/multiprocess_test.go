package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/store/etcdstore/etcdtest"
)

// startProc runs `kubesim ARGS...` as a child process and returns its first
// line of output and the process, for a kill -9.
func startProc(t *testing.T, args ...string) (string, *os.Process) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsKubesimEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case first <- sc.Text():
			default:
			}
		}
	}()
	select {
	case line := <-first:
		return line, cmd.Process
	case <-time.After(60 * time.Second):
		t.Fatalf("kubesim %s did not start: %s", strings.Join(args, " "), stderr.String())
	}
	return "", nil
}

// syncBuffer is in runcontroller_test.go.

func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Two `kubesim serve --leader-elect` processes over one etcd and the
// kubelets in a third process (`kubesim kubelet --server A,B`). The
// leader, A, is killed with SIGKILL while clients write through it and a
// Deployment rolls out: every write A acknowledged is in etcd, B takes the
// Leases within the lease duration, the kubelets move to B, and the
// rollout completes.
func TestKillDashNineOfTheLeaderAPIServer(t *testing.T) {
	t.Parallel()
	e, err := etcdtest.Start()
	require.NoError(t, err)
	defer e.Stop()
	dir := t.TempDir()
	serve := func(name string) (string, *os.Process) {
		line, p := startProc(t, "serve", "--data-dir", dir, "--kubeconfig", filepath.Join(dir, name+".kubeconfig"),
			"--addr", "127.0.0.1:0", "--nodes", "0", "--etcd-servers", e.URL, "--leader-elect",
			"--leader-elect-lease-duration", "2s", "--leader-elect-renew-deadline", "1s", "--leader-elect-retry-period", "200ms")
		url, ok := strings.CutPrefix(line, "kubesim API server listening on ")
		require.True(t, ok, line)
		return url, p
	}
	ctx := context.Background()
	urlA, procA := serve("a")
	clA, err := client.FromKubeconfig(filepath.Join(dir, "a.kubeconfig"), "test")
	require.NoError(t, err)
	waitFor(t, 30*time.Second, "a to take the lease", func() bool {
		l, err := clA.Leases().Get(ctx, "kube-system", "kube-controller-manager")
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != ""
	})
	lease, err := clA.Leases().Get(ctx, "kube-system", "kube-controller-manager")
	require.NoError(t, err)
	leaderA := *lease.Spec.HolderIdentity
	urlB, _ := serve("b")
	clB, err := client.FromKubeconfig(filepath.Join(dir, "b.kubeconfig"), "test")
	require.NoError(t, err)
	startProc(t, "kubelet", "--kubeconfig", filepath.Join(dir, "a.kubeconfig"), "--server", urlA+","+urlB,
		"--nodes", "2", "--stage-delay", "10ms")
	waitFor(t, 30*time.Second, "two nodes", func() bool {
		l, err := clB.Nodes().List(ctx, "", client.ListOptions{})
		return err == nil && len(l.Items) == 2
	})

	replicas := int32(6)
	labels := map[string]string{"app": "web"}
	_, err = clA.Deployments().Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}}})
	require.NoError(t, err)

	// Write load through A: four writers, each remembering what A acknowledged.
	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("w%d-%d", w, i)
				_, err := clA.ConfigMaps().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}})
				if err != nil {
					return // A is gone
				}
				mu.Lock()
				acked = append(acked, name)
				mu.Unlock()
			}
		}()
	}
	waitFor(t, 30*time.Second, "some acknowledged writes", func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 20 })
	require.NoError(t, procA.Kill()) // SIGKILL: no shutdown, no lease release
	killed := time.Now()
	wg.Wait()
	close(stop)

	mu.Lock()
	defer mu.Unlock()
	for _, name := range acked {
		_, err := clB.ConfigMaps().Get(ctx, "default", name)
		require.NoError(t, err, "acknowledged write %s lost", name)
	}
	waitFor(t, 30*time.Second, "b to take the lease", func() bool {
		l, err := clB.Leases().Get(ctx, "kube-system", "kube-controller-manager")
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != leaderA && *l.Spec.HolderIdentity != ""
	})
	t.Logf("failover: b holds the lease %s after the kill", time.Since(killed).Round(10*time.Millisecond))
	waitFor(t, 60*time.Second, "the rollout to complete", func() bool {
		d, err := clB.Deployments().Get(ctx, "default", "web")
		return err == nil && d.Status.UpdatedReplicas == replicas && d.Status.AvailableReplicas == replicas
	})
	nodes, err := clB.Nodes().List(ctx, "", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, nodes.Items, 2)
}
