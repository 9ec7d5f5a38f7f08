package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// volumePod mounts the claim "data" at /data and an emptyDir at /cache.
func volumePod(name string) string {
	return `apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
spec:
  containers:
  - name: app
    image: busybox
    command: ["sleep", "infinity"]
    volumeMounts:
    - {name: data, mountPath: /data}
    - {name: cache, mountPath: /cache}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: data}
  - name: cache
    emptyDir: {}
`
}

const dataClaim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`

// Volumes keep what is written to them, as Kubernetes' do, through the
// real kubectl: a file written by kubectl exec or kubectl cp into a
// claim's mount is there for the next pod that mounts the claim; a file
// in an emptyDir goes with its pod; and once the claim is deleted its
// volume is reclaimed, and a new claim of the name starts empty.
func TestVolumesKeepWhatIsWrittenThroughKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	apply := func(manifest string) {
		t.Helper()
		_, errOut, code := k.runIn(manifest, "apply", "-f", "-")
		require.Equal(t, 0, code, errOut)
	}
	apply(dataClaim)
	apply(volumePod("writer"))
	k.ok("wait", "--for=condition=Ready", "pod/writer", "--timeout=60s")
	k.ok("exec", "writer", "--", "sh", "-c", "echo kept > /data/note; echo scratch > /cache/tmp")
	local := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, os.WriteFile(local, []byte("<h1>copied</h1>\n"), 0o644))
	k.ok("cp", local, "writer:/data/page.html")
	assert.Equal(t, "kept\nscratch\n", k.ok("exec", "writer", "--", "cat", "/data/note", "/cache/tmp"))

	k.ok("delete", "pod", "writer")
	apply(volumePod("reader"))
	k.ok("wait", "--for=condition=Ready", "pod/reader", "--timeout=60s")
	assert.Equal(t, "kept\n<h1>copied</h1>\n", k.ok("exec", "reader", "--", "cat", "/data/note", "/data/page.html"))
	assert.Equal(t, "note\npage.html\n", k.ok("exec", "reader", "--", "ls", "/data"))
	_, errOut, code := k.runIn("", "exec", "reader", "--", "cat", "/cache/tmp")
	assert.Equal(t, 1, code)
	assert.Equal(t, "cat: can't open '/cache/tmp': No such file or directory\ncommand terminated with exit code 1\n", errOut, "an emptyDir is its pod's")

	// The claim goes: its volume is reclaimed (Delete), its data with it.
	pv := k.jsonpath("pvc/data", "{.spec.volumeName}")
	k.ok("delete", "pod", "reader")
	k.ok("delete", "pvc", "data")
	k.eventually(func(out string) bool { return !strings.Contains(out, pv) }, "get", "pv", "-o", "name")
	// The PV controller removes the data once the volume object is gone.
	require.Eventually(t, func() bool {
		entries, err := os.ReadDir(filepath.Join(s.dataDir, "volumes"))
		require.NoError(t, err)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), pv+"_") {
				return false
			}
		}
		return true
	}, 30*time.Second, 20*time.Millisecond, "the volume's data goes with it")
	apply(dataClaim)
	apply(volumePod("fresh"))
	k.ok("wait", "--for=condition=Ready", "pod/fresh", "--timeout=60s")
	assert.Equal(t, "", k.ok("exec", "fresh", "--", "ls", "/data"))
}
