package foo_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/operators"
	"github.com/kubesim/kubesim/operators/foo"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

var bg = context.Background()

func newCluster(t *testing.T) (*cluster.Cluster, *client.Client) {
	c, err := cluster.New(cluster.Config{Mode: runmode.Step, Seed: 3, NodeCount: 2, Extra: []cluster.ExtraController{{
		Name: foo.Name,
		New: func(x cluster.ControllerContext) (cluster.Component, error) {
			return foo.New(foo.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Logger: x.Logger})
		},
	}}})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	cl := c.Client("test")
	require.NoError(t, operators.InstallCRDs(bg, cl, foo.CRD))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	return c, cl
}

func newFoo(name, deployment string, replicas int32) *foo.Foo {
	return &foo.Foo{TypeMeta: metav1.TypeMeta{APIVersion: "samplecontroller.k8s.io/v1alpha1", Kind: "Foo"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       foo.FooSpec{DeploymentName: deployment, Replicas: &replicas}}
}

func TestFooKeepsItsDeployment(t *testing.T) {
	c, cl := newCluster(t)
	foos := foo.Foos(cl)
	_, err := foos.Create(bg, newFoo("example-foo", "example-foo", 1))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)

	d, err := cl.Deployments().Get(bg, "default", "example-foo")
	require.NoError(t, err)
	assert.Equal(t, "Foo", api.GetControllerOf(&d.ObjectMeta).Kind)
	assert.Equal(t, int32(1), d.Status.AvailableReplicas)
	f, err := foos.Get(bg, "default", "example-foo")
	require.NoError(t, err)
	assert.Equal(t, int32(1), f.Status.AvailableReplicas)

	// Scale through the Foo.
	_, err = foos.Patch(bg, "default", "example-foo", client.MergePatch, []byte(`{"spec":{"replicas":3}}`))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	f, err = foos.Get(bg, "default", "example-foo")
	require.NoError(t, err)
	assert.Equal(t, int32(3), f.Status.AvailableReplicas)

	events, err := cl.Events().List(bg, "default", client.ListOptions{FieldSelector: "involvedObject.name=example-foo,reason=Synced"})
	require.NoError(t, err)
	require.NotEmpty(t, events.Items)
	assert.Equal(t, "Foo synced successfully", events.Items[0].Message)

	// Deleting the Foo deletes its Deployment (and its pods).
	require.NoError(t, foos.Delete(bg, "default", "example-foo", nil))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	_, err = cl.Deployments().Get(bg, "default", "example-foo")
	assert.True(t, api.IsNotFound(err), "%v", err)
	pods, err := cl.Pods().List(bg, "default", client.ListOptions{LabelSelector: "app=nginx"})
	require.NoError(t, err)
	assert.Empty(t, pods.Items)
}

func TestFooLeavesAForeignDeploymentAlone(t *testing.T) {
	c, cl := newCluster(t)
	other := foo.NewDeployment(newFoo("someone", "taken", 1))
	other.OwnerReferences = nil
	_, err := cl.Deployments().Create(bg, other)
	require.NoError(t, err)
	_, err = foo.Foos(cl).Create(bg, newFoo("example-foo", "taken", 2))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	d, err := cl.Deployments().Get(bg, "default", "taken")
	require.NoError(t, err)
	assert.Nil(t, api.GetControllerOf(&d.ObjectMeta))
	assert.Equal(t, int32(1), *d.Spec.Replicas, "not scaled by a Foo that does not own it")
	events, err := cl.Events().List(bg, "default", client.ListOptions{FieldSelector: "involvedObject.name=example-foo,reason=ErrResourceExists"})
	require.NoError(t, err)
	require.NotEmpty(t, events.Items)
	assert.Equal(t, `Resource "taken" already exists and is not managed by Foo`, events.Items[0].Message)
	assert.Equal(t, "Warning", events.Items[0].Type)
}
