package cluster

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/runmode"
)

// In step mode the cluster tells informers which resources were written
// since they listed: a resource's count moves with writes to it and to the
// definitions that decide how it is served, and not with writes to other
// resources; a resource this server does not store cannot be told.
func TestListChangesFollowEachResource(t *testing.T) {
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 1, APIServerOnly: true})
	require.NoError(t, err)
	defer c.Close()
	cl := c.Client("test")
	cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	secrets := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	count := func(gvr schema.GroupVersionResource) uint64 {
		t.Helper()
		n, ok := c.listChanges(gvr)
		require.True(t, ok, "%v is stored here", gvr)
		return n
	}
	before, otherBefore := count(cms), count(secrets)
	_, err = cl.ConfigMaps().Create(bg, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default"}})
	require.NoError(t, err)
	afterCreate := count(cms)
	assert.Greater(t, afterCreate, before, "a write to the resource")
	assert.Equal(t, otherBefore, count(secrets), "not a write to another")
	require.NoError(t, cl.ConfigMaps().Delete(bg, "default", "a", nil))
	assert.Greater(t, count(cms), afterCreate, "a delete too")

	beforeCRD := count(secrets)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, json.Unmarshal([]byte(`{"metadata":{"name":"gadgets.lab.example.com"},"spec":{"group":"lab.example.com",
		"names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList"},"scope":"Namespaced",
		"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`), crd))
	_, err = cl.CustomResourceDefinitions().Create(bg, crd)
	require.NoError(t, err)
	assert.Greater(t, count(secrets), beforeCRD, "a definition changed: every resource may be served differently")

	for _, gvr := range []schema.GroupVersionResource{{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}, {Group: "no.such", Version: "v1", Resource: "things"}} {
		_, ok := c.listChanges(gvr)
		assert.False(t, ok, "%v is not stored here: every Sync lists", gvr)
	}

	live, err := New(Config{Mode: runmode.Live, UnsafeNoFsync: true, APIServerOnly: true})
	require.NoError(t, err)
	defer live.Close()
	_, ok := live.listChanges(cms)
	assert.False(t, ok, "live mode keeps no change log (informers watch)")
}
