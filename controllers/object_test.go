package controllers_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

var bg = context.Background()

var deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

// infoController is the smallest ObjectController there is: for
// each Deployment it keeps a ConfigMap "<name>-info" holding the replica
// count, and reports in status.observedGeneration and status.replicas.
type infoController struct {
	*controllers.ObjectController[*appsv1.Deployment]
	configMaps *controllers.Watched[*corev1.ConfigMap]
	reconciles int
}

func newInfoController(t *testing.T, cl *client.Client, env *apiservertest.Env) *infoController {
	ic := &infoController{configMaps: controllers.Owns(cl.ConfigMaps(), "ConfigMap")}
	c, err := controllers.NewObjectController(controllers.ObjectConfig[*appsv1.Deployment]{
		Name: "info", Client: cl, Clock: env.Clock, Mode: runmode.Step, Primary: cl.Deployments(), GVK: deploymentGVK,
		Owns: []controllers.Watch{ic.configMaps}, Reconcile: ic.reconcile,
	})
	require.NoError(t, err)
	ic.ObjectController = c
	return ic
}

func (ic *infoController) reconcile(ctx context.Context, d *appsv1.Deployment) (controllers.Result, error) {
	ic.reconciles++
	replicas := int32(1)
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: d.Name + "-info", Namespace: d.Namespace}}
	_, _, err := controllers.CreateOrUpdate(ctx, ic.configMaps.Resource(), d, ic.GVK(), cm, func(cm *corev1.ConfigMap) error {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data["replicas"] = strconv.Itoa(int(replicas))
		return nil
	})
	if err != nil {
		return controllers.Result{}, err
	}
	owned := int32(len(ic.configMaps.OwnedBy(d)))
	_, err = ic.UpdateStatus(ctx, d, func(d *appsv1.Deployment) {
		d.Status.ObservedGeneration = d.Generation
		d.Status.Replicas = owned
	})
	return controllers.Result{}, err
}

// drive syncs and steps the controller until nothing is left.
func drive(t *testing.T, ctrl *controllers.Controller) int {
	t.Helper()
	steps := 0
	for ; steps < 100; steps++ {
		require.NoError(t, ctrl.Sync(bg))
		info, ok := ctrl.Step(bg)
		if !ok {
			return steps
		}
		require.NoError(t, info.Err)
	}
	t.Fatal("the controller never settled")
	return steps
}

func deployment(name string, replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
}

func TestOwnedObjectsAreKeptAndStatusReported(t *testing.T) {
	env := apiservertest.New(t)
	cl := env.Client
	ic := newInfoController(t, cl, env)
	ctrl := ic.Controllers()[0]

	_, err := cl.Deployments().Create(bg, deployment("web", 3))
	require.NoError(t, err)
	drive(t, ctrl)

	cm, err := cl.ConfigMaps().Get(bg, "default", "web-info")
	require.NoError(t, err)
	assert.Equal(t, "3", cm.Data["replicas"])
	ref := api.GetControllerOf(&cm.ObjectMeta)
	require.NotNil(t, ref, "the owned object has a controller reference")
	assert.Equal(t, "Deployment", ref.Kind)
	assert.Equal(t, "apps/v1", ref.APIVersion)
	assert.Equal(t, "web", ref.Name)
	d, err := cl.Deployments().Get(bg, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, d.Generation, d.Status.ObservedGeneration)
	assert.Equal(t, int32(1), d.Status.Replicas, "the owned ConfigMap was in the cache on the second reconcile")

	t.Run("a changed owned object wakes its owner, which puts it back", func(t *testing.T) {
		cm.Data["replicas"] = "99"
		_, err := cl.ConfigMaps().Update(bg, cm)
		require.NoError(t, err)
		require.NoError(t, ctrl.Sync(bg))
		info, ok := ctrl.Step(bg)
		require.True(t, ok)
		assert.Equal(t, "default/web", info.Key)
		assert.Equal(t, "MODIFIED ConfigMap default/web-info", info.Cause.String()[:len("MODIFIED ConfigMap default/web-info")])
		drive(t, ctrl)
		cm, err := cl.ConfigMaps().Get(bg, "default", "web-info")
		require.NoError(t, err)
		assert.Equal(t, "3", cm.Data["replicas"])
	})
	t.Run("a deleted owned object comes back", func(t *testing.T) {
		require.NoError(t, cl.ConfigMaps().Delete(bg, "default", "web-info", nil))
		drive(t, ctrl)
		_, err := cl.ConfigMaps().Get(bg, "default", "web-info")
		require.NoError(t, err)
	})
	t.Run("a spec change is carried to the owned object", func(t *testing.T) {
		d, err := cl.Deployments().Get(bg, "default", "web")
		require.NoError(t, err)
		five := int32(5)
		d.Spec.Replicas = &five
		_, err = cl.Deployments().Update(bg, d)
		require.NoError(t, err)
		drive(t, ctrl)
		cm, err := cl.ConfigMaps().Get(bg, "default", "web-info")
		require.NoError(t, err)
		assert.Equal(t, "5", cm.Data["replicas"])
		d, err = cl.Deployments().Get(bg, "default", "web")
		require.NoError(t, err)
		assert.Equal(t, d.Generation, d.Status.ObservedGeneration)
	})
	t.Run("nothing to do writes nothing", func(t *testing.T) {
		before, err := cl.ConfigMaps().Get(bg, "default", "web-info")
		require.NoError(t, err)
		ic.Enqueue("default/web", controllers.Cause{Event: "test"})
		drive(t, ctrl)
		after, err := cl.ConfigMaps().Get(bg, "default", "web-info")
		require.NoError(t, err)
		assert.Equal(t, before.ResourceVersion, after.ResourceVersion)
	})
	t.Run("a deleted primary is not reconciled", func(t *testing.T) {
		require.NoError(t, cl.Deployments().Delete(bg, "default", "web", nil))
		n := ic.reconciles
		drive(t, ctrl)
		assert.Equal(t, n, ic.reconciles)
	})
}

func TestObjectOfAnotherControllerIsNotTaken(t *testing.T) {
	env := apiservertest.New(t)
	cl := env.Client
	ic := newInfoController(t, cl, env)
	other, err := cl.Deployments().Create(bg, deployment("other", 1))
	require.NoError(t, err)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-info", Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{*api.NewControllerRef(&other.ObjectMeta, deploymentGVK)}}}
	_, err = cl.ConfigMaps().Create(bg, cm)
	require.NoError(t, err)
	_, err = cl.Deployments().Create(bg, deployment("web", 2))
	require.NoError(t, err)

	ctrl := ic.Controllers()[0]
	require.NoError(t, ctrl.Sync(bg))
	var errs []string
	for range 10 {
		info, ok := ctrl.Step(bg)
		if !ok {
			break
		}
		if info.Err != nil {
			errs = append(errs, info.Err.Error())
		}
	}
	assert.Contains(t, errs, "Object default/web-info is already owned by another Deployment controller other")
	got, err := cl.ConfigMaps().Get(bg, "default", "web-info")
	require.NoError(t, err)
	assert.Equal(t, other.UID, api.GetControllerOf(&got.ObjectMeta).UID)
}

func TestUpdateStatusRetriesOnConflict(t *testing.T) {
	env := apiservertest.New(t)
	cl := env.Client
	d, err := cl.Deployments().Create(bg, deployment("web", 1))
	require.NoError(t, err)
	// Someone else writes the object after we read it: our copy is stale.
	fresh := d.DeepCopy()
	fresh.Labels = map[string]string{"touched": "yes"}
	_, err = cl.Deployments().Update(bg, fresh)
	require.NoError(t, err)

	calls := 0
	out, err := controllers.UpdateStatus(bg, cl.Deployments(), d, 3, func(d *appsv1.Deployment) {
		calls++
		d.Status.ReadyReplicas = 7
	})
	require.NoError(t, err)
	assert.Equal(t, 2, calls, "the change was applied again to the re-read object")
	assert.Equal(t, int32(7), out.Status.ReadyReplicas)
	assert.Equal(t, "yes", out.Labels["touched"], "the other writer's change survived")

	t.Run("gives up after N conflicts", func(t *testing.T) {
		calls := 0
		_, err := controllers.UpdateStatus(bg, cl.Deployments(), out, 3, func(d *appsv1.Deployment) {
			calls++
			d.Status.ReadyReplicas = int32(100 + calls)
			// Another writer wins every race.
			cur, err := cl.Deployments().Get(bg, "default", "web")
			require.NoError(t, err)
			cur.Labels["n"] = fmt.Sprint(calls)
			_, err = cl.Deployments().Update(bg, cur)
			require.NoError(t, err)
		})
		require.Error(t, err)
		assert.True(t, api.IsConflict(err), "%v", err)
		assert.Contains(t, err.Error(), "after 3 conflicts")
		assert.Equal(t, 3, calls)
	})
	t.Run("no change, no write", func(t *testing.T) {
		cur, err := cl.Deployments().Get(bg, "default", "web")
		require.NoError(t, err)
		out, err := controllers.UpdateStatus(bg, cl.Deployments(), cur, 3, func(*appsv1.Deployment) {})
		require.NoError(t, err)
		assert.Equal(t, cur.ResourceVersion, out.ResourceVersion)
	})
}

// An ObjectController runs over unstructured objects as well: the primary kind
// of an operator is a custom resource the Go code has no type for.
func TestUnstructuredPrimary(t *testing.T) {
	env := apiservertest.New(t)
	cl := env.Client
	dyn := client.Dynamic(cl, client.DeploymentsResource)
	cms := controllers.Owns(cl.ConfigMaps(), "ConfigMap")
	var c *controllers.ObjectController[*unstructured.Unstructured]
	c, err := controllers.NewObjectController(controllers.ObjectConfig[*unstructured.Unstructured]{
		Name: "uinfo", Client: cl, Clock: env.Clock, Mode: runmode.Step, Primary: dyn, GVK: deploymentGVK, Owns: []controllers.Watch{cms},
		Reconcile: func(ctx context.Context, u *unstructured.Unstructured) (controllers.Result, error) {
			replicas, _ := unstructured.NestedField(u.Content, "spec", "replicas")
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: u.Name + "-info", Namespace: u.Namespace}}
			if _, _, err := controllers.CreateOrUpdate(ctx, cl.ConfigMaps(), u, deploymentGVK, cm, func(cm *corev1.ConfigMap) error {
				cm.Data = map[string]string{"replicas": fmt.Sprint(replicas)}
				return nil
			}); err != nil {
				return controllers.Result{}, err
			}
			_, err := c.UpdateStatus(ctx, u, func(u *unstructured.Unstructured) {
				unstructured.SetNestedField(u.Content, u.Generation, "status", "observedGeneration")
			})
			return controllers.Result{}, err
		},
	})
	require.NoError(t, err)
	_, err = cl.Deployments().Create(bg, deployment("web", 4))
	require.NoError(t, err)
	drive(t, c.Controllers()[0])
	cm, err := cl.ConfigMaps().Get(bg, "default", "web-info")
	require.NoError(t, err)
	assert.Equal(t, "4", cm.Data["replicas"])
	d, err := cl.Deployments().Get(bg, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, d.Generation, d.Status.ObservedGeneration)
}

func TestNewChecksConfig(t *testing.T) {
	_, err := controllers.NewObjectController(controllers.ObjectConfig[*appsv1.Deployment]{Name: "x"})
	require.Error(t, err)
}
