package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnsureProxyTokenIsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d", ProxyTokenFileName)
	a, err := EnsureProxyToken(path)
	require.NoError(t, err)
	assert.Len(t, a, 32)
	b, err := EnsureProxyToken(path)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}
