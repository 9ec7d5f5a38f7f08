package boltstore

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/storetest"
)

func openTest(t testing.TB, dir string, w store.BroadcasterConfig) store.Interface {
	s, err := Open(Config{Path: filepath.Join(dir, FileName), Watch: w})
	require.NoError(t, err)
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Options{Open: openTest, Persistent: true})
}
