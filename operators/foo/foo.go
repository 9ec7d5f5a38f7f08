package foo

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// CRD is crd.yaml, the Foo CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

// Name is the controller's name (`kubesim run-controller foo`).
const Name = "foo"

// The Foo kind and resource.
var (
	GroupVersionKind = schema.GroupVersionKind{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Kind: "Foo"}
	FoosResource     = client.ResourceInfo{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Resource: "foos", Namespaced: true}
)

// The sample-controller's event reasons and messages.
const (
	SuccessSynced         = "Synced"
	ErrResourceExists     = "ErrResourceExists"
	MessageResourceExists = "Resource %q already exists and is not managed by Foo"
	MessageResourceSynced = "Foo synced successfully"
)

// Foo names a Deployment to keep.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FooSpec   `json:"spec"`
	Status            FooStatus `json:"status,omitempty"`
}

// FooSpec is the desired Deployment.
type FooSpec struct {
	DeploymentName string `json:"deploymentName"`
	Replicas       *int32 `json:"replicas,omitempty"`
}

// FooStatus reports the Deployment's available replicas.
type FooStatus struct {
	AvailableReplicas int32 `json:"availableReplicas"`
}

// DeepCopyObject implements api.Object.
func (f *Foo) DeepCopyObject() runtime.Object {
	data, err := json.Marshal(f)
	if err != nil {
		panic(err) // a Foo always marshals
	}
	out := &Foo{}
	if err := json.Unmarshal(data, out); err != nil {
		panic(err)
	}
	return out
}

// Foos is the typed client of Foos.
func Foos(c *client.Client) *client.Resource[*Foo] {
	return client.For(c, FoosResource, func() *Foo { return &Foo{} })
}

// Config builds a Controller.
type Config struct {
	Client *client.Client
	Clock  clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode      runmode.Mode
	Namespace string
	Logger    *slog.Logger
}

// Controller is the Foo controller.
type Controller struct {
	*controllers.ObjectController[*Foo]
	deployments *controllers.Watched[*appsv1.Deployment]
}

// New builds the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("foo: Client and Clock are required")
	}
	c := &Controller{deployments: controllers.Owns(cfg.Client.Deployments(), "Deployment")}
	fc, err := controllers.NewObjectController(controllers.ObjectConfig[*Foo]{
		Name: Name, Component: "sample-controller", Client: cfg.Client, Clock: cfg.Clock, Mode: cfg.Mode,
		Primary: Foos(cfg.Client), GVK: GroupVersionKind, Owns: []controllers.Watch{c.deployments},
		Reconcile: c.syncHandler, Namespace: cfg.Namespace, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	c.ObjectController = fc
	return c, nil
}

// syncHandler is the sample-controller's syncHandler.
func (c *Controller) syncHandler(ctx context.Context, foo *Foo) (controllers.Result, error) {
	name := foo.Spec.DeploymentName
	if name == "" {
		// Nothing to do until the user fixes the spec; an update requeues it.
		c.Logger().Warn("deployment name must be specified", "foo", foo.Namespace+"/"+foo.Name)
		return controllers.Result{}, nil
	}
	deployment, ok := c.deployments.Get(foo.Namespace, name)
	var err error
	if !ok {
		deployment, err = c.deployments.Resource().Create(ctx, NewDeployment(foo))
		if err != nil {
			return controllers.Result{}, err
		}
	}
	if !api.IsControlledBy(&deployment.ObjectMeta, &foo.ObjectMeta) {
		msg := fmt.Sprintf(MessageResourceExists, deployment.Name)
		c.Eventf(ctx, foo, corev1.EventTypeWarning, ErrResourceExists, "%s", msg)
		return controllers.Result{}, errors.New(msg)
	}
	if foo.Spec.Replicas != nil && (deployment.Spec.Replicas == nil || *foo.Spec.Replicas != *deployment.Spec.Replicas) {
		d := deployment.DeepCopy()
		d.Spec.Replicas = foo.Spec.Replicas
		if deployment, err = c.deployments.Resource().Update(ctx, d); err != nil {
			return controllers.Result{}, err
		}
	}
	available := deployment.Status.AvailableReplicas
	if _, err := c.UpdateStatus(ctx, foo, func(f *Foo) { f.Status.AvailableReplicas = available }); err != nil {
		return controllers.Result{}, err
	}
	c.Eventf(ctx, foo, corev1.EventTypeNormal, SuccessSynced, MessageResourceSynced)
	return controllers.Result{}, nil
}

// NewDeployment is the Deployment a Foo asks for: nginx, labelled
// app=nginx and controller=<foo>, controlled by the Foo.
func NewDeployment(foo *Foo) *appsv1.Deployment {
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: foo.Spec.DeploymentName, Namespace: foo.Namespace,
			OwnerReferences: []metav1.OwnerReference{*api.NewControllerRef(&foo.ObjectMeta, GroupVersionKind)},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: foo.Spec.Replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest"}}},
			},
		},
	}
}
