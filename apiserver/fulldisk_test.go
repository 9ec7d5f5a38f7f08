package apiserver_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// smallDisk mounts a 4 MiB tmpfs for the test, or skips it, saying why,
// where mounting is not allowed (not root, no mount privilege).
func smallDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v: %s); the full-disk test needs it", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}

func openServer(t *testing.T, dir string) (*boltstore.Store, *client.Client) {
	t.Helper()
	st, h := openServerHandler(t, dir)
	return st, client.NewInProcess(h, "test")
}

// openServerHandler opens the store in dir and an API server over it.
func openServerHandler(t *testing.T, dir string) (*boltstore.Store, http.Handler) {
	t.Helper()
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(dir, boltstore.FileName)})
	require.NoError(t, err)
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clock.NewFake(apiservertest.Start),
		Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin()})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(context.Background()))
	return st, srv.Handler()
}

// TestFullDiskFailsWritesKeepsReads: when the disk is full a write is a 500
// Status naming the cause, nothing half-written; reads go on; once space
// is back writes work again, and everything acknowledged is there after a
// restart.
func TestFullDiskFailsWritesKeepsReads(t *testing.T) {
	dir := smallDisk(t)
	st, cl := openServer(t, dir)
	ctx := context.Background()
	cm := func(i int) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i), Namespace: "default"},
			Data: map[string]string{"v": strings.Repeat("x", 64*1024)}}
	}

	// Fill the disk.
	filler, err := os.Create(filepath.Join(dir, "filler"))
	require.NoError(t, err)
	chunk := make([]byte, 64*1024)
	for {
		if _, err := filler.Write(chunk); err != nil {
			require.True(t, errors.Is(err, syscall.ENOSPC), "%v", err)
			break
		}
	}
	require.NoError(t, filler.Close())

	// bbolt may still have free pages in its file: write until it fails.
	var acked []string
	var werr error
	for i := 0; i < 200 && werr == nil; i++ {
		var obj *corev1.ConfigMap
		if obj, werr = cl.ConfigMaps().Create(ctx, cm(i)); werr == nil {
			acked = append(acked, obj.Name)
		}
	}
	require.Error(t, werr, "a full disk fails writes")
	var se *api.StatusError
	require.ErrorAs(t, werr, &se)
	assert.Equal(t, int32(500), se.Status().Code)
	assert.Equal(t, metav1.StatusReasonInternalError, se.Status().Reason)
	assert.Contains(t, se.Status().Message, "no space left on device")

	// Reads keep working.
	_, err = cl.Namespaces().Get(ctx, "", "default")
	require.NoError(t, err)
	list, err := cl.ConfigMaps().List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, list.Items, len(acked))

	// Space back: writes work again.
	require.NoError(t, os.Remove(filepath.Join(dir, "filler")))
	_, err = cl.ConfigMaps().Create(ctx, cm(1000))
	require.NoError(t, err)
	acked = append(acked, "c1000")

	// Nothing acknowledged was lost.
	require.NoError(t, st.Close())
	st, cl = openServer(t, dir)
	defer st.Close()
	for _, name := range acked {
		_, err := cl.ConfigMaps().Get(ctx, "default", name)
		require.NoError(t, err, name)
	}
}

// TestRestartOnAFullDisk: the disk fills under load, so checkpoints fail
// and the write-ahead log holds acknowledged writes the bbolt file does
// not; committing them needs space. A restart on the still-full disk
// serves them (it used to refuse to start until space was freed by hand),
// and once space is back everything reaches the file.
func TestRestartOnAFullDisk(t *testing.T) {
	dir := smallDisk(t)
	st, cl := openServer(t, dir)
	ctx := context.Background()
	cm := func(i int) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i), Namespace: "default"},
			Data: map[string]string{"v": strings.Repeat("x", 48*1024)}}
	}
	_, err := cl.ConfigMaps().Create(ctx, cm(0)) // the log has its first chunk
	require.NoError(t, err)
	acked := []string{"c0"}

	filler, err := os.Create(filepath.Join(dir, "filler"))
	require.NoError(t, err)
	chunk := make([]byte, 64*1024)
	for {
		if _, err := filler.Write(chunk); err != nil {
			require.True(t, errors.Is(err, syscall.ENOSPC), "%v", err)
			break
		}
	}
	require.NoError(t, filler.Close())
	// Writes go on into the log's chunk until it is full too.
	var werr error
	for i := 1; i < 200 && werr == nil; i++ {
		var obj *corev1.ConfigMap
		if obj, werr = cl.ConfigMaps().Create(ctx, cm(i)); werr == nil {
			acked = append(acked, obj.Name)
		}
	}
	require.Error(t, werr)
	require.Greater(t, len(acked), 3, "some writes were acknowledged from the log alone")
	assert.ErrorContains(t, st.Close(), "no space left on device", "the last checkpoint fails too")

	st, cl = openServer(t, dir)
	for _, name := range acked {
		_, err := cl.ConfigMaps().Get(ctx, "default", name)
		require.NoError(t, err, "%s: served from the log", name)
	}
	_, err = cl.ConfigMaps().Create(ctx, cm(1000))
	var se *api.StatusError
	require.ErrorAs(t, err, &se, "the log is full: writes fail")
	assert.Equal(t, int32(500), se.Status().Code)
	assert.Contains(t, se.Status().Message, "no space left on device")
	assert.Contains(t, se.Status().Message, "the disk holding "+dir+" is full: writes fail until space is freed there; reads go on")

	// Space back: the checkpoint, retried, goes through.
	require.NoError(t, os.Remove(filepath.Join(dir, "filler")))
	_, err = cl.ConfigMaps().Create(ctx, cm(1001))
	require.NoError(t, err)
	acked = append(acked, "c1001")
	require.NoError(t, st.Close(), "everything reached the file")
	st, cl = openServer(t, dir)
	defer st.Close()
	for _, name := range acked {
		_, err := cl.ConfigMaps().Get(ctx, "default", name)
		require.NoError(t, err, name)
	}
}
