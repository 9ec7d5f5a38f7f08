package apiserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Every cluster has the kubernetes Service in default, as kube-apiserver
// makes it: the first address of the service range, https on 443 to the
// API server's 6443, no selector. A restart over the same store finds it
// and keeps it; one deleted is made again at the next start.
func TestKubernetesServiceBootstrap(t *testing.T) {
	dir := t.TempDir()
	st, cl := openServer(t, dir)
	ctx := context.Background()
	svc, err := cl.Services().Get(ctx, "default", "kubernetes")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"component": "apiserver", "provider": "kubernetes"}, svc.Labels)
	assert.Equal(t, corev1.ServiceTypeClusterIP, svc.Spec.Type)
	assert.Equal(t, "10.96.0.1", svc.Spec.ClusterIP)
	assert.Nil(t, svc.Spec.Selector)
	assert.Equal(t, []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(6443)}}, svc.Spec.Ports)
	rv := svc.ResourceVersion
	require.NoError(t, cl.Services().Delete(ctx, "default", "kubernetes", nil))
	require.NoError(t, st.Close())

	st, cl = openServer(t, dir)
	again, err := cl.Services().Get(ctx, "default", "kubernetes")
	require.NoError(t, err)
	assert.NotEqual(t, rv, again.ResourceVersion, "made again")
	require.NoError(t, st.Close())
	st, cl = openServer(t, dir)
	defer st.Close()
	kept, err := cl.Services().Get(ctx, "default", "kubernetes")
	require.NoError(t, err)
	assert.Equal(t, again.ResourceVersion, kept.ResourceVersion, "kept, not written again")
}
