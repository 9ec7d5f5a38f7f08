package endpointslice_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// Slices without the controller's managed-by label are someone else's: a
// user's slices of a Service without a selector, and another writer's
// slices of a Service with one, stay as written.
func TestForeignSlicesAreLeftAlone(t *testing.T) {
	ctx := context.Background()
	c, err := cluster.New(cluster.Config{Mode: runmode.Step, Seed: 1, NodeCount: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	cl := c.Client("test")
	for _, svc := range []*corev1.Service{
		{ObjectMeta: metav1.ObjectMeta{Name: "manual", Namespace: "default"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80}}}},
	} {
		_, err := cl.Services().Create(ctx, svc)
		require.NoError(t, err)
		_, err = cl.EndpointSlices().Create(ctx, &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: svc.Name + "-mine", Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: svc.Name}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.1.2.3"}}},
		})
		require.NoError(t, err)
	}
	_, err = c.RunUntilStable(ctx, stepper.Limits{})
	require.NoError(t, err)
	for _, name := range []string{"manual-mine", "web-mine"} {
		s, err := cl.EndpointSlices().Get(ctx, "default", name)
		require.NoError(t, err, name)
		assert.Equal(t, []string{"10.1.2.3"}, s.Endpoints[0].Addresses, name)
	}
}
