package kubelet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/kubelet/cni"
	"github.com/kubesim/kubesim/kubelet/cni/cnitest"
	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/runmode"
)

// cniSetup is a node's CNI directories with the mock plugin built and
// configured; dataDir is where the plugin keeps its addresses and log.
type cniSetup struct {
	cfg     *cni.Config
	dataDir string
}

func newCNISetup(t *testing.T) cniSetup {
	binDir := cnitest.BuildMock(t)
	confDir, dataDir := t.TempDir(), t.TempDir()
	cnitest.WriteMockConf(t, confDir, "10-mock.conflist", dataDir)
	return cniSetup{cfg: &cni.Config{ConfDir: confDir, BinDirs: []string{binDir}, StateDir: cnitest.StateDir(t)}, dataDir: dataDir}
}

// With CNI the pod's address is the plugin's: ADD with the runtimes'
// environment before the containers start, the network routes the
// address to the node, and DEL frees it once the pod is gone.
func TestCNIGivesThePodItsAddress(t *testing.T) {
	t.Parallel()
	s := newCNISetup(t)
	network := podnet.New()
	f := newFixture(t, Config{CNI: s.cfg, Network: network})
	created := f.createPod("web", nil)
	f.settle()
	f.until(f.clk.Now().Add(time.Second))

	pod := f.pod("web")
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
	assert.Equal(t, "10.22.0.2", pod.Status.PodIP)
	assert.Equal(t, []corev1.PodIP{{IP: "10.22.0.2"}}, pod.Status.PodIPs)
	id := sandboxID(pod)
	calls := cnitest.Calls(t, s.dataDir)
	require.Len(t, calls, 1)
	netns := filepath.Join(s.cfg.StateDir, "netns", id)
	assert.Equal(t, "ADD "+id+" netns="+netns+" ifname=eth0 args=IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web;K8S_POD_INFRA_CONTAINER_ID="+id+";K8S_POD_UID="+string(created.UID), calls[0])
	assert.FileExists(t, filepath.Join(s.cfg.StateDir, "sandboxes", id+".json"))

	// The network sends the plugin's address to this node, whose nginx
	// answers on port 80.
	conn, err := network.DialContext(f.ctx, "tcp", "10.22.0.2:80")
	require.NoError(t, err)
	conn.Close()

	zero := int64(0)
	require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", "web", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	f.settle()
	calls = cnitest.Calls(t, s.dataDir)
	require.Len(t, calls, 2)
	assert.True(t, strings.HasPrefix(calls[1], "DEL "+id+" "), calls[1])
	assert.NoFileExists(t, filepath.Join(s.cfg.StateDir, "sandboxes", id+".json"))
	assert.NoFileExists(t, filepath.Join(s.dataDir, "10.22.0.2"), "the plugin freed the address")
	_, err = network.DialContext(f.ctx, "tcp", "10.22.0.2:80")
	assert.Error(t, err, "the address is no longer routed")
}

// A plugin that fails is the pod's FailedCreatePodSandBox event with
// containerd's words; the pod stays in ContainerCreating and the pod
// worker tries again after its 10 s back-off, until the plugin works.
func TestCNIFailureHoldsThePodAndIsRetried(t *testing.T) {
	t.Parallel()
	s := newCNISetup(t)
	tries := filepath.Join(t.TempDir(), "tries")
	broken := "#!/bin/sh\necho $CNI_COMMAND >> " + tries + "\n" +
		`echo '{"cniVersion": "1.0.0", "code": 11, "msg": "no IP addresses available", "details": "range is full"}'` + "\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(s.cfg.BinDirs[0], "broken"), []byte(broken), 0o755))
	conf := filepath.Join(s.cfg.ConfDir, "05-broken.conflist")
	require.NoError(t, os.WriteFile(conf, []byte(`{"cniVersion": "1.0.0", "name": "brokennet", "plugins": [{"type": "broken"}]}`), 0o644))
	f := newFixture(t, Config{CNI: s.cfg})
	f.createPod("web", nil)
	f.settle()
	f.until(f.clk.Now().Add(15 * time.Second))

	pod := f.pod("web")
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	require.Len(t, pod.Status.ContainerStatuses, 1)
	assert.Equal(t, "ContainerCreating", pod.Status.ContainerStatuses[0].State.Waiting.Reason)
	assert.Empty(t, pod.Status.PodIP)
	l, err := f.env.Client.Events().List(f.ctx, "default", client.ListOptions{FieldSelector: "involvedObject.name=web,reason=FailedCreatePodSandBox"})
	require.NoError(t, err)
	require.NotEmpty(t, l.Items, "%v", f.events("web"))
	assert.Equal(t, "Warning", l.Items[0].Type)
	assert.Equal(t, `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "`+sandboxID(pod)+
		`": plugin type="broken" failed (add): no IP addresses available; range is full`, l.Items[0].Message)
	// Two tries 10 s apart, each ADD cleaned up with a DEL, as
	// containerd does after a failed setup.
	b, err := os.ReadFile(tries)
	require.NoError(t, err)
	assert.Equal(t, "ADD\nDEL\nADD\nDEL\n", string(b))

	// The network is mended: the next try gives the pod its address.
	require.NoError(t, os.Remove(conf))
	f.until(f.clk.Now().Add(10 * time.Second))
	pod = f.pod("web")
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
	assert.Equal(t, "10.22.0.2", pod.Status.PodIP)
}

// A kubelet started again over the node's directory adopts the sandboxes
// of the pods that remain (CHECK, the same address) and runs DEL for a
// sandbox whose pod was deleted while no kubelet ran.
func TestRestartedKubeletAdoptsAndCollectsSandboxes(t *testing.T) {
	t.Parallel()
	s := newCNISetup(t)
	f := newFixture(t, Config{CNI: s.cfg})
	f.createPod("stays", nil)
	f.createPod("goes", nil)
	f.settle()
	f.until(f.clk.Now().Add(time.Second))
	stays, goes := f.pod("stays"), f.pod("goes")
	require.Equal(t, corev1.PodRunning, stays.Status.Phase)
	require.Equal(t, corev1.PodRunning, goes.Status.Phase)
	require.NotEqual(t, stays.Status.PodIP, goes.Status.PodIP)
	require.Len(t, cnitest.Calls(t, s.dataDir), 2)

	// The kubelet's process ends; the pod is removed meanwhile.
	f.k.Stop()
	zero := int64(0)
	require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", "goes", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))

	k2, err := New(Config{Client: f.env.Client, Clock: f.clk, Mode: runmode.Step, NodeName: "node-1", PodCIDR: "10.244.1.0/24", CNI: s.cfg})
	require.NoError(t, err)
	s2 := &stepper{t: t, ctx: context.Background(), clk: f.clk, loops: k2.Controllers}
	s2.settle()
	s2.until(f.clk.Now().Add(20 * time.Second))

	assert.Equal(t, stays.Status.PodIP, f.pod("stays").Status.PodIP)
	calls := cnitest.Calls(t, s.dataDir)
	require.Len(t, calls, 4, "%q", calls)
	var rest []string
	for _, c := range calls[2:] {
		rest = append(rest, strings.Join(strings.Fields(c)[:2], " "))
	}
	assert.ElementsMatch(t, []string{"CHECK " + sandboxID(stays), "DEL " + sandboxID(goes)}, rest)
	assert.NoFileExists(t, filepath.Join(s.dataDir, goes.Status.PodIP))
	assert.FileExists(t, filepath.Join(s.dataDir, stays.Status.PodIP))
	entries, err := os.ReadDir(filepath.Join(s.cfg.StateDir, "sandboxes"))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, sandboxID(stays)+".json", entries[0].Name())
}

// A plugin that never answers holds the pod worker until the sandbox's 4
// minutes are over on the kubelet's clock; the plugin is killed and the
// event says the CRI call ran out of time.
func TestCNIPluginThatHangsTimesOut(t *testing.T) {
	t.Parallel()
	s := newCNISetup(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.cfg.BinDirs[0], "hang"), []byte("#!/bin/sh\nexec sleep 600\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(s.cfg.ConfDir, "05-hang.conflist"),
		[]byte(`{"cniVersion": "1.0.0", "name": "hangnet", "plugins": [{"type": "hang"}]}`), 0o644))
	f := newFixture(t, Config{CNI: s.cfg})
	f.createPod("web", nil)
	start := f.clk.Now()
	// The pod's sync waits on the plugin: move the clock on from here
	// once the call's timer is set.
	moved := make(chan struct{})
	go func() {
		defer close(moved)
		for {
			if at, ok := f.clk.NextDeadline(); ok && at.Equal(start.Add(cni.SandboxTimeout)) {
				f.clk.SetTime(at)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	f.settle()
	<-moved

	pod := f.pod("web")
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	assert.Empty(t, pod.Status.PodIP)
	l, err := f.env.Client.Events().List(f.ctx, "default", client.ListOptions{FieldSelector: "involvedObject.name=web,reason=FailedCreatePodSandBox"})
	require.NoError(t, err)
	require.NotEmpty(t, l.Items, "%v", f.events("web"))
	assert.Equal(t, "Failed to create pod sandbox: rpc error: code = DeadlineExceeded desc = context deadline exceeded", l.Items[0].Message)
}
