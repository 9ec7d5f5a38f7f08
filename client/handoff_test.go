package client_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
)

func next[T api.Object](t *testing.T, w *client.Watch[T]) client.Event[T] {
	t.Helper()
	select {
	case ev, ok := <-w.Events():
		require.True(t, ok, "the watch ended: %v", w.Err())
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event")
	}
	panic("unreachable")
}

// In process, watchers share the watch cache's decoded object (package
// handoff); over HTTP the same watch decodes JSON into an equal object of
// its own. A dynamic client, whose type differs, gets JSON in process too.
func TestInProcessWatchesShareTheDecodedObject(t *testing.T) {
	env := apiservertest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	httpSrv := httptest.NewServer(env.Server.Handler())
	defer httpSrv.Close()
	remote, err := client.New(client.Config{Server: httpSrv.URL})
	require.NoError(t, err)
	other := client.NewInProcess(env.Server.Handler(), "other")

	w1, err := env.Client.Pods().Watch(ctx, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	defer w1.Stop()
	w2, err := other.Pods().Watch(ctx, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	defer w2.Stop()
	w3, err := remote.Pods().Watch(ctx, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	defer w3.Stop()
	dyn, err := client.Dynamic(other, env.Client.Pods().Info()).Watch(ctx, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	defer dyn.Stop()

	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"},
		Annotations: map[string]string{"a": "b"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx", Args: []string{"-x"},
			Ports: []api.ContainerPort{{ContainerPort: 80}}}}}}
	_, err = env.Client.Pods().Create(ctx, pod)
	require.NoError(t, err)

	e1, e2, e3, ed := next(t, w1), next(t, w2), next(t, w3), next(t, dyn)
	assert.Equal(t, api.WatchEventAdded, e1.Type)
	assert.Same(t, e1.Object, e2.Object, "two in-process watchers get the one decoded object")
	assert.NotSame(t, e1.Object, e3.Object, "a remote watcher decodes its own")
	assert.Equal(t, e3.Object, e1.Object, "the object handed over is what the JSON decodes to")
	assert.Equal(t, "web", ed.Object.GetObjectMeta().Name, "an unstructured watcher gets the JSON decoded")
	assert.Equal(t, e1.Object.ResourceVersion, ed.Object.GetObjectMeta().ResourceVersion)

	require.NoError(t, env.Client.Pods().Delete(ctx, "default", "web", nil))
	e1 = next(t, w1)
	assert.Equal(t, api.WatchEventDeleted, e1.Type)
	assert.Equal(t, e3.Object.Name, next(t, w3).Object.Name)
}
