// Package deviceplugintest helps the tests of device plugins and of the
// kubelets they register with.
package deviceplugintest

import (
	"os"
	"testing"
)

// Dir is a new directory for a kubelet's and its plugins' sockets,
// removed at the test's end. It is made directly under the system's
// temporary directory: a unix socket's path may not be longer than 107
// bytes, and t.TempDir's, named after the test, can be.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}
