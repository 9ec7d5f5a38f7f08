package cache

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
)

// A metadata informer (the garbage collector's) in the API server's
// process is handed the metadata of the watch cache's objects: its type
// fields are the object's, and its labels are the very map the typed
// informers hold (shared, not decoded again). The mutation detector of a
// Private informer catches a change made to that shared metadata.
func TestMetadataInformerSharesTheWatchCachesMetadata(t *testing.T) {
	c, _ := testServer(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	d := NewMutationDetector()
	f := NewFactory(FactoryConfig{Detector: d})
	typed := For(f, c.ConfigMaps(), "", client.ListOptions{}, nil)
	meta := Private(f, client.Metadata(c, c.ConfigMaps().Info()), "", client.ListOptions{}, nil)
	for _, run := range []func(context.Context){typed.Run, meta.Run} {
		wg.Go(func() { run(ctx) })
	}
	require.Eventually(t, func() bool { return typed.HasSynced() && meta.HasSynced() }, 30*time.Second, 5*time.Millisecond)
	owner := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u-1"}
	obj := cm("a", map[string]string{"app": "x"})
	obj.OwnerReferences = []metav1.OwnerReference{owner}
	obj.Data = map[string]string{"big": "a value the metadata informer never holds"}
	_, err := c.ConfigMaps().Create(ctx, obj)
	require.NoError(t, err)
	var full *corev1.ConfigMap
	var m *metav1.PartialObjectMetadata
	require.Eventually(t, func() bool {
		var ok1, ok2 bool
		full, ok1 = typed.Get("default", "a")
		m, ok2 = meta.Get("default", "a")
		return ok1 && ok2
	}, 30*time.Second, 5*time.Millisecond)

	assert.Equal(t, metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, m.TypeMeta)
	assert.Equal(t, full.UID, m.UID)
	assert.Equal(t, []metav1.OwnerReference{owner}, m.OwnerReferences)
	assert.Equal(t, reflect.ValueOf(full.Labels).UnsafePointer(), reflect.ValueOf(m.Labels).UnsafePointer(),
		"the metadata is the watch cache's, shared with the typed informer, not decoded again")
	// Stopped, so that the change below is ordered after every reader.
	cancel()
	wg.Wait()
	require.NoError(t, d.Check())

	m.Labels["app"] = "changed-in-place" // changes the typed informer's pod too
	err = d.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "default/a")
	assert.Equal(t, "changed-in-place", full.Labels["app"], "one map: what the detector guards against")
}

// Over a socket (or when the server cannot hand objects over) a metadata
// client decodes only the metadata out of the object's JSON.
func TestMetadataClientDecodesOnlyMetadata(t *testing.T) {
	c, _ := testServer(t, 0)
	ctx := context.Background()
	obj := cm("b", map[string]string{"app": "y"})
	obj.Data = map[string]string{"k": "v"}
	_, err := c.ConfigMaps().Create(ctx, obj)
	require.NoError(t, err)
	l, err := client.Metadata(c, c.ConfigMaps().Info()).List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	assert.Equal(t, "ConfigMap", l.Items[0].Kind)
	assert.Equal(t, map[string]string{"app": "y"}, l.Items[0].Labels)
}
