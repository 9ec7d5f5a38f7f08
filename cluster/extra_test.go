package cluster

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// labeller is an extra controller: it copies a ReplicaSet's replica count
// into a ConfigMap it owns.
func labeller(x ControllerContext) (Component, error) {
	cl := x.Client
	cms := controllers.Owns(cl.ConfigMaps(), "ConfigMap")
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}
	return controllers.NewObjectController(controllers.ObjectConfig[*appsv1.ReplicaSet]{
		Name: "labeller", Client: cl, Clock: x.Clock, Mode: x.Mode, Primary: cl.ReplicaSets(), GVK: gvk,
		Owns: []controllers.Watch{cms}, Logger: x.Logger,
		Reconcile: func(ctx context.Context, rs *appsv1.ReplicaSet) (controllers.Result, error) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: rs.Name + "-seen", Namespace: rs.Namespace}}
			_, _, err := controllers.CreateOrUpdate(ctx, cms.Resource(), rs, gvk, cm, func(cm *corev1.ConfigMap) error {
				cm.Data = map[string]string{"ready": string(rune('0' + rs.Status.ReadyReplicas))}
				return nil
			})
			return controllers.Result{}, err
		},
	})
}

func TestExtraControllerRunsInTheStepper(t *testing.T) {
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 2, Extra: []ExtraController{{Name: "labeller", New: labeller}}})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	cl := c.Client("test")
	_, err = cl.ReplicaSets().Create(bg, rs("web", 2))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	cm, err := cl.ConfigMaps().Get(bg, "default", "web-seen")
	require.NoError(t, err)
	assert.Equal(t, "2", cm.Data["ready"], "the extra controller saw the ReplicaSet become ready")
	var lines []string
	for _, e := range c.Trace() {
		if e.Actor == "labeller" {
			lines = append(lines, e.String())
		}
	}
	require.NotEmpty(t, lines)
	assert.Contains(t, strings.Join(lines, "\n"), "create /api/v1/namespaces/default/configmaps 201")

	require.NoError(t, c.SetEnabled("labeller", false))
	require.NoError(t, cl.ConfigMaps().Delete(bg, "default", "web-seen", nil))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	_, err = cl.ConfigMaps().Get(bg, "default", "web-seen")
	assert.True(t, api.IsNotFound(err), "a switched-off extra controller does nothing")
}

func TestExtraControllerConfigIsChecked(t *testing.T) {
	_, err := newTestCluster(t, Config{Mode: runmode.Step, Extra: []ExtraController{{Name: "replicaset", New: labeller}}})
	require.Error(t, err)
	_, err = newTestCluster(t, Config{Mode: runmode.Step, Extra: []ExtraController{{Name: "x"}}})
	require.Error(t, err)
}
