package kinds_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

var bg = context.Background()

// newServer starts an API server over st with its own built-in resources
// (and so its own allocator), as a restart would.
func newServer(t *testing.T, st store.Interface) *client.Client {
	t.Helper()
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin()})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(bg))
	return client.NewInProcess(srv.Handler(), "test")
}

func openStore(t *testing.T) store.Interface {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func svc(name, clusterIP string) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.ServiceSpec{ClusterIP: clusterIP, Selector: map[string]string{"app": name}, Ports: []corev1.ServicePort{{Port: 80}}}}
	return s
}

func TestClusterIPAllocation(t *testing.T) {
	cl := newServer(t, openStore(t))
	seen := map[string]bool{}
	for i := range 5 {
		s, err := cl.Services().Create(bg, svc(fmt.Sprintf("s%d", i), ""))
		require.NoError(t, err)
		require.Len(t, s.Spec.ClusterIPs, 1)
		assert.Equal(t, s.Spec.ClusterIP, s.Spec.ClusterIPs[0])
		assert.False(t, seen[s.Spec.ClusterIP], "duplicate %s", s.Spec.ClusterIP)
		assert.Regexp(t, `^10\.(9[6-9]|10[0-9]|11[01])\.`, s.Spec.ClusterIP)
		assert.NotEqual(t, "10.96.0.1", s.Spec.ClusterIP, ".1 is the kubernetes Service's")
		seen[s.Spec.ClusterIP] = true
		got, err := cl.Services().Get(bg, "default", s.Name)
		require.NoError(t, err)
		assert.Equal(t, s.Spec.ClusterIP, got.Spec.ClusterIP, "the stored object has the address")
	}

	// A free address asked for is honoured; a taken one is refused.
	dns, err := cl.Services().Create(bg, svc("dns", "10.96.0.10"))
	require.NoError(t, err)
	assert.Equal(t, []string{"10.96.0.10"}, dns.Spec.ClusterIPs)
	_, err = cl.Services().Create(bg, svc("dns2", "10.96.0.10"))
	require.Error(t, err)
	assert.True(t, api.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), `Service "dns2" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated`)
	_, err = cl.Services().Create(bg, svc("far", "192.168.0.10"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "failed to allocate IP 192.168.0.10: the provided IP (192.168.0.10) is not in the valid range. The range of valid IPs is 10.96.0.0/12")

	// Headless and ExternalName Services take nothing.
	h, err := cl.Services().Create(bg, svc("headless", corev1.ClusterIPNone))
	require.NoError(t, err)
	assert.Equal(t, []string{"None"}, h.Spec.ClusterIPs)
	ext := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ext"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com"}}
	e, err := cl.Services().Create(bg, ext)
	require.NoError(t, err)
	assert.Empty(t, e.Spec.ClusterIP)

	// A delete frees the address.
	require.NoError(t, cl.Services().Delete(bg, "default", "dns", nil))
	again, err := cl.Services().Create(bg, svc("dns2", "10.96.0.10"))
	require.NoError(t, err)
	assert.Equal(t, "10.96.0.10", again.Spec.ClusterIP)

	// A failed create (the name exists) gives back what it took.
	_, err = cl.Services().Create(bg, svc("s0", "10.96.0.20"))
	require.True(t, api.IsAlreadyExists(err), "%v", err)
	_, err = cl.Services().Create(bg, svc("other", "10.96.0.20"))
	require.NoError(t, err)
}

func TestClusterIPsRebuiltAfterRestart(t *testing.T) {
	st := openStore(t)
	first := newServer(t, st)
	a, err := first.Services().Create(bg, svc("a", ""))
	require.NoError(t, err)
	_, err = first.Services().Create(bg, svc("dns", "10.96.0.10"))
	require.NoError(t, err)

	second := newServer(t, st)
	_, err = second.Services().Create(bg, svc("dns2", "10.96.0.10"))
	require.Error(t, err, "the restarted server knows the stored addresses")
	assert.Contains(t, err.Error(), "provided IP is already allocated")
	b, err := second.Services().Create(bg, svc("b", ""))
	require.NoError(t, err)
	assert.NotEqual(t, a.Spec.ClusterIP, b.Spec.ClusterIP)
}

func TestClusterIPTypeChanges(t *testing.T) {
	cl := newServer(t, openStore(t))
	ext := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com"}}
	_, err := cl.Services().Create(bg, ext)
	require.NoError(t, err)
	s, err := cl.Services().Get(bg, "default", "x")
	require.NoError(t, err)
	s.Spec.Type, s.Spec.ExternalName, s.Spec.Ports = corev1.ServiceTypeClusterIP, "", []corev1.ServicePort{{Port: 80}}
	s.Spec.ClusterIP = "10.96.0.30"
	s, err = cl.Services().Update(bg, s)
	require.NoError(t, err)
	assert.Equal(t, []string{"10.96.0.30"}, s.Spec.ClusterIPs)
	_, err = cl.Services().Create(bg, svc("y", "10.96.0.30"))
	require.Error(t, err)

	s.Spec.Type, s.Spec.ExternalName, s.Spec.ClusterIP, s.Spec.ClusterIPs = corev1.ServiceTypeExternalName, "example.com", "", nil
	_, err = cl.Services().Update(bg, s)
	require.NoError(t, err)
	_, err = cl.Services().Create(bg, svc("y", "10.96.0.30"))
	require.NoError(t, err, "turning into ExternalName freed the address")
}

// As the conformance suite changes a Service's type: only type and
// externalName are set, the server-given cluster IPs, families, policies
// and node ports are left in the object; kube-apiserver drops them
// (dropTypeDependentFields) instead of refusing them, and frees them.
func TestServiceTurnedExternalNameDropsWhatItNoLongerNeeds(t *testing.T) {
	cl := newServer(t, openStore(t))
	for _, typ := range []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort} {
		name := strings.ToLower(string(typ))
		s, err := cl.Services().Create(bg, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: corev1.ServiceSpec{Type: typ, Ports: []corev1.ServicePort{{Port: 80}}}})
		require.NoError(t, err)
		require.NotEmpty(t, s.Spec.ClusterIP)
		ip := s.Spec.ClusterIP
		s.Spec.Type, s.Spec.ExternalName = corev1.ServiceTypeExternalName, "example.com"
		s, err = cl.Services().Update(bg, s)
		require.NoError(t, err, typ)
		assert.Empty(t, s.Spec.ClusterIP, typ)
		assert.Empty(t, s.Spec.ClusterIPs, typ)
		assert.Empty(t, s.Spec.IPFamilies, typ)
		assert.Nil(t, s.Spec.IPFamilyPolicy, typ)
		assert.Nil(t, s.Spec.InternalTrafficPolicy, typ)
		assert.Zero(t, s.Spec.Ports[0].NodePort, typ)
		assert.Empty(t, s.Spec.ExternalTrafficPolicy, typ)
		_, err = cl.Services().Create(bg, svc(name+"-again", ip))
		require.NoError(t, err, "the address of %s was freed", typ)
	}

	// A cluster IP the user changes is theirs, and refused as before.
	s, err := cl.Services().Create(bg, svc("asked", "10.96.0.50"))
	require.NoError(t, err)
	s.Spec.Type, s.Spec.ExternalName, s.Spec.ClusterIP, s.Spec.ClusterIPs = corev1.ServiceTypeExternalName, "example.com", "10.96.0.51", nil
	_, err = cl.Services().Update(bg, s)
	require.Error(t, err)
	assert.True(t, api.IsInvalid(err), "%v", err)
}

// A dry run shows the address a Service would get without taking it.
func TestClusterIPDryRun(t *testing.T) {
	srv, err := apiserver.New(apiserver.Config{Storage: openStore(t), Clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin()})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(bg))
	cl := client.NewInProcess(srv.Handler(), "test")

	body := `{"apiVersion":"v1","kind":"Service","metadata":{"name":"dry"},"spec":{"clusterIP":"10.96.0.40","ports":[{"port":80}]}}`
	req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/services?dryRun=All", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"clusterIPs":["10.96.0.40"]`)

	body = `{"apiVersion":"v1","kind":"Service","metadata":{"name":"dry2"},"spec":{"ports":[{"port":80}]}}`
	req = httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/services?dryRun=All", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec = httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var dry corev1.Service
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &dry))
	require.NotEmpty(t, dry.Spec.ClusterIP)

	_, err = cl.Services().Create(bg, svc("real", "10.96.0.40"))
	require.NoError(t, err, "the dry run took nothing")
	s, err := cl.Services().Create(bg, svc("real2", ""))
	require.NoError(t, err)
	assert.Equal(t, dry.Spec.ClusterIP, s.Spec.ClusterIP, "the dry run's address was still free")
}
