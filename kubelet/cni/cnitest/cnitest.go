// Package cnitest builds the course's mock CNI plugin (examples/cni) for
// tests and writes its configuration, so that the kubelet's tests call a
// real plugin binary through libcni, as a node's runtime does.
package cnitest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/kubelet/cni"
)

// StateDir is a new node directory for a cni.Config whose network
// namespaces are released (cni.ReleaseNetNS) before it is removed: as
// root on Linux the sandboxes a test leaves are pinned namespaces, whose
// files cannot be removed.
func StateDir(t testing.TB) string {
	t.Helper()
	return releasedDir(t, ".")
}

// RootDir is a new kubelets' root directory (a node's sandboxes under
// ROOT/NODE/cni, as the cluster lays them out) released as StateDir's.
func RootDir(t testing.TB) string {
	t.Helper()
	return releasedDir(t, filepath.Join("*", "cni"))
}

// DataDir is a new data directory of `kubesim serve` (its nodes'
// sandboxes under DATA/kubelet/NODE/cni) released as StateDir's: create
// it before starting the server, whose stop then runs first. Its path is
// short (not under the test's name), so that the unix sockets a CSI
// driver makes under DATA/kubelet/NODE fit a socket address.
func DataDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "kubesim")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return released(t, dir, filepath.Join("kubelet", "*", "cni"))
}

// releasedDir is a new temporary directory whose node directories,
// matched by pattern under it, have their network namespaces released
// before it is removed.
func releasedDir(t testing.TB, pattern string) string {
	return released(t, t.TempDir(), pattern)
}

// released releases the network namespaces of dir's node directories
// before dir is removed: cleanups run last-registered first, this one
// before the removal registered with dir.
func released(t testing.TB, dir, pattern string) string {
	t.Cleanup(func() {
		nodes, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, node := range nodes {
			if err := cni.ReleaseNetNS(node); err != nil {
				t.Errorf("releasing the network namespaces of %s: %v", node, err)
			}
		}
	})
	return dir
}

// BuildMock builds examples/cni as the plugin "mock" into a new binary
// directory and returns the directory.
func BuildMock(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "..", "examples", "cni", "mock")
	dir := t.TempDir()
	if err := cni.BuildPlugin(context.Background(), src, filepath.Join(dir, "mock")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// WriteMockConf writes a configuration list of the mock plugin, named
// "mocknet", giving addresses of 10.22.0.0/16 and keeping them in dataDir.
func WriteMockConf(t testing.TB, confDir, name, dataDir string) {
	t.Helper()
	conf := `{"cniVersion": "1.0.0", "name": "mocknet", "plugins": [{"type": "mock", "subnet": "10.22.0.0/16", "dataDir": "` + dataDir + `"}]}`
	if err := os.WriteFile(filepath.Join(confDir, name), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Calls are the lines of the mock plugin's calls.log in dataDir: one per
// call, "COMMAND CONTAINERID netns=... ifname=... args=...".
func Calls(t testing.TB, dataDir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "calls.log"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}
