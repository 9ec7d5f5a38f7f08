package proxy

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// stores serves services and endpoints from one bolt store.
func stores(t *testing.T) (Lookup, map[string]*registry.Store) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	out := map[string]*registry.Store{}
	for _, r := range []*registry.Resource{
		{Version: "v1", Name: "services", Kind: "Service", Namespaced: true, New: func() api.Object { return &corev1.Service{} }},
		{Version: "v1", Name: "endpoints", Kind: "Endpoints", Namespaced: true, New: func() api.Object { return &corev1.Endpoints{} }},
	} {
		s, err := registry.NewStore(registry.Config{Resource: r, Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: registry.NewIDs(rand.Reader)})
		require.NoError(t, err)
		out[r.Name] = s
	}
	return func(group, version, resource string) (*registry.Store, bool) {
		s, ok := out[resource]
		return s, ok && group == "" && version == "v1"
	}, out
}

// Each step from a Service's port to an address, and what is missing
// when one fails: the reason the aggregator's Available condition gives,
// and ResolveEndpoint's wording, which the webhooks report.
func TestResolveEndpoints(t *testing.T) {
	ctx := context.Background()
	lookup, st := stores(t)
	unresolved := func(reason Reason, msg string, port int32) {
		t.Helper()
		addrs, err := ResolveEndpoints(ctx, lookup, "ns", "api", port)
		assert.Nil(t, addrs)
		var u *Unresolved
		require.ErrorAs(t, err, &u)
		assert.Equal(t, reason, u.Reason)
		assert.Equal(t, msg, err.Error())
	}
	unresolved(ServiceNotFound, `service "api" not found`, 443)

	_, err := st["services"].Create(ctx, "ns", &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "api"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443}, {Name: "metrics", Port: 9090}}}}, registry.CreateOptions{})
	require.NoError(t, err)
	unresolved(ServicePortError, `no service port 8443 found for service "api"`, 8443)
	unresolved(EndpointsNotFound, `endpoints "api" not found`, 443)

	_, err = st["endpoints"].Create(ctx, "ns", &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "api"}, Subsets: []corev1.EndpointSubset{
		{NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.0.0.9"}}, Ports: []corev1.EndpointPort{{Name: "https", Port: 8443}}},
		{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}}, Ports: []corev1.EndpointPort{{Name: "metrics", Port: 9100}}},
	}}, registry.CreateOptions{})
	require.NoError(t, err)
	unresolved(MissingEndpoints, `no endpoints available for service "api"`, 443)
	var u *Unresolved
	_, err = ResolveEndpoints(ctx, lookup, "ns", "api", 443)
	require.ErrorAs(t, err, &u)
	assert.Equal(t, "https", u.PortName, "the endpoints' port is found by the service port's name")

	_, _, err = st["endpoints"].Update(ctx, "ns", "api", func(cur api.Object) (api.Object, error) {
		eps := cur.(*corev1.Endpoints)
		eps.Subsets = append(eps.Subsets, corev1.EndpointSubset{
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.2"}, {IP: "10.0.0.3"}}, Ports: []corev1.EndpointPort{{Name: "https", Port: 8443}}})
		return eps, nil
	}, registry.UpdateOptions{})
	require.NoError(t, err)
	addrs, err := ResolveEndpoints(ctx, lookup, "ns", "api", 443)
	require.NoError(t, err)
	assert.Equal(t, []string{"10.0.0.2:8443", "10.0.0.3:8443"}, addrs, "the ready addresses, at the endpoint port")
	addrs, err = ResolveEndpoints(ctx, lookup, "ns", "api", 9090)
	require.NoError(t, err)
	assert.Equal(t, []string{"10.0.0.1:9100"}, addrs)

	_, err = st["services"].Create(ctx, "ns", &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ext"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "backend.example.com"}}, registry.CreateOptions{})
	require.NoError(t, err)
	addrs, err = ResolveEndpoints(ctx, lookup, "ns", "ext", 8443)
	require.NoError(t, err)
	assert.Equal(t, []string{"backend.example.com:8443"}, addrs, "an ExternalName Service: its name, at the port asked for")

	_, err = ResolveEndpoints(ctx, func(string, string, string) (*registry.Store, bool) { return nil, false }, "ns", "api", 443)
	require.ErrorAs(t, err, &u)
	assert.Equal(t, ServiceNotFound, u.Reason, "no services served")
}
