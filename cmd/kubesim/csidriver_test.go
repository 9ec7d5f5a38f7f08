package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const csiLabManifests = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: example
provisioner: example.csi.kubesim.io
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  storageClassName: example
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: app
spec:
  containers:
  - name: app
    image: busybox
    command: ["sh", "-c", "sleep 3600"]
    volumeMounts:
    - name: data
      mountPath: /data
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: data
`

// `kubesim csi-driver` registers with a node of `kubesim serve`; a claim
// of its class is provisioned by it, a pod mounts the volume, what the
// pod writes lands in the driver's volume directory, and deleting them
// gives the volume back.
func TestCSIDriverThroughKubectl(t *testing.T) {
	t.Parallel()
	// Short: the driver's sockets must fit a sockaddr_un.
	dataDir, err := os.MkdirTemp("", "csi")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dataDir) })
	s := startServer(t, dataDir, "--nodes", "1", "--stage-delay", "20ms")
	k := newKubectl(t, s)

	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr lockedBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"csi-driver", "--kubelet-dir", filepath.Join(dataDir, "kubelet", "node-1")}, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	k.eventually(func(out string) bool { return out == "example.csi.kubesim.io node-1" },
		"get", "csinode", "node-1", "-o", "jsonpath={.spec.drivers[0].name} {.spec.drivers[0].nodeID}")

	manifests := filepath.Join(t.TempDir(), "lab.yaml")
	require.NoError(t, os.WriteFile(manifests, []byte(csiLabManifests), 0o644))
	k.ok("apply", "-f", manifests)
	k.eventually(func(out string) bool { return out == "Running" }, "get", "pod", "app", "-o", "jsonpath={.status.phase}")
	pv := k.ok("get", "pvc", "data", "-o", "jsonpath={.spec.volumeName}")
	assert.Equal(t, "example.csi.kubesim.io", k.ok("get", "pv", pv, "-o", "jsonpath={.spec.csi.driver}"))
	assert.Equal(t, "true", k.ok("get", "volumeattachment", "-o", "jsonpath={.items[0].status.attached}"))
	k.ok("exec", "app", "--", "sh", "-c", "echo kept > /data/note")
	data, err := os.ReadFile(filepath.Join(dataDir, "kubelet", "node-1", "plugins", "example.csi.kubesim.io", "volumes", pv, "data", "note"))
	require.NoError(t, err)
	assert.Equal(t, "kept\n", string(data))

	k.ok("delete", "pod", "app")
	k.ok("delete", "pvc", "data")
	k.eventually(func(out string) bool { return out == "" }, "get", "pv", "-o", "name")
	assert.NoDirExists(t, filepath.Join(dataDir, "kubelet", "node-1", "plugins", "example.csi.kubesim.io", "volumes", pv))
	// The driver's log has the calls in the order of the volume's life.
	log := stderr.String()
	last := -1
	for _, m := range []string{"CreateVolume", "ControllerPublishVolume", "NodeStageVolume", "NodePublishVolume",
		"NodeUnpublishVolume", "NodeUnstageVolume", "ControllerUnpublishVolume", "DeleteVolume"} {
		i := strings.Index(log, "method="+m+" ")
		require.Greater(t, i, last, "%s after the calls before it:\n%s", m, log)
		last = i
	}
}
