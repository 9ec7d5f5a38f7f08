package kinds_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/store"
)

// sharedStore marks a store as written by several API servers, as
// etcdstore is.
type sharedStore struct{ store.Interface }

func (sharedStore) SharedBetweenServers() bool { return true }

// Two API servers over one shared store, each with its own allocator
// that read the Services once: without claims in the store the second
// would hand out the address the first just gave (its map is stale); with
// them every Service gets its own address, an address asked for that the
// other server holds is refused, and a delete through
// the other server frees it.
func TestClusterIPsAreClaimedInASharedStore(t *testing.T) {
	st := sharedStore{openStore(t)}
	a, b := newServer(t, st), newServer(t, st)
	seen := map[string]string{}
	for i, name := range []string{"b0", "a0", "b1", "a1", "b2"} {
		c := a
		if i%2 == 0 {
			c = b
		}
		s, err := c.Services().Create(bg, svc(name, ""))
		require.NoError(t, err)
		if prev, dup := seen[s.Spec.ClusterIP]; dup {
			t.Fatalf("%s and %s both got %s", prev, name, s.Spec.ClusterIP)
		}
		seen[s.Spec.ClusterIP] = name
	}
	a1, err := a.Services().Get(bg, "default", "a1")
	require.NoError(t, err)
	_, err = b.Services().Create(bg, svc("wants-a1s", a1.Spec.ClusterIP))
	require.Error(t, err)
	assert.True(t, api.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "failed to allocate IP "+a1.Spec.ClusterIP+": provided IP is already allocated")

	require.NoError(t, a.Services().Delete(bg, "default", "a1", nil))
	s, err := b.Services().Create(bg, svc("wants-a1s", a1.Spec.ClusterIP))
	require.NoError(t, err, "freed through a, whose claim b saw")
	assert.Equal(t, a1.Spec.ClusterIP, s.Spec.ClusterIP)
}

// The same for node ports: two servers with stale maps never give one
// port twice, and a port asked for that the other server gave is refused.
func TestNodePortsAreClaimedInASharedStore(t *testing.T) {
	st := sharedStore{openStore(t)}
	a, b := newServer(t, st), newServer(t, st)
	nodePort := func(name string, port int32) *corev1.Service {
		s := svc(name, "")
		s.Spec.Type = corev1.ServiceTypeNodePort
		s.Spec.Ports[0].NodePort = port
		return s
	}
	seen := map[int32]string{}
	for i, name := range []string{"b0", "a0", "b1", "a1", "b2"} {
		c := a
		if i%2 == 0 {
			c = b
		}
		s, err := c.Services().Create(bg, nodePort(name, 0))
		require.NoError(t, err)
		p := s.Spec.Ports[0].NodePort
		if prev, dup := seen[p]; dup {
			t.Fatalf("%s and %s both got node port %d", prev, name, p)
		}
		seen[p] = name
	}
	a1, err := a.Services().Get(bg, "default", "a1")
	require.NoError(t, err)
	_, err = b.Services().Create(bg, nodePort("wants-a1s", a1.Spec.Ports[0].NodePort))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "provided port is already allocated")
	require.NoError(t, a.Services().Delete(bg, "default", "a1", nil))
	_, err = b.Services().Create(bg, nodePort("wants-a1s", a1.Spec.Ports[0].NodePort))
	require.NoError(t, err, "freed through a")
}
