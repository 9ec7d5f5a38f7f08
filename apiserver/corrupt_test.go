package apiserver_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/store/boltstore"
)

// TestFlippedByteInTheFile: one byte of one stored object flipped on disk
// (bbolt does not checksum its data pages; kubesim's records do). The
// server still starts; a list returns the other objects and names the
// damaged key in a warning; an admin deletes it.
func TestFlippedByteInTheFile(t *testing.T) {
	dir := t.TempDir()
	st, cl := openServer(t, dir)
	ctx := context.Background()
	for _, name := range []string{"alpha", "bravo-damaged", "charlie"} {
		_, err := cl.ConfigMaps().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Data: map[string]string{"marker": "value-of-" + name}})
		require.NoError(t, err)
	}
	require.NoError(t, st.Close())

	path := filepath.Join(dir, "kubesim.db")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	// Every copy: bbolt may leave stale copies of a page in freed pages,
	// and which copy comes first depends on how much else was written.
	marker := []byte("value-of-bravo-damaged")
	flipped := 0
	for off := 0; ; {
		i := bytes.Index(data[off:], marker)
		if i < 0 {
			break
		}
		data[off+i+3] ^= 0x01 // still valid JSON: only a checksum can tell
		off += i + len(marker)
		flipped++
	}
	require.Positive(t, flipped)
	require.NoError(t, os.WriteFile(path, data, 0o600))

	st, cl = openServer(t, dir)
	defer st.Close()
	list, err := cl.ConfigMaps().List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	var names []string
	for _, cm := range list.Items {
		names = append(names, cm.Name)
	}
	assert.Equal(t, []string{"alpha", "charlie"}, names)

	_, err = cl.ConfigMaps().Get(ctx, "default", "bravo-damaged")
	var se *api.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, int32(500), se.Status().Code)
	assert.Contains(t, se.Status().Message, "corrupt object: key /registry/core/configmaps/default/bravo-damaged")

	yes := true
	require.NoError(t, cl.ConfigMaps().Delete(ctx, "default", "bravo-damaged", &metav1.DeleteOptions{IgnoreStoreReadErrorWithClusterBreakingPotential: &yes}))
	_, err = cl.ConfigMaps().Get(ctx, "default", "bravo-damaged")
	assert.True(t, api.IsNotFound(err), "%v", err)
	// And the name can be used again.
	_, err = cl.ConfigMaps().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bravo-damaged", Namespace: "default"}})
	require.NoError(t, err)
}

// The warning reaches the client of a list over HTTP.
func TestListWarnsAboutTheDamagedKey(t *testing.T) {
	dir := t.TempDir()
	st, cl := openServer(t, dir)
	_, err := cl.ConfigMaps().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "default"},
		Data: map[string]string{"k": "find-me"}})
	require.NoError(t, err)
	require.NoError(t, st.Close())
	path := filepath.Join(dir, "kubesim.db")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	i := bytes.Index(data, []byte("find-me"))
	data[i] ^= 0x20
	require.NoError(t, os.WriteFile(path, data, 0o600))

	st, srv := openServerHandler(t, dir)
	defer st.Close()
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/configmaps", nil))
	assert.Equal(t, 200, rec.Code)
	assert.Contains(t, rec.Header().Get("Warning"), "corrupt object: key /registry/core/configmaps/default/x")
	assert.Contains(t, rec.Body.String(), `"items":[]`)
}

// TestDamagedKeyWarningIsBounded: a damaged length in a leaf page makes
// a key swallow 13 KB of the page's bytes (its value). The file is still
// sound as a tree, so the store opens; the list leaves the key out and
// names it in a Warning header, escaped and bounded, not 13 KB of raw
// bytes.
func TestDamagedKeyWarningIsBounded(t *testing.T) {
	dir := t.TempDir()
	st, cl := openServer(t, dir)
	ctx := context.Background()
	for name, size := range map[string]int{"a-first": 10, "big": 16 * 1024, "c-last": 10} {
		_, err := cl.ConfigMaps().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Data: map[string]string{"v": strings.Repeat("\x01z", size/2)}})
		require.NoError(t, err)
	}
	require.NoError(t, st.Close())

	// In every leaf page that holds the key (bbolt may keep stale copies
	// in free pages), grow the key by 13,000 bytes taken from its value.
	// bbolt's layout: page header id u64 | flags u16 | count u16 |
	// overflow u32; leaf element flags u32 | pos u32 | ksize u32 | vsize u32,
	// the key pos bytes after its element.
	path := filepath.Join(dir, boltstore.FileName)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	const pageSize = 4096
	key := []byte("/registry/core/configmaps/default/big")
	ne := binary.NativeEndian
	grown := 0
	for p := 2 * pageSize; p+pageSize <= len(data); p += pageSize {
		if ne.Uint16(data[p+8:]) != 0x02 {
			continue
		}
		for i := range int(ne.Uint16(data[p+10:])) {
			e := data[p+16+16*i:]
			pos, ksize, vsize := ne.Uint32(e[4:]), ne.Uint32(e[8:]), ne.Uint32(e[12:])
			at := p + 16 + 16*i + int(pos)
			if at+int(ksize) <= len(data) && bytes.Equal(data[at:at+int(ksize)], key) && vsize > 14000 {
				ne.PutUint32(e[8:], ksize+13000)
				ne.PutUint32(e[12:], vsize-13000)
				grown++
			}
		}
	}
	require.Positive(t, grown)
	require.NoError(t, os.WriteFile(path, data, 0o600))

	st, srv := openServerHandler(t, dir)
	defer st.Close()
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/configmaps", nil))
	require.Equal(t, 200, rec.Code)
	assert.Contains(t, rec.Body.String(), `"name":"a-first"`)
	assert.Contains(t, rec.Body.String(), `"name":"c-last"`)
	warnings := strings.Join(rec.Header().Values("Warning"), "\n")
	assert.Less(t, len(warnings), 1024, "bounded: %d bytes", len(warnings))
	assert.Contains(t, warnings, `corrupt object: key \"/registry/core/configmaps/default/big`)
	assert.Contains(t, warnings, "(13037 bytes)")
	for _, c := range []byte(warnings) {
		assert.True(t, c >= 0x20 && c < 0x7f || c >= 0x80 || c == '\n', "escaped: %q", c)
	}
}
