package apiserver_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
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
		_, err := cl.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
			Data: map[string]string{"marker": "value-of-" + name}})
		require.NoError(t, err)
	}
	require.NoError(t, st.Close())

	path := filepath.Join(dir, "kubesim.db")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	i := bytes.Index(data, []byte("value-of-bravo-damaged"))
	require.Positive(t, i)
	data[i+3] ^= 0x01 // still valid JSON: only a checksum can tell
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
	require.NoError(t, cl.ConfigMaps().Delete(ctx, "default", "bravo-damaged", &api.DeleteOptions{IgnoreStoreReadErrorWithClusterBreakingPotential: &yes}))
	_, err = cl.ConfigMaps().Get(ctx, "default", "bravo-damaged")
	assert.True(t, api.IsNotFound(err), "%v", err)
	// And the name can be used again.
	_, err = cl.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "bravo-damaged", Namespace: "default"}})
	require.NoError(t, err)
}

// The warning reaches the client of a list over HTTP.
func TestListWarnsAboutTheDamagedKey(t *testing.T) {
	dir := t.TempDir()
	st, cl := openServer(t, dir)
	_, err := cl.ConfigMaps().Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "x", Namespace: "default"},
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
