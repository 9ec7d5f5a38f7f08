package cache

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/client"
)

func TestFactorySharesOneInformerPerResourceTypeNamespaceAndOptions(t *testing.T) {
	c, _ := testServer(t, 0)
	f := NewFactory(FactoryConfig{Share: true})
	a := For(f, c.ConfigMaps(), "", client.ListOptions{}, nil)
	assert.Same(t, a, For(f, c.WithUserAgent("other").ConfigMaps(), "", client.ListOptions{}, nil),
		"two controllers asking for configmaps share one informer")
	assert.NotSame(t, a, For(f, c.ConfigMaps(), "default", client.ListOptions{}, nil), "another namespace")
	assert.NotSame(t, a, For(f, c.ConfigMaps(), "", client.ListOptions{LabelSelector: "app=x"}, nil), "other options")
	dyn := For(f, client.Dynamic(c, c.ConfigMaps().Info()), "", client.ListOptions{}, nil)
	assert.NotNil(t, dyn, "an unstructured informer of the same resource is another informer")
	assert.Equal(t, 4, f.Len())

	private := NewFactory(FactoryConfig{})
	assert.NotSame(t, For(private, c.ConfigMaps(), "", client.ListOptions{}, nil), For(private, c.ConfigMaps(), "", client.ListOptions{}, nil),
		"without Share (step mode) every caller gets its own informer")
	assert.NotSame(t, For[*corev1.ConfigMap](nil, c.ConfigMaps(), "", client.ListOptions{}, nil), a, "a nil factory builds a private one")
	var _ *Informer[*unstructured.Unstructured] = dyn
}

func TestFactoryIndexNameKeepsTheFirstFunction(t *testing.T) {
	c, _ := testServer(t, 0)
	ctx := context.Background()
	_, err := c.ConfigMaps().Create(ctx, cm("a", map[string]string{"app": "x"}))
	require.NoError(t, err)
	f := NewFactory(FactoryConfig{Share: true})
	inf := For(f, c.ConfigMaps(), "", client.ListOptions{}, nil)
	inf.AddIndexer("app", func(o *corev1.ConfigMap) []string { return []string{o.Labels["app"]} })
	For(f, c.ConfigMaps(), "", client.ListOptions{}, nil).AddIndexer("app", func(o *corev1.ConfigMap) []string { return []string{"other"} })
	require.NoError(t, inf.Sync(ctx))
	assert.Len(t, inf.ByIndex("app", "x"), 1)
	assert.Empty(t, inf.ByIndex("app", "other"))
}

// A shared informer runs while any of its controllers runs: the first Run
// starts the watch, a controller that stops does not stop the others'
// cache, and the last one to stop ends it.
func TestSharedInformerRunsUntilItsLastRunnerStops(t *testing.T) {
	c, _ := testServer(t, 0)
	cms := c.ConfigMaps()
	f := NewFactory(FactoryConfig{Share: true})
	inf := For(f, cms, "", client.ListOptions{}, nil)
	rec := &recorder{}
	inf.AddHandler(rec.handler())

	ctx1, stop1 := context.WithCancel(context.Background())
	ctx2, stop2 := context.WithCancel(context.Background())
	defer stop2()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); inf.Run(ctx1) }()
	go func() { defer wg.Done(); inf.Run(ctx2) }()
	require.Eventually(t, inf.HasSynced, 5*time.Second, 5*time.Millisecond)

	stop1()
	_, err := cms.Create(context.Background(), cm("after-one-stopped", nil))
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := inf.Get("default", "after-one-stopped"); return ok }, 5*time.Second, 5*time.Millisecond,
		"the informer keeps watching for the runner that is left")
	assert.Equal(t, []string{"add after-one-stopped"}, rec.snapshot(), "one watch, one event")

	stop2()
	wg.Wait() // both Runs return once the last runner stops
	_, err = cms.Create(context.Background(), cm("after-both-stopped", nil))
	require.NoError(t, err)
	list, err := cms.List(context.Background(), "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 2)
	_, ok := inf.Get("default", "after-both-stopped")
	assert.False(t, ok, "the watch ended with the last runner")
}

func TestMutationDetectorCatchesAChangedSharedObject(t *testing.T) {
	c, _ := testServer(t, 0)
	ctx := context.Background()
	_, err := c.ConfigMaps().Create(ctx, cm("shared", map[string]string{"app": "x"}))
	require.NoError(t, err)
	d := NewMutationDetector()
	f := NewFactory(FactoryConfig{Share: true, Detector: d})
	inf := For(f, c.ConfigMaps(), "", client.ListOptions{}, nil)
	require.NoError(t, inf.Sync(ctx))
	obj, ok := inf.Get("default", "shared")
	require.True(t, ok)

	cp := obj.DeepCopy()
	cp.Labels["app"] = "changed-on-a-copy"
	require.NoError(t, d.Check(), "changing a copy is the rule")

	obj.Labels["app"] = "changed-in-place"
	err = d.Check()
	require.Error(t, err, "changing the shared object is caught")
	assert.Contains(t, err.Error(), "default/shared")
	var nilDetector *MutationDetector
	assert.NoError(t, nilDetector.Check())
}
