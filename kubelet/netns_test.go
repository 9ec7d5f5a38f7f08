package kubelet

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/kubelet/cni"
	"github.com/kubesim/kubesim/kubelet/cni/cnitest"
	"github.com/kubesim/kubesim/kubelet/podnet"
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

	cfg, ipamDir := rootBridgeCNI(t, "10.241.17.0/28")
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

// rootBridgeCNI installs containernetworking/plugins' bridge and
// host-local and configures them for subnet, on a bridge of the test's
// own, removed at its end; ipamDir is host-local's data directory. For
// root on Linux only: the plugins work in real network namespaces.
func rootBridgeCNI(t *testing.T, subnet string) (cfg *cni.Config, ipamDir string) {
	t.Helper()
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
	confDir := t.TempDir()
	ipamDir = t.TempDir()
	conf := fmt.Sprintf(`{"cniVersion": "1.0.0", "name": "rootnet", "plugins": [{"type": "bridge", "bridge": %q,
		"isGateway": true, "ipMasq": false, "ipam": {"type": "host-local", "subnet": %q, "dataDir": %q}}]}`, bridge, subnet, ipamDir)
	require.NoError(t, os.WriteFile(filepath.Join(confDir, "10-bridge.conflist"), []byte(conf), 0o644))
	cfg = &cni.Config{ConfDir: confDir, BinDirs: []string{binDir}, StateDir: cnitest.StateDir(t)}
	return cfg, ipamDir
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

// helloServer is the source of a tiny HTTP server, the local image of
// the tests below: it listens on its first argument, says so, and
// answers every request with its second argument and the address the
// request came in on.
const helloServer = `package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("listening on", ln.Addr())
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, os.Args[2], r.Context().Value(http.LocalAddrContextKey))
	}))
}
`

// buildHelloServer builds helloServer and returns the binary's path.
func buildHelloServer(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(helloServer), 0o644))
	bin := filepath.Join(dir, "hello")
	build := exec.Command("go", "build", "-o", bin, "main.go")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the hello server: %v\n%s", err, out)
	}
	return bin
}

// getVia asks for / over a connection conn made, and returns the body.
func getVia(t *testing.T, conn net.Conn) string {
	t.Helper()
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	_, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

// As root on Linux a local image's process is started inside its pod's
// network namespace: it listens at the pod's address, which the host
// reaches through the bridge, and not on the host's own 127.0.0.1;
// port-forward and the pod network reach it there; the pod is ready as
// its readiness probe says (a hostNetwork pod's process stays on the
// host's network); deleting the pod stops the process and DEL
// frees the address. Elsewhere no namespace can be made: the process
// shares the host's network, as with the node's simulated allocator, and
// port-forward reaches it on the host's loopback.
func TestLocalImageInPodNetworkNamespaceAsRoot(t *testing.T) {
	bin := buildHelloServer(t)
	marker := "hello-" + rand.Text()[:8]
	local := &LocalImages{Paths: map[string]string{"local/hello:dev": bin}, Dir: t.TempDir()}
	mkPod := func(f *fixture, listen string) {
		f.createPod("hello", func(p *corev1.Pod) {
			p.Spec.Containers = []corev1.Container{{Name: "main", Image: "local/hello:dev", Args: []string{listen, marker},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8080)}}}}}
		})
		f.settle()
		f.until(f.clk.Now().Add(5 * time.Second))
	}

	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Logf("not root on Linux (GOOS=%s, euid=%d): no network namespace can be made, so the process on the host's network is checked", runtime.GOOS, os.Geteuid())
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		require.NoError(t, err)
		port := ln.Addr().(*net.TCPAddr).Port
		require.NoError(t, ln.Close()) // a free port, for the process
		f := newFixture(t, Config{LocalImages: local})
		t.Cleanup(f.k.StopAllLocal)
		mkPod(f, fmt.Sprintf("127.0.0.1:%d", port))
		lp := f.run("hello")
		waitLine(t, lp, "listening on")
		assert.Empty(t, lp.podIP, "the process shares the host's network")
		target, err := f.k.PortForwardTarget("default", "hello")
		require.NoError(t, err)
		conn, err := target.Dial(f.ctx, uint16(port))
		require.NoError(t, err)
		assert.Contains(t, getVia(t, conn), marker+" 127.0.0.1:")
		return
	}

	cfg, ipamDir := rootBridgeCNI(t, "10.241.18.0/28")
	network := podnet.New()
	f := newFixture(t, Config{CNI: cfg, Network: network, LocalImages: local})
	t.Cleanup(f.k.StopAllLocal)
	mkPod(f, ":8080")
	lp := f.run("hello")
	waitLine(t, lp, "listening on")
	pod := f.pod("hello")
	require.Equal(t, corev1.PodRunning, pod.Status.Phase, "%+v", pod.Status)
	assert.True(t, isReady(pod), "the readiness probe passed: %+v", pod.Status.Conditions)
	ip := pod.Status.PodIP
	assert.Equal(t, ip, lp.podIP)
	addr := net.JoinHostPort(ip, "8080")

	// From the host, through the bridge.
	conn, err := net.DialTimeout("tcp4", addr, 30*time.Second)
	require.NoError(t, err, "the process answers at its pod IP")
	assert.Equal(t, marker+" "+addr+"\n", getVia(t, conn))
	// Not on the host's loopback: that is the namespace's own.
	if conn, err := net.DialTimeout("tcp4", "127.0.0.1:8080", 5*time.Second); err == nil {
		assert.NotContains(t, getVia(t, conn), marker, "the process does not listen on the host's 127.0.0.1")
	}
	// kubectl port-forward: localhost inside the pod's namespace.
	target, err := f.k.PortForwardTarget("default", "hello")
	require.NoError(t, err)
	conn, err = target.Dial(f.ctx, 8080)
	require.NoError(t, err)
	assert.Equal(t, marker+" "+addr+"\n", getVia(t, conn))
	// The pod network (a container's wget, a Service's endpoint).
	conn, err = network.DialContext(f.ctx, "tcp", addr)
	require.NoError(t, err)
	assert.Equal(t, marker+" "+addr+"\n", getVia(t, conn))

	// A hostNetwork pod's process stays on the host's network.
	f.createPod("host", func(p *corev1.Pod) {
		p.Spec.HostNetwork = true
		p.Spec.Containers = []corev1.Container{{Name: "main", Image: "local/hello:dev", Args: []string{"127.0.0.1:0", marker}}}
	})
	f.settle()
	hostRun := f.run("host")
	waitLine(t, hostRun, "listening on 127.0.0.1:")
	assert.Empty(t, hostRun.podIP, "a hostNetwork pod shares the host's network")
	lines, _, _ := hostRun.proc.Lines()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(lines[0].Text, "listening on "))
	conn, err = net.DialTimeout("tcp4", "127.0.0.1:"+port, 30*time.Second)
	require.NoError(t, err, "the hostNetwork pod's process answers on the host's loopback")
	assert.Contains(t, getVia(t, conn), marker)

	path := filepath.Join(cfg.StateDir, "netns", sandboxID(pod))
	require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", "hello", nil))
	f.settle()
	f.waitEnded(lp)
	code, _, _ := lp.proc.Exited()
	assert.Equal(t, 143, code, "SIGTERM ended it")
	f.settle()
	_, err = f.env.Client.Pods().Get(f.ctx, "default", "hello")
	require.True(t, api.IsNotFound(err), "the pod is removed once its process has ended: %v", err)
	assert.NoFileExists(t, filepath.Join(ipamDir, "rootnet", ip), "DEL freed the address")
	assert.NoFileExists(t, path, "the namespace is removed after DEL")
}
