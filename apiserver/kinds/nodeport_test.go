package kinds_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
)

func nodePortSvc(name string, ports ...int32) *corev1.Service {
	s := svc(name, "")
	s.Spec.Type = corev1.ServiceTypeNodePort
	s.Spec.Ports = nil
	for i, p := range ports {
		s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: string(rune('a' + i)), Port: int32(80 + i), NodePort: p})
	}
	return s
}

func TestNodePortAllocation(t *testing.T) {
	st := openStore(t)
	cl := newServer(t, st)

	// Unasked ports come from the upper part of the range, in order.
	a, err := cl.Services().Create(bg, nodePortSvc("a", 0, 0))
	require.NoError(t, err)
	assert.Equal(t, int32(30086), a.Spec.Ports[0].NodePort)
	assert.Equal(t, int32(30087), a.Spec.Ports[1].NodePort)

	// A free port asked for is honoured; a taken one, or one outside the
	// range, is refused in Kubernetes' words.
	_, err = cl.Services().Create(bg, nodePortSvc("b", 30000))
	require.NoError(t, err)
	_, err = cl.Services().Create(bg, nodePortSvc("c", 30086))
	require.Error(t, err)
	assert.True(t, api.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), `Service "c" is invalid: spec.ports[0].nodePort: Invalid value: 30086: provided port is already allocated`)
	_, err = cl.Services().Create(bg, nodePortSvc("d", 80))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767`)

	// A refused create took nothing; a ClusterIP Service takes no port.
	e, err := cl.Services().Create(bg, nodePortSvc("e", 0))
	require.NoError(t, err)
	assert.Equal(t, int32(30088), e.Spec.Ports[0].NodePort)
	plain, err := cl.Services().Create(bg, svc("plain", ""))
	require.NoError(t, err)
	assert.Zero(t, plain.Spec.Ports[0].NodePort)

	// Turning a ClusterIP Service into a NodePort one allocates; turning
	// it back drops the port (dropTypeDependentFields) and frees it for
	// the next Service.
	_, err = cl.Services().Patch(bg, "default", "plain", client.MergePatch, []byte(`{"spec":{"type":"NodePort"}}`))
	require.NoError(t, err)
	got, err := cl.Services().Get(bg, "default", "plain")
	require.NoError(t, err)
	assert.Equal(t, int32(30089), got.Spec.Ports[0].NodePort)
	_, err = cl.Services().Patch(bg, "default", "plain", client.MergePatch, []byte(`{"spec":{"type":"ClusterIP"}}`))
	require.NoError(t, err)
	_, err = cl.Services().Create(bg, nodePortSvc("f", 30089))
	require.NoError(t, err, "the port a Service gave up is free again")

	// Deleting a Service frees its ports, also for an API server that
	// rebuilds its allocator from the store after a restart.
	require.NoError(t, cl.Services().Delete(bg, "default", "a", nil))
	_, err = cl.Services().Create(bg, nodePortSvc("g", 30086))
	require.NoError(t, err)
	restarted := newServer(t, st)
	_, err = restarted.Services().Create(bg, nodePortSvc("h", 30000))
	require.Error(t, err, "a restarted server knows the ports in use")
	assert.Contains(t, err.Error(), "provided port is already allocated")
}
