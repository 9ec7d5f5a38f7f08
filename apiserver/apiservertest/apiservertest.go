// Package apiservertest starts a real kubesim API server (bbolt store in a
// temporary directory, every built-in kind) inside a test, reachable
// through the in-process transport. Control-loop tests use it instead of
// mocks, as the design asks: the real store, the real handlers.
package apiservertest

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// Env is a running API server and a client for it.
type Env struct {
	Server *apiserver.Server
	Client *client.Client
	Clock  *clock.Fake
}

// Start is the fixed start time of the fake clock.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// New starts a server on a fake clock with a seeded random source; the
// system namespaces exist. It is stopped when the test ends.
func New(t testing.TB) *Env {
	t.Helper()
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clk := clock.NewFake(Start)
	srv, err := apiserver.New(apiserver.Config{
		Storage: st, Clock: clk, Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &Env{Server: srv, Client: client.NewInProcess(srv.Handler(), "test"), Clock: clk}
}

// ListableResources is what the server serves that can be listed and
// watched, as the garbage collector and the namespace controller discover
// it (create-only resources such as the access reviews are left out, as
// the real controllers filter on the list and watch verbs).
func (e *Env) ListableResources() []client.ResourceInfo {
	var out []client.ResourceInfo
	for _, r := range e.Server.Resources() {
		if r.CreateOnly != nil {
			continue
		}
		out = append(out, client.ResourceInfo{Group: r.Group, Version: r.Version, Resource: r.Name, Namespaced: r.Namespaced})
	}
	return out
}
