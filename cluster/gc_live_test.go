package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/client"
)

// In live mode, a custom resource deleted before the garbage collector started
// watching its kind still has its dependents collected.
func TestLiveGarbageCollectionThroughANewCustomResource(t *testing.T) {
	c, err := newTestCluster(t, Config{NodeCount: 1, UnsafeNoFsync: true})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, c.Start(ctx))
	cl := c.Client("t")
	crd := client.Dynamic(cl, client.ResourceInfo{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	obj := &unstructured.Unstructured{}
	require.NoError(t, obj.UnmarshalJSON([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.lab.example.com"},"spec":{"group":"lab.example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`)))
	_, err = crd.Create(ctx, obj)
	require.NoError(t, err)
	w := client.Dynamic(cl, client.ResourceInfo{Group: "lab.example.com", Version: "v1", Resource: "widgets", Namespaced: true})
	wo := &unstructured.Unstructured{}
	require.NoError(t, wo.UnmarshalJSON([]byte(`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"}}`)))
	created, err := w.Create(ctx, wo)
	require.NoError(t, err)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dep", Namespace: "default", OwnerReferences: []metav1.OwnerReference{{APIVersion: "lab.example.com/v1", Kind: "Widget", Name: "w", UID: created.UID}}}}
	_, err = cl.ConfigMaps().Create(ctx, cm)
	require.NoError(t, err)
	time.Sleep(500 * time.Millisecond)
	require.NoError(t, w.Delete(ctx, "default", "w", nil))
	start := time.Now()
	require.Eventually(t, func() bool {
		_, err := cl.ConfigMaps().Get(ctx, "default", "dep")
		return api.IsNotFound(err)
	}, 60*time.Second, 100*time.Millisecond)
	t.Logf("collected after %v", time.Since(start))
}
