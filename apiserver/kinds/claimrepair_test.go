package kinds_test

import (
	"bytes"
	"log/slog"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/store"
)

// The repair loop over a shared store: a claim no Service holds (its
// server crashed between the claim and the Service's write) is flagged,
// kept for two more runs, then freed, after which the address can be
// given again; a Service whose claim is missing gets it back at once; the
// claims of live Services are never touched.
func TestClaimRepairFreesLeaksAndRestoresMissingClaims(t *testing.T) {
	st := sharedStore{openStore(t)}
	cl := newServer(t, st)
	live, err := cl.Services().Create(bg, svc("live", ""))
	require.NoError(t, err)
	np := svc("np", "")
	np.Spec.Type = corev1.ServiceTypeNodePort
	np, err = cl.Services().Create(bg, np)
	require.NoError(t, err)
	port := np.Spec.Ports[0].NodePort

	// A crash after claiming: two claims without a Service.
	_, err = st.Create(bg, "/registry/ranges/serviceips/10.96.0.77", []byte("default/ghost"), store.CreateOptions{})
	require.NoError(t, err)
	_, err = st.Create(bg, "/registry/ranges/servicenodeports/30077", []byte("default/ghost"), store.CreateOptions{})
	require.NoError(t, err)
	// A Service whose claim is gone (stored by a kubesim without claims).
	_, err = st.Delete(bg, "/registry/ranges/serviceips/"+np.Spec.ClusterIP, store.Preconditions{})
	require.NoError(t, err)

	var logs bytes.Buffer
	r := kinds.NewClaimRepair(st, slog.New(slog.NewTextHandler(&logs, nil)))
	exists := func(key string) bool {
		_, err := st.Get(bg, key)
		return err == nil
	}
	require.NoError(t, r.RunOnce(bg))
	assert.True(t, exists("/registry/ranges/serviceips/"+np.Spec.ClusterIP), "the missing claim is made again")
	assert.Contains(t, logs.String(), "the cluster IP "+np.Spec.ClusterIP+" for service np/default is not allocated; repairing")
	assert.Contains(t, logs.String(), "the cluster IP 10.96.0.77 may have leaked: flagging for later clean up")
	assert.Contains(t, logs.String(), "the node port 30077 may have leaked: flagging for later clean up")

	ghost := svc("ghost", "10.96.0.77")
	_, err = cl.Services().Create(bg, ghost)
	require.Error(t, err, "still claimed")
	assert.Contains(t, err.Error(), "provided IP is already allocated")

	require.NoError(t, r.RunOnce(bg))
	assert.True(t, exists("/registry/ranges/serviceips/10.96.0.77"), "two runs: kept, a Service may be on its way")
	require.NoError(t, r.RunOnce(bg))
	assert.False(t, exists("/registry/ranges/serviceips/10.96.0.77"), "three runs: freed")
	assert.False(t, exists("/registry/ranges/servicenodeports/30077"))
	assert.Contains(t, logs.String(), "the cluster IP 10.96.0.77 appears to have leaked: cleaning up")
	assert.Contains(t, logs.String(), "the node port 30077 appears to have leaked: cleaning up")
	for _, key := range []string{"/registry/ranges/serviceips/" + live.Spec.ClusterIP, "/registry/ranges/serviceips/" + np.Spec.ClusterIP} {
		assert.True(t, exists(key), "%s belongs to a live Service", key)
	}
	assert.True(t, exists("/registry/ranges/servicenodeports/"+strconv.Itoa(int(port))))

	_, err = cl.Services().Create(bg, svc("ghost", "10.96.0.77"))
	require.NoError(t, err, "the freed address is given again")
}

// A claim whose Service arrives before the third run is not a leak.
func TestClaimRepairForgetsAClaimWhoseServiceCame(t *testing.T) {
	st := sharedStore{openStore(t)}
	cl := newServer(t, st)
	_, err := st.Create(bg, "/registry/ranges/serviceips/10.96.0.78", []byte("default/slow"), store.CreateOptions{})
	require.NoError(t, err)
	r := kinds.NewClaimRepair(st, nil)
	require.NoError(t, r.RunOnce(bg))
	require.NoError(t, r.RunOnce(bg))
	// The Service is stored now, with the address its server claimed (a
	// delete of the claim and a create by name stand in for that server).
	_, err = st.Delete(bg, "/registry/ranges/serviceips/10.96.0.78", store.Preconditions{})
	require.NoError(t, err)
	_, err = cl.Services().Create(bg, svc("slow", "10.96.0.78"))
	require.NoError(t, err)
	for range 3 {
		require.NoError(t, r.RunOnce(bg))
	}
	_, err = st.Get(bg, "/registry/ranges/serviceips/10.96.0.78")
	assert.NoError(t, err, "held by its Service: never freed")
}

// Without a shared store there are no claims and nothing to repair.
func TestClaimRepairLeavesAStoreOfItsOwnAlone(t *testing.T) {
	st := openStore(t)
	_, err := st.Create(bg, "/registry/ranges/serviceips/10.96.0.79", []byte("x"), store.CreateOptions{})
	require.NoError(t, err)
	r := kinds.NewClaimRepair(st, nil)
	for range 3 {
		require.NoError(t, r.RunOnce(bg))
	}
	_, err = st.Get(bg, "/registry/ranges/serviceips/10.96.0.79")
	assert.NoError(t, err)
	assert.False(t, kinds.IsShared(st))
}
