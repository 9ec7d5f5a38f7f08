package clientgo

import (
	"os"
	"testing"
)

// TestMain turns client-go's WatchListClient feature gate on through its
// environment variable before any client reads it. It is on by default
// in client-go v0.37; saying so keeps these tests about watch-list even
// if a later default changes.
func TestMain(m *testing.M) {
	if err := os.Setenv("KUBE_FEATURE_WatchListClient", "true"); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}
