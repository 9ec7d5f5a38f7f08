package kubelet

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet/cni"
	"github.com/kubesim/kubesim/kubelet/cni/cnitest"
)

// pluginsVersion is the release of containernetworking/plugins whose
// bridge and host-local the root test installs.
const pluginsVersion = "v1.7.1"

// As root on Linux each sandbox is a real network namespace, so that the
// reference plugins work unchanged: bridge makes the pod's eth0 in it and
// host-local gives it an address of the configured subnet; after the pod
// is deleted DEL frees the address and the namespace is gone. Elsewhere
// CNI_NETNS names an empty placeholder file.
func TestCNIRealNetworkNamespaceAsRoot(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Logf("not root on Linux (GOOS=%s, euid=%d): no network namespace can be made, so only the placeholder is checked", runtime.GOOS, os.Geteuid())
		s := newCNISetup(t)
		f := newFixture(t, Config{CNI: s.cfg})
		f.createPod("web", nil)
		f.settle()
		pod := f.pod("web")
		require.Equal(t, corev1.PodRunning, pod.Status.Phase)
		st, err := os.Stat(filepath.Join(s.cfg.StateDir, "netns", sandboxID(pod)))
		require.NoError(t, err)
		assert.True(t, st.Mode().IsRegular() && st.Size() == 0, "the placeholder is an empty file")
		return
	}

	binDir := t.TempDir()
	install := exec.Command("go", "install",
		"github.com/containernetworking/plugins/plugins/main/bridge@"+pluginsVersion,
		"github.com/containernetworking/plugins/plugins/ipam/host-local@"+pluginsVersion)
	install.Env = append(os.Environ(), "GOBIN="+binDir, "GOWORK=off", "GOFLAGS=")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("installing bridge and host-local: %v\n%s", err, out)
	}

	// A bridge of its own name, removed at the end: the plugin makes it
	// on the host and DEL leaves it, as on a real node.
	suffix := make([]byte, 3)
	_, _ = rand.Read(suffix)
	bridge := "ksim" + hex.EncodeToString(suffix)
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "link", "del", bridge).CombinedOutput(); err != nil {
			t.Logf("removing bridge %s: %v %s", bridge, err, out)
		}
	})
	confDir, ipamDir := t.TempDir(), t.TempDir()
	conf := fmt.Sprintf(`{"cniVersion": "1.0.0", "name": "rootnet", "plugins": [{"type": "bridge", "bridge": %q,
		"isGateway": true, "ipMasq": false, "ipam": {"type": "host-local", "subnet": "10.241.17.0/28", "dataDir": %q}}]}`, bridge, ipamDir)
	require.NoError(t, os.WriteFile(filepath.Join(confDir, "10-bridge.conflist"), []byte(conf), 0o644))
	cfg := &cni.Config{ConfDir: confDir, BinDirs: []string{binDir}, StateDir: cnitest.StateDir(t)}

	f := newFixture(t, Config{CNI: cfg})
	f.createPod("web", nil)
	f.settle()
	f.until(f.clk.Now().Add(time.Second))
	pod := f.pod("web")
	require.Equal(t, corev1.PodRunning, pod.Status.Phase, "%+v", pod.Status)
	ip := net.ParseIP(pod.Status.PodIP)
	_, subnet, _ := net.ParseCIDR("10.241.17.0/28")
	require.True(t, ip != nil && subnet.Contains(ip), "pod IP %q", pod.Status.PodIP)

	path := filepath.Join(cfg.StateDir, "netns", sandboxID(pod))
	addrs, err := interfaceAddrs(path, cni.DefaultInterface)
	require.NoError(t, err)
	assert.Contains(t, addrs, pod.Status.PodIP+"/28", "eth0 in the pod's namespace holds its address")
	assert.FileExists(t, filepath.Join(ipamDir, "rootnet", pod.Status.PodIP), "host-local keeps the allocation")

	zero := int64(0)
	require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", "web", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	f.settle()
	assert.NoFileExists(t, filepath.Join(ipamDir, "rootnet", pod.Status.PodIP), "DEL freed the address")
	assert.NoFileExists(t, path, "the namespace is removed after DEL")
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	require.NoError(t, err)
	assert.NotContains(t, string(mounts), path, "the namespace is no longer pinned")
}

// interfaceAddrs are the addresses of the interface named ifname in the
// network namespace pinned at path, read from inside it.
func interfaceAddrs(path, ifname string) ([]string, error) {
	type answer struct {
		addrs []string
		err   error
	}
	done := make(chan answer, 1)
	go func() {
		// The thread enters the namespace; it goes back to the pool only
		// if it could come back out.
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer orig.Close()
		target, err := netns.GetFromPath(path)
		if err != nil {
			runtime.UnlockOSThread()
			done <- answer{err: err}
			return
		}
		defer target.Close()
		if err := netns.Set(target); err != nil {
			done <- answer{err: err}
			return
		}
		var a answer
		iface, err := net.InterfaceByName(ifname)
		if err == nil {
			var addrs []net.Addr
			addrs, err = iface.Addrs()
			for _, addr := range addrs {
				a.addrs = append(a.addrs, addr.String())
			}
		}
		a.err = err
		if netns.Set(orig) == nil {
			runtime.UnlockOSThread()
		}
		done <- a
	}()
	a := <-done
	return a.addrs, a.err
}
