package shell

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clock"
)

// inMounts runs a script with a writable layer, vol mounted at /data and
// the same volume's part below "logs" at /var/log/app (a subPath), and
// ro mounted read-only at /ro.
func inMounts(t *testing.T, layer *Layer, vol, ro Volume, stdin io.Reader, script string) (string, string, int) {
	t.Helper()
	env := testEnv()
	env.Layer = layer
	env.Dirs = []string{"/data", "/var/log/app", "/ro"}
	env.Mounts = []Mount{{Path: "/data", Volume: vol}, {Path: "/var/log/app", Volume: SubVolume(vol, "logs")}, {Path: "/ro", Volume: ro}}
	env.ReadOnly = []string{"/ro"}
	var out, errb bytes.Buffer
	code := Command{Args: []string{"sh", "-c", script}, Env: env, Stdio: Stdio{Stdin: stdin, Stdout: &out, Stderr: &errb},
		Clock: clock.NewFake(time.Unix(0, 0))}.Run(context.Background())
	return out.String(), errb.String(), code
}

// What is written under a mount point goes to the volume, not the
// container's layer: a new container (a new layer) mounting the same
// volume finds it, and a file outside the mount is gone with the layer.
func TestWritesUnderAMountGoToTheVolume(t *testing.T) {
	vol, ro := NewMemoryVolume(), NewMemoryVolume()
	require.NoError(t, ro.WriteFile("/seed", []byte("from before\n")))
	first := NewLayer()
	out, errOut, code := inMounts(t, first, vol, ro, nil,
		`echo hello > /data/index.html; echo again >> /data/index.html; mkdir -p /data/a/b; touch /data/a/b/c; echo tmp > /tmp/scratch; echo line >> /var/log/app/app.log; cat /data/index.html`)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "hello\nagain\n", out)
	data, ok := vol.ReadFile("/index.html")
	require.True(t, ok)
	assert.Equal(t, "hello\nagain\n", string(data))
	assert.True(t, vol.IsDir("/a/b"))
	data, ok = vol.ReadFile("/logs/app.log")
	require.True(t, ok, "the subPath's files are the volume's, below the subPath")
	assert.Equal(t, "line\n", string(data))
	_, inLayer := first.file("/data/index.html")
	assert.False(t, inLayer)

	out, errOut, code = inMounts(t, NewLayer(), vol, ro, nil, `cat /data/index.html; ls /data; ls /data/logs; cat /tmp/scratch`)
	assert.Equal(t, 1, code)
	assert.Equal(t, "hello\nagain\na\nindex.html\nlogs\napp.log\n", out)
	assert.Equal(t, "cat: can't open '/tmp/scratch': No such file or directory\n", errOut, "the old layer went with its container")
}

// rm removes from the volume, never the mount point itself; a read-only
// mount refuses writes; tar (kubectl cp) unpacks into the volume.
func TestVolumeRemoveReadOnlyAndTar(t *testing.T) {
	vol, ro := NewMemoryVolume(), NewMemoryVolume()
	require.NoError(t, ro.WriteFile("/seed", []byte("from before\n")))
	_, errOut, code := inMounts(t, NewLayer(), vol, ro, nil, `echo x > /data/f; rm /data/f; rm -rf /data`)
	assert.Equal(t, 1, code)
	assert.Equal(t, "rm: can't remove '/data': Resource busy\n", errOut)
	_, ok := vol.ReadFile("/f")
	assert.False(t, ok)

	out, errOut, code := inMounts(t, NewLayer(), vol, ro, nil, `cat /ro/seed; echo no > /ro/seed`)
	assert.NotZero(t, code)
	assert.Equal(t, "from before\n", out)
	assert.Equal(t, "sh: can't create /ro/seed: Read-only file system\n", errOut)

	_, errOut, code = inMounts(t, NewLayer(), vol, ro, tarOf(t, [2]string{"site/", ""}, [2]string{"site/index.html", "<h1>hi</h1>"}), `tar xf - -C /data`)
	require.Equal(t, 0, code, errOut)
	data, ok := vol.ReadFile("/site/index.html")
	require.True(t, ok)
	assert.Equal(t, "<h1>hi</h1>", string(data))
}
