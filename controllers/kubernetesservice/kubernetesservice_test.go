package kubernetesservice_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/controllers/kubernetesservice"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

var bg = context.Background()

func newCluster(t *testing.T, cfg cluster.Config) (*cluster.Cluster, *client.Client) {
	t.Helper()
	cfg.Mode, cfg.Seed, cfg.DetectCacheMutations = runmode.Step, 1, true
	c, err := cluster.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := c.CheckCacheMutations(); err != nil {
			t.Error(err)
		}
		c.Close()
	})
	return c, c.Client("test")
}

func stable(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	_, err := c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
}

// requireKept checks the three objects say what kube-apiserver's say, for
// an API server advertised at 172.18.0.2 on port 6443.
func requireKept(t *testing.T, cl *client.Client, port int32) {
	t.Helper()
	svc, err := cl.Services().Get(bg, "default", "kubernetes")
	require.NoError(t, err)
	assert.Equal(t, "10.96.0.1", svc.Spec.ClusterIP)
	assert.Equal(t, corev1.ServiceTypeClusterIP, svc.Spec.Type)
	assert.Equal(t, []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(port)}}, svc.Spec.Ports)
	assert.Nil(t, svc.Spec.Selector)
	assert.Equal(t, map[string]string{"component": "apiserver", "provider": "kubernetes"}, svc.Labels)

	ep, err := cl.Endpoints().Get(bg, "default", "kubernetes")
	require.NoError(t, err)
	assert.Equal(t, "true", ep.Labels["endpointslice.kubernetes.io/skip-mirror"])
	assert.Equal(t, []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "172.18.0.2"}},
		Ports: []corev1.EndpointPort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: port}}}}, ep.Subsets)

	s, err := cl.EndpointSlices().Get(bg, "default", "kubernetes")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"kubernetes.io/service-name": "kubernetes"}, s.Labels, "no managed-by label")
	assert.Equal(t, discoveryv1.AddressTypeIPv4, s.AddressType)
	require.Len(t, s.Endpoints, 1)
	assert.Equal(t, []string{"172.18.0.2"}, s.Endpoints[0].Addresses)
	require.NotNil(t, s.Endpoints[0].Conditions.Ready)
	assert.True(t, *s.Endpoints[0].Conditions.Ready)
	require.Len(t, s.Ports, 1)
	assert.Equal(t, "https", *s.Ports[0].Name)
	assert.Equal(t, port, *s.Ports[0].Port)
}

// The API server alone makes the kubernetes Service, its Endpoints and
// its EndpointSlice, makes each again when deleted and puts the
// endpoints right when changed; the Service's ports are put right only
// when the server starts again, as in Kubernetes.
func TestTheAPIServerKeepsTheKubernetesService(t *testing.T) {
	dir := t.TempDir()
	c, cl := newCluster(t, cluster.Config{DataDir: dir, APIServerOnly: true})
	stable(t, c)
	requireKept(t, cl, 6443)

	require.NoError(t, cl.Services().Delete(bg, "default", "kubernetes", nil))
	require.NoError(t, cl.EndpointSlices().Delete(bg, "default", "kubernetes", nil))
	stable(t, c)
	requireKept(t, cl, 6443)

	ep, err := cl.Endpoints().Get(bg, "default", "kubernetes")
	require.NoError(t, err)
	ep.Subsets[0].Addresses = []corev1.EndpointAddress{{IP: "10.0.0.9"}, {IP: "10.0.0.10"}}
	_, err = cl.Endpoints().Update(bg, ep)
	require.NoError(t, err)
	s, err := cl.EndpointSlices().Get(bg, "default", "kubernetes")
	require.NoError(t, err)
	s.Labels["extra"] = "x"
	_, err = cl.EndpointSlices().Update(bg, s)
	require.NoError(t, err)
	stable(t, c)
	requireKept(t, cl, 6443)

	require.NoError(t, cl.Endpoints().Delete(bg, "default", "kubernetes", nil))
	stable(t, c)
	requireKept(t, cl, 6443)

	// A port changed while the server runs stays; the next start puts it
	// back.
	svc, err := cl.Services().Get(bg, "default", "kubernetes")
	require.NoError(t, err)
	svc.Spec.Ports[0].Port = 8443
	_, err = cl.Services().Update(bg, svc)
	require.NoError(t, err)
	stable(t, c)
	svc, err = cl.Services().Get(bg, "default", "kubernetes")
	require.NoError(t, err)
	assert.Equal(t, int32(8443), svc.Spec.Ports[0].Port)
	c.Close()

	again, cl2 := newCluster(t, cluster.Config{DataDir: dir, APIServerOnly: true, SecurePort: 7443})
	stable(t, again)
	requireKept(t, cl2, 7443)
}

// In a whole cluster the endpoints and endpointslice controllers leave
// the API server's objects alone: the Service has no selector, the slice
// no managed-by label. Deleting the Service makes the endpoints
// controller delete its Endpoints, as in Kubernetes; all come back.
func TestControllersLeaveTheKubernetesServiceAlone(t *testing.T) {
	c, cl := newCluster(t, cluster.Config{NodeCount: 1})
	stable(t, c)
	requireKept(t, cl, 6443)
	require.NoError(t, cl.Services().Delete(bg, "default", "kubernetes", nil))
	stable(t, c)
	requireKept(t, cl, 6443)
}

func TestAdvertiseAddressMustBeAnEndpointAddress(t *testing.T) {
	for _, ip := range []string{"127.0.0.1", "0.0.0.0", "::1", "not-an-ip"} {
		_, err := cluster.New(cluster.Config{Mode: runmode.Step, APIServerOnly: true, AdvertiseAddress: ip})
		require.Error(t, err, ip)
		assert.Contains(t, err.Error(), "PublicIP", ip)
	}
}

func TestServiceIPOf(t *testing.T) {
	ip, err := kubernetesservice.ServiceIPOf("10.96.0.0/12")
	require.NoError(t, err)
	assert.Equal(t, "10.96.0.1", ip)
	ip, err = kubernetesservice.ServiceIPOf("10.100.5.7/16")
	require.NoError(t, err)
	assert.Equal(t, "10.100.0.1", ip)
	_, err = kubernetesservice.ServiceIPOf("nope")
	assert.Error(t, err)
}

func TestCheckEndpoints(t *testing.T) {
	ports := []corev1.EndpointPort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 6443}}
	sub := func(ips ...string) corev1.EndpointSubset {
		s := corev1.EndpointSubset{Ports: ports}
		for _, ip := range ips {
			s.Addresses = append(s.Addresses, corev1.EndpointAddress{IP: ip})
		}
		return s
	}
	for _, tc := range []struct {
		name                 string
		subsets              []corev1.EndpointSubset
		reconcilePorts       bool
		format, ips, portsOK bool
	}{
		{"right", []corev1.EndpointSubset{sub("172.18.0.2")}, true, true, true, true},
		{"no subset", nil, true, false, false, false},
		{"two subsets", []corev1.EndpointSubset{sub("172.18.0.2"), sub("172.18.0.3")}, true, false, false, false},
		{"another address", []corev1.EndpointSubset{sub("172.18.0.3")}, true, true, false, true},
		{"one too many", []corev1.EndpointSubset{sub("172.18.0.2", "172.18.0.3")}, true, true, false, true},
		{"twice the same", []corev1.EndpointSubset{sub("172.18.0.2", "172.18.0.2")}, false, true, false, true},
		{"ports wrong, checked", []corev1.EndpointSubset{{Addresses: sub("172.18.0.2").Addresses}}, true, true, true, false},
		{"ports wrong, not checked", []corev1.EndpointSubset{{Addresses: sub("172.18.0.2").Addresses}}, false, true, true, true},
	} {
		format, ips, portsOK := kubernetesservice.CheckEndpoints(&corev1.Endpoints{Subsets: tc.subsets}, []string{"172.18.0.2"}, ports, tc.reconcilePorts)
		assert.Equal(t, []bool{tc.format, tc.ips, tc.portsOK}, []bool{format, ips, portsOK}, tc.name)
	}
}

func TestSliceFromEndpoints(t *testing.T) {
	node := "n1"
	e := &corev1.Endpoints{}
	e.Name, e.Namespace = "kubernetes", "default"
	e.Subsets = []corev1.EndpointSubset{{
		Addresses:         []corev1.EndpointAddress{{IP: "172.18.0.2", NodeName: &node}},
		NotReadyAddresses: []corev1.EndpointAddress{{IP: "172.18.0.3"}, {IP: "fd00::1"}},
		Ports:             []corev1.EndpointPort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 6443}},
	}}
	s := kubernetesservice.SliceFromEndpoints(e)
	assert.Equal(t, "kubernetes", s.Name)
	assert.Equal(t, discoveryv1.AddressTypeIPv4, s.AddressType)
	require.Len(t, s.Endpoints, 2, "the IPv6 address belongs in another family's slice")
	assert.True(t, *s.Endpoints[0].Conditions.Ready)
	assert.Equal(t, &node, s.Endpoints[0].NodeName)
	assert.False(t, *s.Endpoints[1].Conditions.Ready)

	e.Subsets[0].Addresses, e.Subsets[0].NotReadyAddresses = []corev1.EndpointAddress{{IP: "fd00::2"}}, nil
	assert.Equal(t, discoveryv1.AddressTypeIPv6, kubernetesservice.SliceFromEndpoints(e).AddressType)
	assert.Empty(t, kubernetesservice.SliceFromEndpoints(&corev1.Endpoints{}).Endpoints)
}

func TestServiceFormatCorrect(t *testing.T) {
	ports := []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(6443)}}
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: ports}}
	assert.True(t, kubernetesservice.ServiceFormatCorrect(svc, ports, corev1.ServiceTypeClusterIP))
	assert.False(t, kubernetesservice.ServiceFormatCorrect(svc, ports, corev1.ServiceTypeNodePort))
	other := api.DeepCopy(svc).(*corev1.Service)
	other.Spec.Ports[0].TargetPort = intstr.FromInt32(7443)
	assert.False(t, kubernetesservice.ServiceFormatCorrect(other, ports, corev1.ServiceTypeClusterIP))
	other.Spec.Ports = nil
	assert.False(t, kubernetesservice.ServiceFormatCorrect(other, ports, corev1.ServiceTypeClusterIP))
}
