package endpointslicemirroring_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/controllers/endpointslicemirroring"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

func newCluster(t *testing.T) (*cluster.Cluster, *client.Client) {
	t.Helper()
	c, err := cluster.New(cluster.Config{Mode: runmode.Step, Seed: 1, NodeCount: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c, c.Client("test")
}

func settle(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	_, err := c.RunUntilStable(context.Background(), stepper.Limits{})
	require.NoError(t, err)
}

// mirrored lists the slices of service name as "addressType ports:
// address(ready) ...", one string a slice, sorted.
func mirrored(t *testing.T, cl *client.Client, name string) []string {
	t.Helper()
	list, err := cl.EndpointSlices().List(context.Background(), "default", client.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + name})
	require.NoError(t, err)
	var out []string
	for _, s := range list.Items {
		assert.Equal(t, endpointslicemirroring.ManagedBy, s.Labels[discoveryv1.LabelManagedBy])
		row := string(s.AddressType)
		for _, p := range s.Ports {
			row += fmt.Sprintf(" %s/%d", *p.Name, *p.Port)
		}
		row += ":"
		for _, e := range s.Endpoints {
			row += fmt.Sprintf(" %s(%v)", e.Addresses[0], *e.Conditions.Ready)
		}
		out = append(out, row)
	}
	sort.Strings(out)
	return out
}

// The conformance spec "should mirror a custom Endpoints resource through
// create update and delete" (test/e2e/network/endpointslicemirroring.go),
// and what the real controller does around it: labels and annotations
// copied, the Endpoints as owner, two subsets with the same ports in one
// slice, not-ready addresses not ready.
func TestMirrorsCreateUpdateDelete(t *testing.T) {
	ctx := context.Background()
	c, cl := newCluster(t)
	_, err := cl.Services().Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "custom", Namespace: "default"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "example", Port: 80}}}})
	require.NoError(t, err)
	ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "custom", Namespace: "default",
		Labels:      map[string]string{"team": "a"},
		Annotations: map[string]string{"note": "kept", corev1.LastAppliedConfigAnnotation: "{}"}},
		Subsets: []corev1.EndpointSubset{
			{Ports: []corev1.EndpointPort{{Name: "example", Port: 80}}, Addresses: []corev1.EndpointAddress{{IP: "10.1.2.3"}}},
			{Ports: []corev1.EndpointPort{{Name: "example", Port: 80}}, NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.1.2.4"}}},
		}}
	created, err := cl.Endpoints().Create(ctx, ep)
	require.NoError(t, err)
	settle(t, c)
	assert.Equal(t, []string{"IPv4 example/80: 10.1.2.3(true) 10.1.2.4(false)"}, mirrored(t, cl, "custom"))
	list, err := cl.EndpointSlices().List(ctx, "default", client.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=custom"})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	s := list.Items[0]
	assert.Equal(t, "a", s.Labels["team"])
	assert.Equal(t, map[string]string{"note": "kept"}, s.Annotations, "last-applied-configuration is not copied")
	require.Len(t, s.OwnerReferences, 1)
	assert.Equal(t, "Endpoints", s.OwnerReferences[0].Kind)
	assert.Equal(t, created.UID, s.OwnerReferences[0].UID)
	assert.Regexp(t, `^custom-[a-z0-9]{5}$`, s.Name)

	// An update is mirrored into the same slice.
	created.Subsets = []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{{Name: "example", Port: 80}}, Addresses: []corev1.EndpointAddress{{IP: "10.2.3.4"}}}}
	_, err = cl.Endpoints().Update(ctx, created)
	require.NoError(t, err)
	settle(t, c)
	assert.Equal(t, []string{"IPv4 example/80: 10.2.3.4(true)"}, mirrored(t, cl, "custom"))
	again, err := cl.EndpointSlices().Get(ctx, "default", s.Name)
	require.NoError(t, err, "the slice is updated, not replaced")
	assert.Equal(t, "10.2.3.4", again.Endpoints[0].Addresses[0])

	// Deleting the Endpoints deletes its slices.
	require.NoError(t, cl.Endpoints().Delete(ctx, "default", "custom", nil))
	settle(t, c)
	assert.Empty(t, mirrored(t, cl, "custom"))
}

// Not mirrored: Endpoints without a Service, with skip-mirror, of a
// Service with a selector (that one's slices are the endpointslice
// controller's); and a Service that gains a selector loses its mirrored
// slices.
func TestMirrorsOnlySelectorlessServices(t *testing.T) {
	ctx := context.Background()
	c, cl := newCluster(t)
	subsets := []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{{Name: "p", Port: 80}}, Addresses: []corev1.EndpointAddress{{IP: "10.9.9.9"}}}}
	for _, name := range []string{"no-service", "skipped", "later-selector"} {
		ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Subsets: subsets}
		if name == "skipped" {
			ep.Labels = map[string]string{discoveryv1.LabelSkipMirror: "true"}
		}
		_, err := cl.Endpoints().Create(ctx, ep)
		require.NoError(t, err)
		if name != "no-service" {
			_, err = cl.Services().Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
				Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "p", Port: 80}}}})
			require.NoError(t, err)
		}
	}
	settle(t, c)
	assert.Empty(t, mirrored(t, cl, "no-service"))
	assert.Empty(t, mirrored(t, cl, "skipped"))
	assert.Equal(t, []string{"IPv4 p/80: 10.9.9.9(true)"}, mirrored(t, cl, "later-selector"))

	svc, err := cl.Services().Get(ctx, "default", "later-selector")
	require.NoError(t, err)
	svc.Spec.Selector = map[string]string{"app": "x"}
	_, err = cl.Services().Update(ctx, svc)
	require.NoError(t, err)
	settle(t, c)
	list, err := cl.EndpointSlices().List(ctx, "default", client.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=" + endpointslicemirroring.ManagedBy})
	require.NoError(t, err)
	assert.Empty(t, list.Items, "a Service with a selector has no mirrored slices")
}

// IPv4 and IPv6 addresses go in a slice each. (An address that is not an
// IP cannot reach the controller through the API server, which refuses it
// as kube-apiserver does; Desired's test shows it would be left out.)
func TestAddressFamilies(t *testing.T) {
	ctx := context.Background()
	c, cl := newCluster(t)
	_, err := cl.Services().Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "mixed", Namespace: "default"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "p", Port: 80}}}})
	require.NoError(t, err)
	_, err = cl.Endpoints().Create(ctx, &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "mixed", Namespace: "default"},
		Subsets: []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{{Name: "p", Port: 80}},
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.2"}, {IP: "not-an-ip"}}}}})
	require.True(t, api.IsInvalid(err), "the API server refuses an address that is not an IP: %v", err)
	_, err = cl.Endpoints().Create(ctx, &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "mixed", Namespace: "default"},
		Subsets: []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{{Name: "p", Port: 80}},
			Addresses: []corev1.EndpointAddress{{IP: "10.0.0.2"}, {IP: "fd00::2"}}}}})
	require.NoError(t, err)
	settle(t, c)
	assert.Equal(t, []string{"IPv4 p/80: 10.0.0.2(true)", "IPv6 p/80: fd00::2(true)"}, mirrored(t, cl, "mixed"))
}

func TestDesiredCountsInvalidAndSkipped(t *testing.T) {
	ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{{Name: "p", Port: 80}},
		Addresses:         []corev1.EndpointAddress{{IP: "10.0.0.3"}, {IP: "bogus"}, {IP: "10.0.0.1"}},
		NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.0.0.2"}}}}}
	got, invalid, skipped := endpointslicemirroring.Desired(ep, 2)
	require.Len(t, got, 1)
	var addrs []string
	for _, e := range got[0].Endpoints {
		addrs = append(addrs, e.Addresses[0])
	}
	assert.Equal(t, []string{"10.0.0.1", "10.0.0.3"}, addrs, "two mirrored at most, sorted")
	assert.Equal(t, 1, invalid)
	assert.Equal(t, 2, skipped, "the invalid one and the not-ready one past the maximum")
}
