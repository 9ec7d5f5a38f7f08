package controllers_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// newLoop is a controller with nothing to reconcile, for its informers.
func newLoop(t *testing.T, env *apiservertest.Env, name string, informers *cache.Factory) *controllers.Controller {
	t.Helper()
	ctrl, err := controllers.New(controllers.Config{Name: name, Informers: informers, Clock: env.Clock, Mode: runmode.Step,
		Reconciler: controllers.ReconcileFunc(func(context.Context, string) (controllers.Result, error) {
			return controllers.Result{}, nil
		})})
	require.NoError(t, err)
	return ctrl
}

func TestInformerForIsASourceOfTheController(t *testing.T) {
	env := apiservertest.New(t)
	cl := env.Client
	for _, ns := range []string{"a", "b"} {
		_, err := cl.Namespaces().Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		require.NoError(t, err)
		for _, name := range []string{"kept", "other"} {
			_, err := cl.ConfigMaps().Create(bg, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})
			require.NoError(t, err)
		}
	}
	ctrl := newLoop(t, env, "test", nil)
	all := controllers.InformerFor(ctrl, cl.ConfigMaps())
	filtered := controllers.FilteredInformerFor(ctrl, cl.ConfigMaps(), "a", client.ListOptions{FieldSelector: "metadata.name=kept"})
	var added []string
	filtered.AddHandler(cache.Handler[*corev1.ConfigMap]{OnAdd: func(cm *corev1.ConfigMap) { added = append(added, cache.Key(&cm.ObjectMeta)) }})
	assert.Empty(t, all.List(), "nothing is listed before the controller syncs")

	require.NoError(t, ctrl.Sync(bg), "the controller's Sync lists every informer it was given")
	var keys []string
	for _, cm := range all.List() {
		keys = append(keys, cache.Key(&cm.ObjectMeta))
	}
	assert.Equal(t, []string{"a/kept", "a/other", "b/kept", "b/other"}, keys)
	assert.Equal(t, []string{"a/kept"}, added, "the filtered informer lists one namespace, narrowed by the selector")
}

func TestInformerForTakesInformersFromTheFactory(t *testing.T) {
	env := apiservertest.New(t)
	cl := env.Client
	shared := cache.NewFactory(cache.FactoryConfig{Share: true})
	one, two := newLoop(t, env, "one", shared), newLoop(t, env, "two", shared)
	pods := controllers.InformerFor(one, cl.Pods())
	assert.Same(t, pods, controllers.InformerFor(two, cl.Pods()), "two controllers of a sharing factory hold one pod cache")
	assert.NotSame(t, pods, controllers.FilteredInformerFor(two, cl.Pods(), "default", client.ListOptions{}),
		"a narrower list is another informer")

	private := newLoop(t, env, "private", nil)
	assert.NotSame(t, pods, controllers.InformerFor(private, cl.Pods()), "no factory: a private informer")
}
