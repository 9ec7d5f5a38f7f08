package volumedata

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A volume's data is real files in its directory, found again by a store
// opened later on the same directory (a kubesim restart), and gone with
// Delete; a volume of the same name and another uid starts empty.
func TestDiskVolumesOutliveTheStore(t *testing.T) {
	dir := t.TempDir()
	s, err := New(dir)
	require.NoError(t, err)
	v, err := s.Volume("pvc-1", "uid-1")
	require.NoError(t, err)
	require.NoError(t, v.MkdirAll("/html"))
	require.NoError(t, v.WriteFile("/html/index.html", []byte("web-0\n")))
	require.NoError(t, v.AppendFile("/html/index.html", []byte("again\n")))
	require.NoError(t, v.WriteFile("/log/a.txt", []byte("x")))
	data, err := os.ReadFile(filepath.Join(dir, "pvc-1_uid-1", "html", "index.html"))
	require.NoError(t, err)
	assert.Equal(t, "web-0\nagain\n", string(data))

	again, err := New(dir)
	require.NoError(t, err)
	v, err = again.Volume("pvc-1", "uid-1")
	require.NoError(t, err)
	got, ok := v.ReadFile("/html/index.html")
	require.True(t, ok)
	assert.Equal(t, "web-0\nagain\n", string(got))
	assert.True(t, v.IsDir("/html"))
	assert.False(t, v.IsDir("/html/index.html"))
	assert.Equal(t, []string{"html", "log"}, v.List("/"))
	_, ok = v.ReadFile("/html")
	assert.False(t, ok, "a directory is not a file")
	vols, err := again.Volumes()
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{"pvc-1", "uid-1"}}, vols)

	other, err := again.Volume("pvc-1", "uid-2")
	require.NoError(t, err)
	assert.Empty(t, other.List("/"))

	require.NoError(t, v.RemoveAll("/log"))
	assert.Equal(t, []string{"html"}, v.List("/"))
	assert.Error(t, v.RemoveAll("/"), "the volume's root is its mount point")

	require.NoError(t, again.Delete("pvc-1", "uid-1"))
	assert.NoDirExists(t, filepath.Join(dir, "pvc-1_uid-1"))
	v, err = again.Volume("pvc-1", "uid-1")
	require.NoError(t, err)
	_, ok = v.ReadFile("/html/index.html")
	assert.False(t, ok)
}

// Paths stay inside the volume: a clean absolute path cannot climb out.
func TestDiskVolumePathsStayInside(t *testing.T) {
	dir := t.TempDir()
	s, err := New(filepath.Join(dir, "volumes"))
	require.NoError(t, err)
	v, err := s.Volume("pv", "u")
	require.NoError(t, err)
	require.NoError(t, v.WriteFile("/../../escape", []byte("x")))
	assert.NoFileExists(t, filepath.Join(dir, "escape"))
	assert.FileExists(t, filepath.Join(dir, "volumes", "pv_u", "escape"))
	_, err = s.Volume("../x", "u")
	assert.Error(t, err)
	_, err = s.Volume("pv", "")
	assert.Error(t, err)
}

// Without a directory the volumes live in memory, as long as the store.
func TestMemoryStore(t *testing.T) {
	s, err := New("")
	require.NoError(t, err)
	v, err := s.Volume("pv", "u")
	require.NoError(t, err)
	require.NoError(t, v.WriteFile("/f", []byte("x")))
	same, err := s.Volume("pv", "u")
	require.NoError(t, err)
	got, ok := same.ReadFile("/f")
	require.True(t, ok)
	assert.Equal(t, "x", string(got))
	require.NoError(t, s.Delete("pv", "u"))
	v, err = s.Volume("pv", "u")
	require.NoError(t, err)
	_, ok = v.ReadFile("/f")
	assert.False(t, ok)
}
